/*
 * Cairn OS armv6m port: preemption on real exception hardware (cairn-sim and QEMU).
 *
 * Interrupt handlers post messages; the outermost exit pends PendSV, whose
 * trampoline runs cairn_dispatch() in Thread mode on top of the interrupted
 * handler, then SVC restores the interrupted context (docs/kernel.md, "armv6m
 * port"). Checks: the order of handlers, that the interrupted handler's registers
 * and flags survive (a register-heavy checksum loop), nesting of dispatches, the
 * strict rule for interrupt sends, and the hardware timer preempting a busy task.
 * The transcript does not depend on timing: QEMU and cairn-sim print the same.
 */
#include <stdint.h>

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "busy.h"
#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

enum { LOW = 1, LOW2 = 2, MID = 3, HIGH = 4, TOP = 5 };

static volatile uint32_t high_timeouts;
static volatile uint32_t high_ipsr = 0xFFFFFFFFu;
static volatile uint32_t high_below_ok;


static cairn_ret_t low(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(0): { /* an interrupt preempts this handler */
        seq_add("L<");
        uint32_t got = busy_checksum(2000, 1000, IRQ_SOFT0);
        check_eq_hex("checksum across preemption", got, busy_checksum(2000, -1, IRQ_SOFT0));
        seq_add("L>");
        break;
    }
    case CAIRN_PORT(1): /* an interrupt posts to an equal priority: waits */
        seq_add("L<");
        nvic_set_pending(IRQ_SOFT1);
        cpu_sync();
        seq_add("L>");
        break;
    case CAIRN_PORT(2): { /* the hardware timer preempts a busy handler */
        high_timeouts = 0;
        (void)cairn_timer_set(HIGH, 0, CAIRN_TICKS_PER_SECOND / 1000, true);
        uint32_t start = arch_timer_now();
        while (high_timeouts < 3 && arch_timer_now() - start < CAIRN_TICKS_PER_SECOND / 10)
            ;
        /* QEMU's virtual time can jump under host load and deliver several overdue
         * periods at once, so only "at least three" is timing-independent. */
        check_yes("timeouts handled while LOW was busy >= 3", high_timeouts >= 3);
        break;
    }
    }
    return CAIRN_OK;
}

static cairn_ret_t low2(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        seq_add("L2");
    return CAIRN_OK;
}

static cairn_ret_t mid(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        seq_add("M");
    return CAIRN_OK;
}

static cairn_ret_t high(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(0): /* from IRQ_SOFT0, on top of LOW */
        seq_add("H<");
        high_ipsr = cpu_get_ipsr();
        high_below_ok = cairn_current_task() == HIGH;
        (void)cairn_post(MID, CAIRN_PORT(0), 0, 0); /* lower: queued */
        nvic_set_pending(IRQ_SOFT2);                /* TOP: preempts HIGH */
        cpu_sync();
        seq_add("H>");
        break;
    case CAIRN_PORT(1): /* an interrupt posts to a lower priority: waits */
        seq_add("H<");
        nvic_set_pending(IRQ_SOFT1);
        cpu_sync();
        seq_add("H>");
        break;
    case CAIRN_PORT_TIMEOUT0:
        if (++high_timeouts >= 3)
            (void)cairn_timer_cancel(HIGH, 0);
        break;
    }
    return CAIRN_OK;
}

static cairn_ret_t top(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        seq_add("T");
    return CAIRN_OK;
}

static cairn_task_id_t soft1_target;

void irq24_handler(void)
{
    cairn_isr_enter(24);
    (void)cairn_post(HIGH, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

void irq25_handler(void)
{
    cairn_isr_enter(25);
    (void)cairn_post(soft1_target, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

void irq26_handler(void)
{
    cairn_isr_enter(26);
    (void)cairn_post(TOP, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

static uint64_t heap[512];

static void run(cairn_task_id_t dst, cairn_port_t port)
{
    seq_reset();
    (void)cairn_post(dst, port, 0, 0);
    cairn_dispatch(); /* anything left queued (must be nothing) */
}

int main(void)
{
    test_begin("armv6m-preempt");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    static const struct {
        cairn_task_id_t id;
        cairn_handler_t h;
        cairn_prio_t prio;
    } tasks[] = {{LOW, low, 1}, {LOW2, low2, 1}, {MID, mid, 3}, {HIGH, high, 5}, {TOP, top, 7}};
    for (unsigned i = 0; i < CAIRN_COUNT(tasks); i++) {
        check_eq("create", (uint32_t)cairn_task_create(tasks[i].id, tasks[i].h, 0, tasks[i].prio, 0, 0, 0), 0);
        check_eq("init", (uint32_t)cairn_task_init(tasks[i].id, 0, 0), 0);
    }
    for (unsigned irq = IRQ_SOFT0; irq <= IRQ_SOFT2; irq++) {
        nvic_set_priority(irq, NVIC_PRIO_LOW);
        nvic_enable(irq);
    }

    run(LOW, CAIRN_PORT(0));
    check_str("IRQ preempts LOW, TOP preempts HIGH, MID before LOW resumes", seq_get(),
              "L< H< T H> M L>");
    check_eq_hex("HIGH runs in Thread mode (IPSR)", high_ipsr, 0);
    check_yes("cairn_current_task() is HIGH inside HIGH", (int)high_below_ok);

    soft1_target = LOW2;
    run(LOW, CAIRN_PORT(1));
    check_str("IRQ to an equal priority waits", seq_get(), "L< L> L2");

    soft1_target = MID;
    run(HIGH, CAIRN_PORT(1));
    check_str("IRQ to a lower priority waits", seq_get(), "H< H> M");

    run(LOW, CAIRN_PORT(2));
    check_eq("timers running", cairn_timer_active(), 0);

    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    check_eq("pool full", st.pool_full, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
