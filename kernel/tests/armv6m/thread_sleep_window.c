/*
 * Cairn OS armv6m port: an interrupt that wakes another thread while a thread is going to
 * sleep, at every instruction of cairn_thread_sleep in turn.
 *
 * H (priority 5) waits in receive; L (priority 2) arms SysTick one cycle later each round
 * and sleeps one tick; SysTick's handler posts to H, which preempts whatever runs. On
 * cairn-sim (cycle-exact) the post lands on each instruction of the sleep in turn: before L
 * leaves the ready list, between that and its wake-up timer being set, and after. Wherever
 * it lands, L must wake and finish its rounds: a sleep whose thread was switched out
 * before its timer existed would never end. QEMU's SysTick is not cycle-exact: there the
 * rounds land where they land, and the transcript is the same.
 */
#include <stdint.h>

#include "cairn/arch_timer.h"
#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "scb.h"
#include "systick.h"

enum { H = 3, L = 4 };
#define ROUNDS 400u /* SysTick 1..400 cycles after L arms it: past the whole sleep call */

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t stack_h[768], stack_l[768];

static volatile uint32_t h_runs, l_rounds, l_done, fired;

static void arm_systick(uint32_t cycles)
{
    SYST_RVR = cycles;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

void systick_handler(void)
{
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR;
    cairn_isr_enter(15u);
    fired++;
    (void)cairn_post(H, CAIRN_PORT(1), 0, 0);
    cairn_isr_exit();
}

static void h_main(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    while (cairn_thread_receive(&m, CAIRN_THREAD_FOREVER) == CAIRN_OK)
        h_runs++;
}

static void l_main(void *arg)
{
    (void)arg;
    for (uint32_t d = 1; d <= ROUNDS; d++) {
        arm_systick(d);
        (void)cairn_thread_sleep(1);
        l_rounds++;
    }
    l_done = 1;
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
}

int main(void)
{
    test_begin("armv6m-thread-sleep-window");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    check_eq("create H", (uint32_t)cairn_thread_create(H, "H", h_main, 0, stack_h, sizeof stack_h, 5, 0, 0), 0);
    check_eq("create L", (uint32_t)cairn_thread_create(L, "L", l_main, 0, stack_l, sizeof stack_l, 2, 0, 0), 0);
    /* The message level runs whenever both threads wait: L's rounds go on under it until it
     * is done, or a second has passed with L asleep for good. */
    uint32_t start = arch_timer_now();
    while (!l_done && arch_timer_now() - start < CAIRN_TICKS_PER_SECOND)
        ;
    check_eq("L's rounds", l_rounds, ROUNDS);
    check_eq("H woken once per SysTick", h_runs, fired);
    check_eq("SysTicks", fired, ROUNDS);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
