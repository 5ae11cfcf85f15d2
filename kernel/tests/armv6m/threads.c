/*
 * Cairn OS armv6m port: thread tasks (cairn/thread.h) on real exception hardware
 * (cairn-sim and QEMU, same transcript).
 *
 * Three threads beside a message task: H (priority 5) blocks in receive and is
 * woken by an interrupt bound to its task ID; A and B (priority 2) work. The
 * message task M (priority 4) starts them and is posted to by H. Checks: yields
 * alternate A and B exactly; an interrupt in A wakes H at once, H's message to
 * M runs when H blocks (above A and B), and A keeps its turn; with a time slice
 * and no yields A and B still interleave: A, which never yields, works until it sees
 * B's work, which only a slice's end can let in (how often slices end depends on the
 * clock, QEMU's being the host's, so only that they do is printed); the registers of
 * a preempted thread survive (a checksum computed across interrupts and slices), and r4-r11
 * survive every yield, whichever switch (a call, or PendSV) made it, which returns unmasked.
 */
#include <stdint.h>

#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "busy.h"
#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

enum { H = 3, A = 4, B = 5, M = 6 };

CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, H, CAIRN_PORT(1))

static _Alignas(8) uint8_t heap[8192];
static _Alignas(8) uint8_t stack_h[768], stack_a[768], stack_b[768];

#define UNITS 24
#define MAX_UNITS (UNITS * 200) /* A's bound while it waits to see B's work */
#define UNIT_ROUNDS 5000

static volatile uint32_t work[2];
static volatile uint32_t b_at_a_end; /* B's work when A finished its slice phase */
static volatile uint32_t done_units[2];
static volatile uint32_t h_psp_ok, a_sum_ok, b_sum_ok;
static volatile int phase;

static cairn_ret_t m_handler(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0) || msg->port == CAIRN_PORT(2)) { /* go: both workers */
        (void)cairn_post(A, CAIRN_PORT(0), 0, 0);
        (void)cairn_post(B, CAIRN_PORT(0), 0, 0);
    } else if (msg->port == CAIRN_PORT(1)) {
        seq_add("M");
    }
    return CAIRN_OK;
}

static void h_main(void *arg)
{
    (void)arg;
    for (;;) {
        cairn_msg_t m;
        if (cairn_thread_receive(&m, CAIRN_THREAD_FOREVER) != CAIRN_OK)
            break;
        /* Thread mode on the process stack (CONTROL.SPSEL), not in an interrupt. */
        uint32_t control;
        __asm__ volatile("mrs %0, control" : "=r"(control));
        h_psp_ok = (control & 2u) && cpu_get_ipsr() == 0;
        seq_add("H");
        (void)cairn_post(M, CAIRN_PORT(1), 0, 0); /* below H: when H blocks */
    }
}

/* Yields with r4-r11 set from seed (seed + 1 to seed + 8); 1 when all eight came back. The
 * yields switch as calls (arch_thread_switch) or, to a thread an interrupt preempted,
 * through PendSV: either must give the registers back. */
static volatile uint32_t yields_lost_registers, yields_left_masked;
__attribute__((naked)) static uint32_t yield_keeping_registers(__attribute__((unused)) uint32_t seed)
{
    __asm__ volatile("push  {r4-r7, lr}\n\t"
                     "mov   r4, r8\n\t"
                     "mov   r5, r9\n\t"
                     "mov   r6, r10\n\t"
                     "mov   r7, r11\n\t"
                     "push  {r4-r7}\n\t"
                     "push  {r0}\n\t" /* ten words: SP stays 8-byte aligned for the call */
                     "adds  r1, r0, #5\n\t"
                     "mov   r8, r1\n\t"
                     "adds  r1, r0, #6\n\t"
                     "mov   r9, r1\n\t"
                     "adds  r1, r0, #7\n\t"
                     "mov   r10, r1\n\t"
                     "adds  r1, #1\n\t"
                     "mov   r11, r1\n\t"
                     "adds  r4, r0, #1\n\t"
                     "adds  r5, r0, #2\n\t"
                     "adds  r6, r0, #3\n\t"
                     "adds  r7, r0, #4\n\t"
                     "bl    cairn_thread_yield\n\t"
                     "ldr   r0, [sp]\n\t"
                     "adds  r1, r0, #1\n\t"
                     "cmp   r4, r1\n\t"
                     "bne   1f\n\t"
                     "adds  r1, r0, #2\n\t"
                     "cmp   r5, r1\n\t"
                     "bne   1f\n\t"
                     "adds  r1, r0, #3\n\t"
                     "cmp   r6, r1\n\t"
                     "bne   1f\n\t"
                     "adds  r1, r0, #4\n\t"
                     "cmp   r7, r1\n\t"
                     "bne   1f\n\t"
                     "mov   r2, r8\n\t"
                     "adds  r1, r0, #5\n\t"
                     "cmp   r2, r1\n\t"
                     "bne   1f\n\t"
                     "mov   r2, r9\n\t"
                     "adds  r1, r0, #6\n\t"
                     "cmp   r2, r1\n\t"
                     "bne   1f\n\t"
                     "mov   r2, r10\n\t"
                     "adds  r1, r0, #7\n\t"
                     "cmp   r2, r1\n\t"
                     "bne   1f\n\t"
                     "mov   r2, r11\n\t"
                     "adds  r1, #1\n\t"
                     "cmp   r2, r1\n\t"
                     "bne   1f\n\t"
                     "movs  r0, #1\n\t"
                     "b     2f\n\t"
                     "1:\n\t"
                     "movs  r0, #0\n\t"
                     "2:\n\t"
                     "add   sp, #4\n\t"
                     "pop   {r4-r7}\n\t"
                     "mov   r8, r4\n\t"
                     "mov   r9, r5\n\t"
                     "mov   r10, r6\n\t"
                     "mov   r11, r7\n\t"
                     "pop   {r4-r7, pc}\n\t");
}

