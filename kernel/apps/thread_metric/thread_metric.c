/*
 * A Thread-Metric-style suite for Cairn OS's threads (written from the suite's public
 * description: one figure per kind of kernel work), run by python/cairn/bench/thread_metric.py
 * (`make bench` -> the `thread_metric` object of build/bench/kernel.json) on cairn-sim with
 * --trace, built without the event log: build/fw/thread-metric.elf (EMERALDS's semaphores)
 * and build/fw/thread-metric-plainsem.elf (CAIRN_SEM_EMERALDS=0).
 *
 * Where Thread-Metric counts operations in a time window, this suite gives the exact cycles of
 * one operation: each sits between two marker stores to the trace port (word 0xBE pp rr ee as
 * in kernel/apps/kernel_bench/bench.c: phase, repetition, 0 before / 1 after), 3 repetitions,
 * the steady state is the figure (after - before - the two stores alone, phase 0).
 *
 * Threads: A and B (priority 1) for the cooperative switch, then L (priority 1, the driver),
 * H (priority 3) and four fillers F (priority 1). H waits on the counting semaphore `wake`;
 * after each take returns it stores `h_mark` (set by L beforehand) to the trace port.
 *
 *  1 cooperative   A marks and yields; B marks when its own yield returns (thread_yield_cycles)
 *  2 preemptive    L, interrupts masked, gives `wake` (H ready, the switch decided and PendSV
 *                  pending), marks, unmasks: the figure ends at H's first instruction, the end
 *                  of PendSV's exception return (trace) plus the 13 exit cycles
 *                  (preemptive_switch_pendsv). A give with interrupts enabled (phases 3, 10-13)
 *                  switches as a call instead, arch_thread_switch, whose cycles per call
 *                  cairn-sim's profile gives (thread_switch_cycles)
 *  3 signal        L marks and gives `wake`; H marks: the give, the switch, H's return from its
 *                  take (sem_signal_to_waiter_cycles)
 *  4 mutex         L locks and unlocks a free mutex, cairn_mutex_lock and cairn_mutex_unlock
 *                  inline at the call site (mutex_lock_unlock_cycles)
 *  5 semaphore     L takes and gives a counting semaphore of one unit (synchronisation)
 *  6 message       L posts a 16-byte message to itself and receives it (message processing:
 *                  the mailbox runs on the message level in between)
 *  7 interrupt     L pends IRQ 24, whose handler gives `isem`; L takes it (no wait): the
 *                  interrupt and the semaphore (interrupt processing)
 *  8 irq_preempt   L pends IRQ 24, whose handler gives `wake`: H preempts L when the interrupt
 *                  returns, through PendSV (interrupt preemption)
 *  9 memory        L: cairn_malloc(128) then cairn_free (memory allocation)
 * 10-13 pi_k       priority inheritance with k = 0, 1, 2, 4 threads at L's own priority made
 *                  ready while L runs raised: L holds mutex `pim`, wakes H, which blocks on it
 *                  (L raised), gives `fill` k times, marks and gives `pim`; H marks when its
 *                  take returns. L lowered goes back to its place: EMERALDS's exchange, or the
 *                  plain build's search past those k threads.
 */
#include <stddef.h>
#include <stdint.h>

#include "cairn/cairn.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "nvic.h"

#include "../support/timed_sem.h"

#define TRACE_PORT 0x41000000u
#define MARK(phase, rep, edge) (0xBE000000u | ((uint32_t)(phase) << 16) | ((uint32_t)(rep) << 8) | (edge))
#define TRACE (*(volatile uint32_t *)TRACE_PORT)
#define REPS 3

enum {
    PH_EMPTY, PH_COOP, PH_PREEMPT, PH_SIGNAL, PH_MUTEX, PH_SEM, PH_MSG, PH_IRQ, PH_IRQ_PREEMPT,
    PH_ALLOC, PH_PI
};
enum { ID_A = 1, ID_B = 2, ID_L = 3, ID_H = 4, ID_F = 5, ID_C = 9 };
#define FILLERS 4
static const unsigned pi_fillers[] = {0, 1, 2, 4};

static _Alignas(8) uint8_t heap[8192];
static _Alignas(8) uint8_t stack_a[512], stack_b[512], stack_l[640], stack_h[512], stack_c[512];
static _Alignas(8) uint8_t stack_f[FILLERS][256];

static cairn_sem_t wake, isem, csem, mtx, pim, fill;
static volatile uint32_t h_mark;
static volatile bool h_pi, h_done, isr_wakes;
static const uint8_t payload16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* The two stores with nothing between. */
static __attribute__((noinline)) void timed_empty(uint32_t w0, uint32_t w1)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "memory");
}

