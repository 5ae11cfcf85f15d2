/*
 * The Thread-Metric-style figures (metric.h) on NOS, SimBed's multirate executive: each
 * pass runs every HARD job that is due, earliest first, then one HIGH interrupt line (polled:
 * interrupts stay masked). Cooperative switch: HARD job A ends, the pass runs HARD job B due
 * at the same time. Interrupt processing: a HARD job pends IRQ 24 (masked, so only its
 * pending bit) and ends; the pass polls the line and handles it. No preemption, messages,
 * semaphores or heap: n/a. The clock is a counter that does not move.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "metric.h"
#include "model_port.h"
#include "nos.h"

static uint32_t rep;
static struct nos_exec exec;

static uint32_t now(void *ctx)
{
    (void)ctx;
    return 0;
}

static uint32_t irq_status(void *ctx)
{
    (void)ctx;
    return NVIC_ISPR & (1u << IRQ_SOFT0);
}

static void handle_interrupt(void *ctx, unsigned line)
{
    (void)ctx;
    METRIC_MARK(METRIC_IRQ, rep, 1);
    nvic_clear_pending(line);
}

static void no_sleep(void *ctx, int32_t delta)
{
    (void)ctx;
    (void)delta;
}

static void job_a(struct nos_exec *x, struct nos_event *ev)
{
    (void)x;
    (void)ev;
    METRIC_MARK(METRIC_COOP, rep, 0);
}

static void job_b(struct nos_exec *x, struct nos_event *ev)
{
    (void)x;
    (void)ev;
    METRIC_MARK(METRIC_COOP, rep, 1);
}

static void pender(struct nos_exec *x, struct nos_event *ev)
{
    (void)x;
    (void)ev;
    metric_pend(METRIC_IRQ, rep, IRQ_SOFT0);
}

int main(void)
{
    test_begin("metric-nos");
    (void)model_irq_save(); /* NOS polls: interrupts masked for the whole run */
    nvic_enable(IRQ_SOFT0);
    static const struct nos_ops ops = {now, irq_status, handle_interrupt, no_sleep};
    nos_init(&exec, &ops, 0, 1u << IRQ_SOFT0, 0);
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_empty(rep);
    static struct nos_event a, b, p;
    for (rep = 0; rep < METRIC_REPS; rep++) {
        check_eq("insert", nos_insert(&exec, &a, 0, job_a, 0, NOS_HARD), 1);
        check_eq("insert", nos_insert(&exec, &b, 0, job_b, 0, NOS_HARD), 1);
        check_eq("pass", nos_pass(&exec), NOS_STEP_SLEPT);
    }
    for (rep = 0; rep < METRIC_REPS; rep++) {
        check_eq("insert", nos_insert(&exec, &p, 0, pender, 0, NOS_HARD), 1);
        check_eq("pass", nos_pass(&exec), NOS_STEP_HIGH_IRQ);
    }
    check_eq("missed", exec.missed, 0);
    return test_end();
}
