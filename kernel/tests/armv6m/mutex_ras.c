/*
 * Cairn OS armv6m port: the uncontended mutex's fast path, which does not mask interrupts
 * (kernel/arch/armv6m/sem_fast.c), stopped by an interrupt at every instruction.
 *
 * L (priority 2) takes and gives mutex `mtx` in a loop; before each round SysTick is armed
 * one cycle later than in the round before, so on cairn-sim (cycle-exact) its interrupt
 * lands on each instruction of the take and the give in turn. The interrupt (which may not
 * take a mutex: refused) gives `kick`, which H (priority 5) waits on: H preempts L, wherever
 * L was, and takes `mtx` itself, waiting for L's give when L holds it (L inherits H's
 * priority). A sweep runs twice: L holding no other mutex, then holding `outer` (the fast
 * give puts `outer` back as L's last taken mutex), then a third time with the take and give
 * inline at the call site (cairn_mutex_lock / cairn_mutex_unlock, whose sequence the settle
 * finds by its marker). Every call must succeed, the interrupt's
 * take must be refused, and the mutexes must end free (one word again). On cairn-sim the
 * kernel's counters must also show that some rounds were stopped before the fast path's one
 * store (restarted), in the called and in the inline sequences: the lines that differ from
 * QEMU, whose SysTick is not cycle-exact.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/sched.h"
#include "cairn/sem.h"
#include "cairn/task.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "scb.h"
#include "systick.h"

enum { H = 3, L = 5 };
#define ROUNDS 160u /* SysTick 1..160 cycles after arming: past the take and the give */
#define SYSTICK_IRQ 0xFFFFu /* the trace's name for it: not an NVIC interrupt */

static _Alignas(8) uint8_t heap[8192];
static _Alignas(8) uint8_t stack_h[768], stack_l[768];
static cairn_sem_t mtx, outer, kick;
static volatile uint32_t h_runs, h_failures, isr_takes_refused, l_failures;
static volatile bool done;

void systick_handler(void)
{
    cairn_isr_enter(SYSTICK_IRQ);
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR; /* a short period may have come round again meanwhile */
    isr_takes_refused += cairn_sem_take(&mtx, 0) == CAIRN_EINVAL;
    (void)cairn_sem_give(&kick);
    cairn_isr_exit();
}

static void h_main(void *arg)
{
    (void)arg;
    for (;;) {
        if (cairn_sem_take(&kick, CAIRN_THREAD_FOREVER) != CAIRN_OK)
            h_failures++;
        if (done)
            return;
        if (cairn_sem_take(&mtx, CAIRN_THREAD_FOREVER) != CAIRN_OK)
            h_failures++;
        h_failures += cairn_mutex_owner(&mtx) != H;
        if (cairn_sem_give(&mtx) != CAIRN_OK)
            h_failures++;
        h_runs++;
    }
}

static void arm_systick(uint32_t cycles)
{
    SYST_RVR = cycles;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

static void sweep(void)
{
    for (uint32_t d = 1; d <= ROUNDS; d++) {
        uint32_t runs = h_runs;
        arm_systick(d);
        l_failures += cairn_sem_take(&mtx, CAIRN_THREAD_FOREVER) != CAIRN_OK;
        l_failures += cairn_sem_give(&mtx) != CAIRN_OK;
        while (h_runs == runs) /* the interrupt comes, H runs */
            ;
    }
}

static void sweep_inline(void)
{
    for (uint32_t d = 1; d <= ROUNDS; d++) {
        uint32_t runs = h_runs;
        arm_systick(d);
        l_failures += cairn_mutex_lock(&mtx) != CAIRN_OK;
        l_failures += cairn_mutex_unlock(&mtx) != CAIRN_OK;
        while (h_runs == runs)
            ;
    }
}

static cairn_sem_stats_t before_inline, after_inline;

static void l_main(void *arg)
{
    (void)arg;
    sweep();
    l_failures += cairn_sem_take(&outer, CAIRN_THREAD_FOREVER) != CAIRN_OK;
    sweep();
    l_failures += cairn_mutex_owner(&outer) != L;
    l_failures += cairn_sem_give(&outer) != CAIRN_OK;
    cairn_sem_stats(&before_inline);
    sweep_inline();
    cairn_sem_stats(&after_inline);
    done = true;
    (void)cairn_sem_give(&kick);
}

int main(void)
{
    test_begin("armv6m-mutex-ras");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    check_eq("mtx", (uint32_t)cairn_mutex_init(&mtx), 0);
    check_eq("outer", (uint32_t)cairn_mutex_init(&outer), 0);
    check_eq("kick", (uint32_t)cairn_sem_init(&kick, 0, 1), 0);
    cairn_sem_stats_t s0, s1;
    cairn_sem_stats(&s0);
    check_eq("create H", (uint32_t)cairn_thread_create(H, "H", h_main, 0, stack_h, sizeof stack_h, 5, 0, 0), 0);
    check_eq("create L", (uint32_t)cairn_thread_create(L, "L", l_main, 0, stack_l, sizeof stack_l, 2, 0, 0), 0);
    check_eq("H ran once per interrupt", h_runs, 3u * ROUNDS);
    check_eq("H's calls", h_failures, 0);
    check_eq("L's calls", l_failures, 0);
    check_eq("the interrupt's takes were refused", isr_takes_refused, 3u * ROUNDS);
    check_eq("mtx is free", cairn_mutex_owner(&mtx), CAIRN_TASK_NONE);
    check_yes("mtx is one word again", mtx.lock == 0 && !mtx.waiters);
    check_eq("outer is free", cairn_mutex_owner(&outer), CAIRN_TASK_NONE);
    check_yes("outer is one word again", outer.lock == 0 && !outer.waiters);
    cairn_sem_stats(&s1);
    check_eq("nothing to complete (one store)", s1.fast_completions - s0.fast_completions, 0);
    say(s1.fast_restarts != s0.fast_restarts ? "fast path stopped: restarted some"
                                             : "fast path stopped: restarted none");
    say(after_inline.fast_restarts != before_inline.fast_restarts
            ? "fast path stopped: inline restarted some"
            : "fast path stopped: inline restarted none");
    for (cairn_task_id_t t = H; t <= L; t += L - H)
        check_eq("join", (uint32_t)cairn_thread_join(t, 0), 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