static __attribute__((noinline)) void timed_alloc_free(uint32_t w0, uint32_t w1)
{
    register uint32_t r0 __asm__("r0") = 128;
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "bl  cairn_malloc\n\t"
                     "bl  cairn_free\n\t"
                     "str %[m1], [%[p]]\n\t"
                     : "+l"(r0)
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r1", "r2", "r3", "r12", "lr", "memory", "cc");
}

/* cairn_mutex_lock then cairn_mutex_unlock of m between the markers, inline at this call site
 * (on armv6m no call at all; the stores order against the sequences, which clobber memory). */
static __attribute__((noinline)) void timed_lock_unlock(cairn_sem_t *m, uint32_t w0, uint32_t w1)
{
    TRACE = w0;
    (void)cairn_mutex_lock(m);
    (void)cairn_mutex_unlock(m);
    TRACE = w1;
}

/* Marks, then pends IRQ 24, taken at the boundary after the pending store (the next
 * instruction is a one-cycle NOP, whatever the caller does next). */
static __attribute__((noinline)) void timed_pend(uint32_t w0)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[bit], [%[ispr]]\n\t"
                     "nop\n\t"
                     "nop\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [ispr] "l"(&NVIC_ISPR),
                       [bit] "l"(1u << IRQ_SOFT0)
                     : "memory");
}

/* IRQ 24: gives `wake` (H waits on it) or `isem` (nobody waits). */
void irq24_handler(void)
{
    cairn_isr_enter(IRQ_SOFT0);
    (void)cairn_sem_give(isr_wakes ? &wake : &isem);
    cairn_isr_exit();
}

/* ---- cooperative: A and B ----------------------------------------------------------------- */

static void thread_a(void *arg)
{
    (void)arg;
    cairn_thread_yield(); /* B's first run, then B's first yield back: not timed */
    for (uint32_t r = 0; r < REPS; r++) {
        TRACE = MARK(PH_COOP, r, 0);
        cairn_thread_yield();
    }
}

static void thread_b(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < REPS; r++) {
        cairn_thread_yield();
        TRACE = MARK(PH_COOP, r, 1);
    }
}

/* ---- H and the fillers --------------------------------------------------------------------- */

static void thread_h(void *arg)
{
    (void)arg;
    for (;;) {
        (void)cairn_sem_take(&wake, CAIRN_THREAD_FOREVER);
        if (h_done)
            return;
        if (!h_pi) {
            TRACE = h_mark;
            continue;
        }
        (void)cairn_sem_take(&pim, CAIRN_THREAD_FOREVER); /* held by L: L inherits */
        TRACE = h_mark;
        (void)cairn_sem_give(&pim);
    }
}

static void thread_f(void *arg)
{
    (void)arg;
    for (;;)
        (void)cairn_sem_take(&fill, CAIRN_THREAD_FOREVER);
}

/* ---- L: the driver -------------------------------------------------------------------------- */

