/*
 * NOS, the fixed-priority multirate executive of "SimBed" (section 2.4.3, Fig. 1).
 *
 * Jobs are events in a callout queue taken from Unix's callout table: keyed by the time
 * they are due, each holding the delta from the event before it, the first one's delta
 * relative to the time of the last update; a negative delta means a missed deadline.
 * One pass of the control loop (nos_pass) runs, in this order:
 *   1. every HARD job that is due;
 *   2. else one HIGH interrupt, or else the first job if due, or else one LOW interrupt,
 *      each ending the pass (one job or interrupt per pass below HARD);
 *   3. else it sleeps until the first job is due or an interrupt is pending.
 * Interrupts are masked and polled: irq_status() reads the status registers and
 * handle_interrupt() services one line. A periodic job re-inserts its own event with
 * nos_insert() while it runs; the delay counts from the time of the pass (the job's
 * actual invocation), as the paper notes NOS does (section 3).
 */
#ifndef CAIRN_MODEL_NOS_H
#define CAIRN_MODEL_NOS_H

#include <stdbool.h>
#include <stdint.h>

#define NOS_INDEFINITE INT32_MAX /* sleep() argument: no job queued */

enum nos_priority { NOS_HARD = 1, NOS_SOFT = 2 };

struct nos_exec;

struct nos_event {
    struct nos_event *prev, *next;
    int32_t delta; /* from the event before; the first's from the last update */
    void (*execute)(struct nos_exec *x, struct nos_event *ev);
    void *data;
    uint8_t priority; /* enum nos_priority */
    bool queued;
    uint32_t runs;
    uint32_t missed;       /* runs that started after their time */
    uint32_t max_lateness; /* ticks */
};

enum nos_step { NOS_STEP_HIGH_IRQ, NOS_STEP_JOB, NOS_STEP_LOW_IRQ, NOS_STEP_SLEPT };

struct nos_exec {
    struct nos_event *calloutq;
    uint32_t time; /* now() at the last update of the queue */
    uint32_t (*now)(void *ctx);
    uint32_t (*irq_status)(void *ctx); /* pending lines, bit n = line n */
    void (*handle_interrupt)(void *ctx, unsigned line); /* must clear the line */
    void (*sleep)(void *ctx, int32_t delta); /* until delta ticks pass or an interrupt */
    void *ctx;
    uint32_t high_mask, low_mask;
    /* What the passes did. */
    uint32_t passes, hard_runs, job_runs, high_irqs, low_irqs, sleeps;
    uint32_t missed; /* job runs that started late, HARD or not */
    uint32_t errors; /* bad arguments refused */
};

struct nos_ops {
    uint32_t (*now)(void *ctx);
    uint32_t (*irq_status)(void *ctx);
    void (*handle_interrupt)(void *ctx, unsigned line);
    void (*sleep)(void *ctx, int32_t delta);
};

void nos_init(struct nos_exec *x, const struct nos_ops *ops, void *ctx, uint32_t high_mask,
              uint32_t low_mask);
/* Queue `ev` to run `delay` ticks (>= 0) after the last update; equal times keep
 * insertion order. False (counted) for a NULL event or execute, an event already
 * queued, a negative delay or a priority that is neither HARD nor SOFT. */
bool nos_insert(struct nos_exec *x, struct nos_event *ev, int32_t delay,
                void (*execute)(struct nos_exec *, struct nos_event *), void *data,
                enum nos_priority priority);
/* Take a queued event out (its delta goes to its successor). False if not queued. */
bool nos_remove(struct nos_exec *x, struct nos_event *ev);
/* update_calloutq: charge the time since the last update to the first event. */
void nos_update(struct nos_exec *x);
/* One pass of Fig. 1's while(1) loop; returns how it ended. */
enum nos_step nos_pass(struct nos_exec *x);
/* Due time of `ev` relative to the last update (sum of deltas up to it); 0 if absent. */
int32_t nos_due(const struct nos_exec *x, const struct nos_event *ev);

#endif
