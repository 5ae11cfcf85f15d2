/*
 * Cairn OS armv6m port: a thread that an interrupt wakes again and again preempts a lower
 * thread every time (cairn-sim and QEMU, same transcript).
 *
 * H (priority 5) waits in receive; L (priority 2) works and pends an ordinary interrupt
 * whose handler posts to H between cairn_isr_enter and cairn_isr_exit, as MANTIS's
 * resume from an interrupt does. H must have run, and blocked again, before L's next
 * instruction, at every wake-up, not only the first: each wake-up leaves H's mailbox frame
 * on the suspended message level, which must not hold back the next one.
 *
 * Markers on the trace port (0xBE 01 ii ee: wake-up ii, ee 0 at the pend, 1 when H's receive
 * has returned) let python/tests/test_kernel_firmware.py bound the cycles on cairn-sim,
 * which stamps each store with its cycle; QEMU ignores them.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

enum { H = 3, L = 4 };

#define WAKES 5
#define TRACE_PORT (*(volatile uint32_t *)CAIRN_TRACE_ADDR)
#define MARK(wake, edge) (0xBE010000u | ((uint32_t)(wake) << 8) | (edge))

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t stack_h[768], stack_l[768];

static volatile uint32_t h_runs;

void irq24_handler(void)
{
    cairn_isr_enter(16u + IRQ_SOFT0);
    (void)cairn_post(H, CAIRN_PORT(1), 0, 0);
    cairn_isr_exit();
}

static void h_main(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    while (cairn_thread_receive(&m, CAIRN_THREAD_FOREVER) == CAIRN_OK) {
        TRACE_PORT = MARK(h_runs, 1);
        h_runs++;
    }
}

static void l_main(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < WAKES; i++) {
        uint32_t before = h_runs;
        TRACE_PORT = MARK(i, 0);
        nvic_set_pending(IRQ_SOFT0);
        cpu_sync();
        uint32_t after = h_runs; /* H has run, and blocked again, by now */
        check_eq("H ran before L's next instruction", after - before, 1);
        for (volatile uint32_t spin = 0; spin < 200; spin++) /* L works on */
            ;
    }
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
}

int main(void)
{
    test_begin("armv6m-thread-rewake");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    check_eq("create H", (uint32_t)cairn_thread_create(H, "H", h_main, 0, stack_h, sizeof stack_h, 5, 0, 0), 0);
    check_eq("create L", (uint32_t)cairn_thread_create(L, "L", l_main, 0, stack_l, sizeof stack_l, 2, 0, 0), 0);
    /* Both have blocked: the message level runs again. */
    check_eq("H's wake-ups", h_runs, WAKES);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("nothing left queued", st.queued, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
