/*
 * The Thread-Metric-style figures (metric.h) on the MANTIS-like layer over Cairn's threads.
 * Cooperative switch: A yields to B of the same level (Cairn's yield: the layer has none of
 * its own). Preemptive switch: L resumes H, a level above, which returns from its suspend.
 * Interrupt processing: L pends IRQ 24, whose handler resumes E of L's level, and yields; E
 * runs. Interrupt preemption: the handler resumes H instead, which preempts L when the
 * interrupt returns. Synchronisation: L resumes itself and suspends (its binary semaphore's
 * give and take, nothing waiting). Memory: Cairn's heap, which the layer's threads use. No
 * messages in the layer: n/a.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cairn/cairn.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "mantis.h"
#include "metric.h"

enum { ID_A = 1, ID_B = 2, ID_L = 3, ID_H = 4, ID_E = 5, ID_C = 6 };

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t stacks[5][512];
static volatile uint32_t h_mark, e_mark;
static volatile bool irq_to_h, done;

void irq24_handler(void)
{
    cairn_isr_enter(IRQ_SOFT0);
    (void)mos_thread_resume(irq_to_h ? ID_H : ID_E);
    cairn_isr_exit();
}

static void thread_a(void *arg)
{
    (void)arg;
    cairn_thread_yield(); /* B's first run, then B's first yield back: not timed */
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        METRIC_MARK(METRIC_COOP, r, 0);
        cairn_thread_yield();
    }
}

static void thread_b(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        cairn_thread_yield();
        METRIC_MARK(METRIC_COOP, r, 1);
    }
}

static void thread_h(void *arg)
{
    (void)arg;
    while (mos_thread_suspend() == CAIRN_OK && !done)
        METRIC_TRACE = h_mark;
}

static void thread_e(void *arg)
{
    (void)arg;
    while (mos_thread_suspend() == CAIRN_OK && !done)
        METRIC_TRACE = e_mark;
}

/* Makes A and B from a level above them, so both exist before either runs. */
static void creator(void *arg)
{
    (void)arg;
    check_eq("A", (uint32_t)mos_thread_new(ID_A, "A", thread_a, 0, stacks[0], sizeof stacks[0], MOS_PRIO_NORMAL), 0);
    check_eq("B", (uint32_t)mos_thread_new(ID_B, "B", thread_b, 0, stacks[1], sizeof stacks[1], MOS_PRIO_NORMAL), 0);
}

static __attribute__((noinline)) void timed_alloc_free(uint32_t r)
{
    METRIC_MARK(METRIC_MEMORY, r, 0);
    void *p = cairn_malloc(128);
    cairn_free(p);
    METRIC_MARK(METRIC_MEMORY, r, 1);
    check_eq("allocated", p != 0, 1);
}

static void thread_l(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        h_mark = METRIC_WORD(METRIC_PREEMPT, r, 1);
        METRIC_MARK(METRIC_PREEMPT, r, 0);
        (void)mos_thread_resume(ID_H);
    }
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        e_mark = METRIC_WORD(METRIC_IRQ, r, 1);
        metric_pend(METRIC_IRQ, r, IRQ_SOFT0);
        cairn_thread_yield(); /* L ends its turn: E runs, suspends, L goes on */
    }
    irq_to_h = true;
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        h_mark = METRIC_WORD(METRIC_IRQ_PREEMPT, r, 1);
        metric_pend(METRIC_IRQ_PREEMPT, r, IRQ_SOFT0);
    }
    for (uint32_t r = 0; r < METRIC_REPS; r++) {
        METRIC_MARK(METRIC_SYNC, r, 0);
        (void)mos_thread_resume(ID_L);
        (void)mos_thread_suspend();
        METRIC_MARK(METRIC_SYNC, r, 1);
    }
    for (uint32_t r = 0; r < METRIC_REPS; r++)
        timed_alloc_free(r);
    done = true;
    (void)mos_thread_resume(ID_H);
    (void)mos_thread_resume(ID_E);
}

int main(void)
{
    test_begin("metric-mantis");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    cairn_thread_set_slice(0);
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    for (uint32_t r = 0; r < METRIC_REPS; r++)
        metric_empty(r);
    check_eq("C", (uint32_t)mos_thread_new(ID_C, "C", creator, 0, stacks[2], sizeof stacks[2], MOS_PRIO_KERNEL), 0);
    check_eq("join C", (uint32_t)cairn_thread_join(ID_C, 0), 0);
    check_eq("join A", (uint32_t)cairn_thread_join(ID_A, 0), 0);
    check_eq("join B", (uint32_t)cairn_thread_join(ID_B, 0), 0);
    check_eq("H", (uint32_t)mos_thread_new(ID_H, "H", thread_h, 0, stacks[2], sizeof stacks[2], MOS_PRIO_HIGH), 0);
    check_eq("E", (uint32_t)mos_thread_new(ID_E, "E", thread_e, 0, stacks[3], sizeof stacks[3], MOS_PRIO_NORMAL), 0);
    check_eq("L", (uint32_t)mos_thread_new(ID_L, "L", thread_l, 0, stacks[4], sizeof stacks[4], MOS_PRIO_NORMAL), 0);
    while (cairn_thread_join(ID_L, 0) == CAIRN_EAGAIN)
        cairn_idle();
    while (cairn_thread_join(ID_H, 0) == CAIRN_EAGAIN)
        cairn_idle();
    while (cairn_thread_join(ID_E, 0) == CAIRN_EAGAIN)
        cairn_idle();
    check_eq("layer errors", mos_stats.errors, 0);
    check_eq("resumes lost", mos_stats.resume_lost, 0);
    return test_end();
}
