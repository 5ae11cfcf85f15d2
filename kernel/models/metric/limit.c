/*
 * The Thread-Metric-style figures (metric.h) on LIMIT, SimBed's no-OS lower bound: work runs
 * only in interrupt handlers (limit_call), so it has interrupt processing (the main loop
 * pends IRQ 24, whose handler runs the work) and interrupt preemption (the work of IRQ 24
 * pends IRQ 25, of a higher NVIC priority, whose handler's work preempts it in hardware).
 * No scheduler, messages, semaphores or heap: those figures are n/a.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "limit.h"
#include "metric.h"

static uint32_t rep;
static bool preempting;

static void high_work(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_IRQ_PREEMPT, rep, 1);
}

static void low_work(void *arg)
{
    (void)arg;
    if (!preempting) {
        METRIC_MARK(METRIC_IRQ, rep, 1);
        return;
    }
    metric_pend(METRIC_IRQ_PREEMPT, rep, IRQ_SOFT1);
}

static struct limit_work low = {.fn = low_work}, high = {.fn = high_work};

void irq24_handler(void)
{
    limit_call(&low);
}

void irq25_handler(void)
{
    limit_call(&high);
}

int main(void)
{
    test_begin("metric-limit");
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_set_priority(IRQ_SOFT1, NVIC_PRIO_HIGH);
    nvic_enable(IRQ_SOFT0);
    nvic_enable(IRQ_SOFT1);
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_empty(rep);
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_pend(METRIC_IRQ, rep, IRQ_SOFT0);
    preempting = true;
    for (rep = 0; rep < METRIC_REPS; rep++)
        nvic_set_pending(IRQ_SOFT0); /* its work marks and pends IRQ 25 */
    check_eq("low runs", low.runs, 2u * METRIC_REPS);
    check_eq("high runs", high.runs, METRIC_REPS);
    check_eq("nested", low.nested + high.nested, 0);
    return test_end();
}