static void thread_l(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < REPS; r++) {
        h_mark = MARK(PH_PREEMPT, r, 1);
        uint32_t s = arch_irq_save();
        check_eq("preempt: give", (uint32_t)cairn_sem_give(&wake), 0);
        TRACE = MARK(PH_PREEMPT, r, 0);
        arch_irq_restore(s);
    }
    for (uint32_t r = 0; r < REPS; r++) {
        h_mark = MARK(PH_SIGNAL, r, 1);
        TRACE = MARK(PH_SIGNAL, r, 0);
        (void)cairn_sem_give(&wake);
    }
    for (uint32_t r = 0; r < REPS; r++)
        timed_lock_unlock(&mtx, MARK(PH_MUTEX, r, 0), MARK(PH_MUTEX, r, 1));
    for (uint32_t r = 0; r < REPS; r++)
        timed_take_give(&csem, MARK(PH_SEM, r, 0), MARK(PH_SEM, r, 1));
    for (uint32_t r = 0; r < REPS; r++) {
        cairn_msg_t m;
        TRACE = MARK(PH_MSG, r, 0);
        (void)cairn_post(ID_L, CAIRN_PORT(1), payload16, sizeof payload16);
        cairn_ret_t got = cairn_thread_receive(&m, 0);
        TRACE = MARK(PH_MSG, r, 1);
        check_eq("message", (uint32_t)got, 0);
        check_eq("message length", m.len, sizeof payload16);
    }
    isr_wakes = false;
    for (uint32_t r = 0; r < REPS; r++) {
        timed_pend(MARK(PH_IRQ, r, 0));
        cairn_ret_t got = cairn_sem_take(&isem, 0);
        TRACE = MARK(PH_IRQ, r, 1);
        check_eq("interrupt's unit", (uint32_t)got, 0);
    }
    isr_wakes = true;
    for (uint32_t r = 0; r < REPS; r++) {
        h_mark = MARK(PH_IRQ_PREEMPT, r, 1);
        timed_pend(MARK(PH_IRQ_PREEMPT, r, 0));
    }
    for (uint32_t r = 0; r < REPS; r++)
        timed_alloc_free(MARK(PH_ALLOC, r, 0), MARK(PH_ALLOC, r, 1));
    h_pi = true;
    for (unsigned i = 0; i < sizeof pi_fillers / sizeof pi_fillers[0]; i++) {
        for (uint32_t r = 0; r < REPS; r++) {
            (void)cairn_sem_take(&pim, CAIRN_THREAD_FOREVER);
            (void)cairn_sem_give(&wake); /* H runs and blocks on pim: L is raised */
            for (unsigned k = 0; k < pi_fillers[i]; k++)
                (void)cairn_sem_give(&fill); /* ready at L's own priority, behind its place */
            h_mark = MARK(PH_PI + i, r, 1);
            TRACE = MARK(PH_PI + i, r, 0);
            (void)cairn_sem_give(&pim);
            cairn_thread_yield(); /* the fillers take their unit and wait again */
        }
    }
    h_done = true;
    (void)cairn_sem_give(&wake);
}

static void creator(void *arg)
{
    (void)arg;
    cairn_thread_set_slice(0);
    if (arg == 0) {
        check_eq("A", (uint32_t)cairn_thread_create(ID_A, "A", thread_a, 0, stack_a, sizeof stack_a, 1, 0, 0), 0);
        check_eq("B", (uint32_t)cairn_thread_create(ID_B, "B", thread_b, 0, stack_b, sizeof stack_b, 1, 0, 0), 0);
        return;
    }
    check_eq("H", (uint32_t)cairn_thread_create(ID_H, "H", thread_h, 0, stack_h, sizeof stack_h, 3, 0, 0), 0);
    for (unsigned i = 0; i < FILLERS; i++)
        check_eq("F", (uint32_t)cairn_thread_create((cairn_task_id_t)(ID_F + i), "F", thread_f, 0,
                                                    stack_f[i], sizeof stack_f[i], 1, 0, 0), 0);
    check_eq("L", (uint32_t)cairn_thread_create(ID_L, "L", thread_l, 0, stack_l, sizeof stack_l, 1, 0, 0), 0);
}

int main(void)
{
    test_begin("thread-metric");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    check_eq("sems", (uint32_t)(cairn_sem_init(&wake, 0, 1) | cairn_sem_init(&isem, 0, 1) |
                                cairn_sem_init(&csem, 1, 1) | cairn_mutex_init(&mtx) |
                                cairn_mutex_init(&pim) | cairn_sem_init(&fill, 0, FILLERS)), 0);

    for (uint32_t r = 0; r < REPS; r++)
        timed_empty(MARK(PH_EMPTY, r, 0), MARK(PH_EMPTY, r, 1));

    check_eq("creator", (uint32_t)cairn_thread_create(ID_C, "C", creator, 0, stack_c, sizeof stack_c, 5, 0, 0), 0);
    check_eq("join A", (uint32_t)cairn_thread_join(ID_A, 0), 0);
    check_eq("join B", (uint32_t)cairn_thread_join(ID_B, 0), 0);
    check_eq("join C", (uint32_t)cairn_thread_join(ID_C, 0), 0);
    check_eq("creator", (uint32_t)cairn_thread_create(ID_C, "C", creator, (void *)1, stack_c, sizeof stack_c, 5, 0, 0), 0);
    check_eq("join L", (uint32_t)cairn_thread_join(ID_L, 0), 0);
    check_eq("join H", (uint32_t)cairn_thread_join(ID_H, 0), 0);
    check_eq("join C", (uint32_t)cairn_thread_join(ID_C, 0), 0);

    cairn_sem_stats_t st;
    cairn_sem_stats(&st);
    /* Each pi repetition raises L once: by the exchange, or (plain) by a move. */
    check_eq("exchanges", st.exchanges, CAIRN_SEM_EMERALDS ? REPS * 4u : 0u);
    cairn_sched_stats_t ss;
    cairn_sched_stats(&ss);
    check_eq("queued at the end", ss.queued, 0);
    return test_end();
}
