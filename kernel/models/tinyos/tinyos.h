/*
 * TinyOS-like execution model ("A performance analysis of MANTIS and TinyOS", section
 * III.A and its Fig. 1 a): tasks are deferred calls posted from interrupt handlers or
 * from tasks into one FIFO queue of fixed capacity, run to completion in posting order,
 * never preempted by another task; when the queue is empty the node sleeps until an
 * interrupt. A timer service multiplexes one hardware timer into virtual timers that
 * post tasks (the paper's "structure ... to multiplex many timed events with a single
 * hardware timer").
 */
#ifndef CAIRN_MODEL_TINYOS_H
#define CAIRN_MODEL_TINYOS_H

#include <stdbool.h>
#include <stdint.h>

#ifndef TOS_QUEUE_LEN
#define TOS_QUEUE_LEN 8u /* TinyOS 1.x's TOSH_MAX_TASKS */
#endif

typedef void (*tos_task_fn)(void *arg);

struct tos_sched {
    struct {
        tos_task_fn fn;
        void *arg;
    } q[TOS_QUEUE_LEN];
    uint32_t head;
    uint32_t count;
    uint32_t posted;   /* accepted posts */
    uint32_t rejected; /* posts refused: queue full or no function */
    uint32_t ran;      /* tasks run to completion */
    uint32_t sleeps;   /* times the scheduler waited for an interrupt */
};

void tos_init(struct tos_sched *s);
/* From an interrupt handler or a task. False when the queue is full (the task is not
 * queued and the refusal is counted) or fn is NULL. */
bool tos_post(struct tos_sched *s, tos_task_fn fn, void *arg);
/* TOSH_run_next_task: run the oldest task to completion; false if none was queued. */
bool tos_run_next_task(struct tos_sched *s);
/* TOSH_run_task: run every queued task (and those they post), then sleep once if the
 * queue is still empty, deciding "empty" and sleeping with interrupts masked. */
void tos_run_task(struct tos_sched *s);
/* The scheduler loop: tos_run_task until a task or handler sets *stop (checked after
 * the queue drains, before sleeping, so the last task's "stop" is never slept on). */
void tos_run(struct tos_sched *s, volatile const bool *stop);
uint32_t tos_queued(const struct tos_sched *s);

/* ---- Timer service: one hardware timer, many virtual timers ---------------------- */
struct tos_timer {
    struct tos_timer *next; /* in the service's list, by expiry */
    uint32_t expiry;        /* absolute ticks */
    uint32_t period;        /* 0: one-shot */
    tos_task_fn fn;         /* posted at expiry */
    void *arg;
    bool active;
    uint32_t fired;
    uint32_t lost; /* expiries whose post was refused (queue full) */
};

struct tos_timers {
    struct tos_sched *sched;
    struct tos_timer *list;
    /* Program the hardware timer to interrupt at absolute tick `at` (the earliest
     * expiry), or stop it when `armed` is false. */
    void (*arm)(void *ctx, bool armed, uint32_t at);
    void *ctx;
};

void tos_timers_init(struct tos_timers *t, struct tos_sched *s,
                     void (*arm)(void *ctx, bool armed, uint32_t at), void *ctx);
/* Start `tm` to post fn(arg) `delay` ticks after `now`, then every `period` ticks if
 * period > 0. False (nothing changed) for a NULL timer or fn. Restarting an active
 * timer moves it. */
bool tos_timer_start(struct tos_timers *t, struct tos_timer *tm, uint32_t now, uint32_t delay,
                     uint32_t period, tos_task_fn fn, void *arg);
void tos_timer_stop(struct tos_timers *t, struct tos_timer *tm);
/* The hardware timer's interrupt handler calls this with the current time: every
 * expired virtual timer posts its task (periodic ones re-arm from their expiry, so they
 * do not drift), then the hardware timer is re-armed for the next expiry. */
void tos_timers_fired(struct tos_timers *t, uint32_t now);

#endif
