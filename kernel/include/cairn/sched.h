/*
 * Cairn OS message scheduler: start-up, the idle loop, interrupt entry/exit and
 * counters. Messages are ordered by destination priority, then creation order;
 * handlers run to completion on one shared stack and are preempted, on that
 * stack, by higher-priority messages. Rules: docs/kernel.md, "Preemption rules".
 */
#ifndef CAIRN_SCHED_H
#define CAIRN_SCHED_H

#include "cairn/types.h"

/* Resets the scheduler: no tasks, no groups, empty queue, zero counters, and a
 * message pool of CAIRN_MSG_POOL messages carved from the heap (so the heap,
 * cairn_heap_init, comes first). CAIRN_ENOMEM when the heap cannot hold the
 * pool. The timers (cairn_timer_init) are initialised separately. */
cairn_ret_t cairn_sched_init(void);

/* Runs every queued message that can run (nothing is on the stack when called
 * from the idle loop), then, when nothing is left, chooses the sleep state for the
 * ticks until the next timer (cairn/sleep.h) and calls arch_idle(ticks, state).
 * Returns after one sleep (or at once when it dispatched something). */
void cairn_idle(void);

/* The kernel's main loop: cairn_idle() forever. */
_Noreturn void cairn_run(void);

/* Interrupt handlers that may send messages (or fire timers) are bracketed by
 * these two (the arch layer does it). Sends inside an interrupt handler are
 * queued; when the outermost handler exits, queued messages that outrank the
 * interrupted handler (strictly higher priority) run. irq is the exception or
 * IRQ number, for the event log only. */
void cairn_isr_enter(uint16_t irq);
void cairn_isr_exit(void);
/* True inside an interrupt handler (between cairn_isr_enter and cairn_isr_exit). */
bool cairn_in_isr(void);

/* Runs queued messages that outrank what is on the stack (what happens after
 * every handler return). Normally only the kernel and arch layer call it (the
 * armv6m port calls it from PendSV after the outermost interrupt). */
void cairn_dispatch(void);

/* Counters, since cairn_sched_init. */
typedef struct cairn_sched_stats {
    uint32_t pool_full;    /* sends refused because the message pool was full */
    uint32_t no_route;     /* sends on an unconnected port or to a missing task */
    uint32_t take_nomem;   /* cairn_take_msg copies that found the heap full */
    uint32_t dropped;      /* queued messages discarded because their task was killed */
    uint16_t queued;       /* messages in the queue now */
    uint16_t queued_peak;  /* most messages ever queued at once */
} cairn_sched_stats_t;

void cairn_sched_stats(cairn_sched_stats_t *st);

#endif /* CAIRN_SCHED_H */