static void worker(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER); /* go */
    static const char *const tok[2][3] = {{"A1", "A2", "A3"}, {"B1", "B2", "B3"}};
    for (unsigned i = 0; i < 3; i++) {
        seq_add(tok[me][i]);
        if (me == 0 && i == 1) {
            nvic_set_pending(IRQ_SOFT0);
            cpu_sync();
        }
        if (!yield_keeping_registers(0xC0DE0000u + me * 0x100u))
            yields_lost_registers++;
        if (cpu_get_primask())
            yields_left_masked++;
    }
    /* Slices: no yields. */
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
    uint32_t sum = 0;
    unsigned n = 0;
    while (n < UNITS || (me == 0 && work[1] == 0 && n < MAX_UNITS)) {
        sum += busy_checksum(UNIT_ROUNDS, me == 0 && n == UNITS / 2 ? 100 : -1, IRQ_SOFT0);
        work[me]++;
        n++;
    }
    if (me == 0)
        b_at_a_end = work[1];
    done_units[me] = n;
    uint32_t expect = 0;
    for (unsigned i = 0; i < n; i++)
        expect += busy_checksum(UNIT_ROUNDS, -1, IRQ_SOFT0);
    if (me == 0)
        a_sum_ok = sum == expect;
    else
        b_sum_ok = sum == expect;
    cairn_thread_exit((int)(10 + me));
}

int main(void)
{
    test_begin("armv6m-threads");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);

    check_eq("create M", (uint32_t)cairn_task_create(M, m_handler, 0, 4, 0, 0, 0), 0);
    check_eq("init M", (uint32_t)cairn_task_init(M, 0, 0), 0);
    check_eq("create H", (uint32_t)cairn_thread_create(H, "H", h_main, 0, stack_h, sizeof stack_h, 5, 0, 0), 0);
    check_eq("create A", (uint32_t)cairn_thread_create(A, "A", worker, (void *)0, stack_a, sizeof stack_a, 2, 0, 0), 0);
    check_eq("create B", (uint32_t)cairn_thread_create(B, "B", worker, (void *)1, stack_b, sizeof stack_b, 2, 0, 0), 0);
    check_eq_hex("main runs on MSP", cpu_get_ipsr(), 0);

    /* Yields, and an interrupt that wakes H in the middle. */
    cairn_thread_set_slice(0);
    seq_reset();
    check_eq("go", (uint32_t)cairn_post(M, CAIRN_PORT(0), 0, 0), 0);
    /* The post returns when every context has blocked again: the message level,
     * idle, was the lowest. */
    check_str("yields alternate; the interrupt wakes H; M when H blocks; A keeps its turn",
              seq_get(), "A1 B1 A2 H M B2 A3 B3");
    check_yes("H ran in Thread mode on PSP", h_psp_ok);
    check_eq("yields that lost r4-r11", yields_lost_registers, 0);
    check_eq("yields that came back masked", yields_left_masked, 0);

    /* Slices: A and B share the processor without a yield. */
    cairn_thread_set_slice(2500); /* 100 us at 25 MHz */
    seq_reset();
    check_eq("go again", (uint32_t)cairn_post(M, CAIRN_PORT(2), 0, 0), 0);
    int code = 0;
    while (cairn_thread_join(A, &code) == CAIRN_EAGAIN)
        cairn_idle();
    check_eq("A's exit code", (uint32_t)code, 10);
    while (cairn_thread_join(B, &code) == CAIRN_EAGAIN)
        cairn_idle();
    check_eq("B's exit code", (uint32_t)code, 11);
    check_yes("A's work counted", work[0] == done_units[0] && work[0] >= UNITS);
    check_eq("B's work", work[1], UNITS);
    check_yes("B had worked when A, which never yields, finished (round robin)",
              b_at_a_end > 0 && done_units[0] < MAX_UNITS);
    check_yes("A's checksum across slices and an interrupt", a_sum_ok);
    check_yes("B's checksum across slices", b_sum_ok);
    check_str("the interrupt in the slice phase woke H", seq_get(), "H M");
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    check_yes("slices ended with the other ready", st.slices >= 1);
    check_eq("no overflow", st.overflows, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
