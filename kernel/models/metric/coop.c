/*
 * The Thread-Metric-style figures (metric.h) on the Echidna-style cooperative executive:
 * periodic objects run to completion by the dispatcher (earliest deadline first, ties in
 * the order added), interrupts reach them through ports. Cooperative switch: object A ends,
 * the next dispatch runs object B of the same release. Interrupt processing: an object pends
 * IRQ 24 and ends, the handler signals a port, the next object of the release takes it.
 * Synchronisation: a port's signal and take in one object. The clock is a counter the driver
 * advances, so every phase's objects are released together. No preemption, messages or heap:
 * n/a.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "coop.h"
#include "metric.h"

static uint32_t ticks, rep;
static struct coop_port irq_port, sync_port;

static uint32_t now(void *ctx)
{
    (void)ctx;
    return ticks;
}

static void obj_a(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_COOP, rep, 0);
}

static void obj_b(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_COOP, rep, 1);
}

static void pender(void *arg)
{
    (void)arg;
    metric_pend(METRIC_IRQ, rep, IRQ_SOFT0);
}

static void poller(void *arg)
{
    (void)arg;
    uint32_t n = coop_port_take(&irq_port);
    if (n)
        METRIC_MARK(METRIC_IRQ, rep, 1);
}

static void syncer(void *arg)
{
    (void)arg;
    METRIC_MARK(METRIC_SYNC, rep, 0);
    coop_port_signal(&sync_port);
    uint32_t n = coop_port_take(&sync_port);
    METRIC_MARK(METRIC_SYNC, rep, 1);
    check_eq("sync take", n, 1);
}

void irq24_handler(void)
{
    coop_port_signal(&irq_port);
}

/* One phase: its objects, each released every tick, dispatched for `releases` ticks. */
static void phase(struct coop_object *objs, void (*const *fns)(void *), unsigned n)
{
    struct coop_exec e;
    coop_init(&e, now, 0);
    for (unsigned i = 0; i < n; i++)
        check_eq("add", coop_add(&e, &objs[i], 1, 0, fns[i], 0), 1);
    for (rep = 0; rep < METRIC_REPS; rep++) {
        while (coop_dispatch(&e))
            ;
        ticks++;
    }
}

int main(void)
{
    test_begin("metric-coop");
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_empty(rep);
    static struct coop_object objs[5];
    static void (*const coop_fns[])(void *) = {obj_a, obj_b};
    static void (*const irq_fns[])(void *) = {pender, poller};
    static void (*const sync_fns[])(void *) = {syncer};
    phase(&objs[0], coop_fns, 2);
    phase(&objs[2], irq_fns, 2);
    phase(&objs[4], sync_fns, 1);
    check_eq("interrupts signalled", irq_port.signalled, METRIC_REPS);
    return test_end();
}
