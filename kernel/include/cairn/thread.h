/*
 * Cairn OS thread tasks: tasks with their own stack, beside the message tasks
 * (docs/kernel.md, "Threads"). A thread is preemptive by priority, shares the
 * processor round robin with the ready threads of its priority (one time slice
 * each), and may block: in cairn_thread_receive, cairn_thread_sleep and
 * cairn_thread_join.
 *
 * A thread is also a task ID: routes may name it, and a message sent to it is
 * queued in its mailbox until cairn_thread_receive takes it. The message level
 * (every message task's handler, on the main stack) is one context beside the
 * threads; whichever of them has the highest priority runs, and the message
 * level wins a tie.
 */
#ifndef CAIRN_THREAD_H
#define CAIRN_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "cairn/msg.h"
#include "cairn/task.h"
#include "cairn/types.h"

/* Messages a mailbox holds; one more is refused (CAIRN_EFULL to a sender that
 * runs it at once, else dropped and counted in cairn_thread_stats). */
#ifndef CAIRN_THREAD_MAILBOX
#define CAIRN_THREAD_MAILBOX 4
#endif

/* The time slice of equal-priority threads, in hardware timer ticks (0: no
 * round robin, a thread runs until it blocks or yields). */
#ifndef CAIRN_THREAD_SLICE_TICKS
#define CAIRN_THREAD_SLICE_TICKS 1000u
#endif

/* The smallest stack cairn_thread_create accepts, in bytes. */
#define CAIRN_THREAD_STACK_MIN 128u

/* Wait without a time limit. */
#define CAIRN_THREAD_FOREVER UINT32_MAX

/* The guard word at the lowest address of every thread stack. */
#define CAIRN_THREAD_GUARD 0xC0DEFACEu

/* The virtual timers of a thread's task ID the kernel uses (cairn/timer.h):
 * the wake-up of a sleep or a receive's time limit, and the time slice. */
#define CAIRN_THREAD_TIMER_WAKE 0u
#define CAIRN_THREAD_TIMER_SLICE 1u

/* The exit status (semihosting) of a module stopped by a thread's stack overflow. */
#define CAIRN_EXIT_STACK_OVERFLOW 92

typedef void (*cairn_thread_fn_t)(void *arg);

/* Creates thread id (1..CAIRN_MAX_TASKS) running fn(arg) at priority prio on
 * the caller's stack memory (stack_size bytes, at least CAIRN_THREAD_STACK_MIN;
 * it must stay valid until the thread has exited and been joined), with
 * num_out output ports routed as routes (or unconnected when NULL). name is
 * kept by reference (the stack overflow report prints it). The thread is ready
 * at once. CAIRN_EINVAL: bad id, prio, stack or fn; CAIRN_EBUSY: id taken;
 * CAIRN_ENOMEM: the heap. */
cairn_ret_t cairn_thread_create(cairn_task_id_t id, const char *name, cairn_thread_fn_t fn,
                                void *arg, void *stack, size_t stack_size, cairn_prio_t prio,
                                const cairn_route_t *routes, uint8_t num_out);

/* The running thread's task ID, or CAIRN_TASK_NONE outside a thread. */
cairn_task_id_t cairn_thread_self(void);

/* Takes the oldest message of the running thread's mailbox into *msg, blocking
 * up to timeout hardware ticks (0: do not block; CAIRN_THREAD_FOREVER). The
 * payload follows a handler's rules (cairn/msg.h): valid until the next
 * cairn_thread_receive of this thread, unless cairn_take_msg takes it.
 * CAIRN_EAGAIN: nothing came in time; CAIRN_EINVAL: not called by a thread. */
cairn_ret_t cairn_thread_receive(cairn_msg_t *msg, uint32_t timeout);

/* Blocks the running thread for ticks hardware ticks (0: a yield).
 * CAIRN_EINVAL outside a thread; CAIRN_ENOMEM: no timer. */
cairn_ret_t cairn_thread_sleep(uint32_t ticks);

/* Lets the ready threads of the same priority run first (round robin). */
void cairn_thread_yield(void);

/* Ends the running thread with code (returning from fn is cairn_thread_exit(0)):
 * its task ID is removed and its joiner, if any, wakes. */
_Noreturn void cairn_thread_exit(int code);

/* Waits until thread id has exited and gives its exit code (code may be NULL).
 * A thread blocks; the message level cannot: CAIRN_EAGAIN while id runs.
 * CAIRN_EINVAL: no such thread (never created, or already joined), or itself;
 * CAIRN_EBUSY: another thread already waits for it. */
cairn_ret_t cairn_thread_join(cairn_task_id_t id, int *code);

/* The round-robin time slice, in hardware ticks (0: none), from the next slice on. */
void cairn_thread_set_slice(uint32_t ticks);
uint32_t cairn_thread_get_slice(void);

typedef struct cairn_thread_stats {
    uint32_t switches;      /* context switches (either way) */
    uint32_t slices;        /* slices that ended with an equal-priority thread ready */
    uint32_t mailbox_full;  /* messages a full mailbox refused */
    uint32_t overflows;     /* guard words found overwritten */
} cairn_thread_stats_t;

void cairn_thread_stats(cairn_thread_stats_t *st);

#endif /* CAIRN_THREAD_H */
