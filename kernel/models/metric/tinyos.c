/*
 * The Thread-Metric-style figures (metric.h) on the TinyOS-like model: tasks run to
 * completion in posting order, so it has the cooperative switch (task A posts B and ends;
 * the scheduler loop runs B) and interrupt processing (a task pends IRQ 24 and ends; the
 * handler posts a task). No preemption of tasks, no messages (a task is a function and an
 * argument), semaphores or heap: those figures are n/a.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "metric.h"
#include "tinyos.h"

static struct tos_sched sched;
static uint32_t rep;

static void task_b(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_COOP, rep, 1);
}

static void task_a(void *arg)
{
    (void)arg;
    (void)tos_post(&sched, task_b, 0);
    METRIC_MARK(METRIC_COOP, rep, 0);
}

static void released(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_IRQ, rep, 1);
}

static void pender(void *arg)
{
    (void)arg;
    metric_pend(METRIC_IRQ, rep, IRQ_SOFT0);
}

void irq24_handler(void)
{
    (void)tos_post(&sched, released, 0);
}

/* TOSH_run_task without its sleep: the scheduler loop until the queue is empty. */
static void run_all(void)
{
    while (tos_run_next_task(&sched))
        ;
}

int main(void)
{
    test_begin("metric-tinyos");
    tos_init(&sched);
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_empty(rep);
    for (rep = 0; rep < METRIC_REPS; rep++) {
        (void)tos_post(&sched, task_a, 0);
        run_all();
    }
    for (rep = 0; rep < METRIC_REPS; rep++) {
        (void)tos_post(&sched, pender, 0);
        run_all();
    }
    check_eq("tasks run", sched.ran, 4u * METRIC_REPS);
    check_eq("posts refused", sched.rejected, 0);
    return test_end();
}
