/*
 * Cairn OS armv6m port under the deadline policies (cairn/policy.h, docs/policies.md):
 * build/fw/kernel-policy-edf.elf (CAIRN_POLICY_EDF) and kernel-policy-csd.elf
 * (CAIRN_POLICY_CSD, CSD-2: TOP and HIGH in the EDF queue, the others in the FP queue),
 * on real exception hardware (cairn-sim and QEMU). Interrupt handlers post; the
 * outermost exit pends PendSV, whose trampoline dispatches what the policy lets start.
 * Checks: the order of handlers, the interrupted handler's registers, SRP (a lower level
 * never preempts; every stack has strictly increasing levels), a later deadline waiting
 * under EDF where CSD's FP queue preempts by priority, the hardware timer preempting a
 * busy handler. Deadlines differ by tenths of a second, far more than the few
 * instructions between two posts, so the transcript does not depend on timing.
 */
#include <stdint.h>

#include "cairn/arch_timer.h"
#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/policy.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "../../core/kernel.h" /* the execution stack, for the one-stack check */

#include "../armv6m/busy.h"
#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

#if CAIRN_POLICY == CAIRN_POLICY_FP
#error "a test of the deadline policies: build with CAIRN_POLICY_EDF or CAIRN_POLICY_CSD"
#endif

#define TENTH (CAIRN_TICKS_PER_SECOND / 10u)

enum { LOW = 1, MID = 2, HIGH = 3, TOP = 4 };

static volatile uint32_t high_timeouts, stack_ok = 1;
static cairn_task_id_t soft1_target;
static uint32_t soft1_rel; /* 0: the task's deadline */

/* Levels strictly increase up the stack (the one-stack property). */
static void check_stack(void)
{
    for (const cairn_frame_t *f = cairn_k.top; f && f->below; f = f->below)
        if (f->prio <= f->below->prio)
            stack_ok = 0;
}

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
    case CAIRN_PORT(1): /* an interrupt posts to soft1_target */
        seq_add("L<");
        nvic_set_pending(IRQ_SOFT1);
        cpu_sync();
        seq_add("L>");
        break;
    case CAIRN_PORT(3): /* the interrupt bound to HIGH */
        seq_add("L<");
        nvic_set_pending(IRQ_SOFT3);
        cpu_sync();
        seq_add("L>");
        break;
    case CAIRN_PORT(2): { /* the hardware timer preempts a busy handler */
        high_timeouts = 0;
        (void)cairn_timer_set(HIGH, 0, CAIRN_TICKS_PER_SECOND / 1000, true);
        uint32_t start = arch_timer_now();
        while (high_timeouts < 3 && arch_timer_now() - start < CAIRN_TICKS_PER_SECOND / 10)
            ;
        check_yes("timeouts handled while LOW was busy >= 3", high_timeouts >= 3);
        break;
    }
    }
    return CAIRN_OK;
}

static cairn_ret_t mid(void *state, cairn_msg_t *msg)
{
    (void)state;
    check_stack();
    if (msg->port == CAIRN_PORT(0))
        seq_add("M");
    if (msg->port == CAIRN_PORT(1)) { /* the interrupt bound to HIGH, under a short deadline */
        seq_add("M<");
        nvic_set_pending(IRQ_SOFT3);
        cpu_sync();
        seq_add("M>");
    }
    return CAIRN_OK;
}

static cairn_ret_t high(void *state, cairn_msg_t *msg)
{
    (void)state;
    check_stack();
    switch (msg->port) {
    case CAIRN_PORT(0): /* from IRQ_SOFT0, on top of LOW */
        seq_add("H<");
        (void)cairn_post(MID, CAIRN_PORT(0), 0, 0); /* a lower level: queued */
        nvic_set_pending(IRQ_SOFT2);                /* TOP: preempts HIGH */
        cpu_sync();
        seq_add("H>");
        break;
    case CAIRN_PORT(1): /* an interrupt posts to soft1_target */
        seq_add("H<");
        nvic_set_pending(IRQ_SOFT1);
        cpu_sync();
        seq_add("H>");
        break;
    case CAIRN_PORT(2): /* from the interrupt bound to HIGH */
        seq_add("H");
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
    check_stack();
    if (msg->port == CAIRN_PORT(0))
        seq_add("T");
    if (msg->port == CAIRN_PORT(1)) { /* the interrupt bound to HIGH, below TOP's level */
        seq_add("T<");
        nvic_set_pending(IRQ_SOFT3);
        cpu_sync();
        seq_add("T>");
    }
    return CAIRN_OK;
}

void irq24_handler(void)
{
    cairn_isr_enter(24);
    (void)cairn_post(HIGH, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

void irq25_handler(void)
{
    cairn_isr_enter(25);
    if (soft1_rel)
        (void)cairn_post_deadline(soft1_target, CAIRN_PORT(0), 0, 0, soft1_rel);
    else
        (void)cairn_post(soft1_target, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

void irq26_handler(void)
{
    cairn_isr_enter(26);
    (void)cairn_post(TOP, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

/* IRQ 27 bound to HIGH's port 2 (cairn/irq.h): under EDF and CSD the binding's path decides
 * in C and returns straight into the handler when the message may start. */
CAIRN_IRQ_MESSAGE_EDGE(irq27_handler, IRQ_SOFT3, HIGH, CAIRN_PORT(2))

static uint64_t heap[512];

static void run(cairn_task_id_t dst, cairn_port_t port)
{
    seq_reset();
    (void)cairn_post(dst, port, 0, 0);
    cairn_dispatch(); /* anything left queued (must be nothing) */
}

int main(void)
{
    test_begin(CAIRN_POLICY == CAIRN_POLICY_EDF ? "armv6m-policy-edf" : "armv6m-policy-csd");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    /* Levels follow relative deadlines (SRP); under CSD, the EDF queue's above the FP's. */
    static const struct {
        cairn_task_id_t id;
        cairn_handler_t h;
        cairn_prio_t level;
        uint32_t rel;
        uint8_t queue;
    } tasks[] = {{LOW, low, 1, 8 * TENTH, 1}, {MID, mid, 3, 6 * TENTH, 1},
                 {HIGH, high, 5, 4 * TENTH, 0}, {TOP, top, 7, 2 * TENTH, 0}};
    for (unsigned i = 0; i < CAIRN_COUNT(tasks); i++) {
        check_eq("create", (uint32_t)cairn_task_create(tasks[i].id, tasks[i].h, 0, tasks[i].level, 0, 0, 0), 0);
        check_eq("deadline", (uint32_t)cairn_task_deadline(tasks[i].id, tasks[i].rel), 0);
#if CAIRN_POLICY == CAIRN_POLICY_CSD
        check_eq("queue", (uint32_t)cairn_task_queue(tasks[i].id, tasks[i].queue), 0);
#endif
        check_eq("init", (uint32_t)cairn_task_init(tasks[i].id, 0, 0), 0);
    }
    for (unsigned irq = IRQ_SOFT0; irq <= IRQ_SOFT3; irq++) {
        nvic_set_priority(irq, NVIC_PRIO_LOW);
        nvic_enable(irq);
    }

    run(LOW, CAIRN_PORT(0));
    check_str("IRQ preempts LOW, TOP preempts HIGH, MID before LOW resumes", seq_get(),
              "L< H< T H> M L>");

    /* MID's message with a deadline after LOW's: EDF keeps LOW running; CSD's FP queue
     * ranks by priority, so MID preempts. */
    soft1_target = MID;
    soft1_rel = 9 * TENTH;
#if CAIRN_POLICY == CAIRN_POLICY_EDF
    run(LOW, CAIRN_PORT(1));
    check_str("EDF: a later deadline waits", seq_get(), "L< L> M");
#else
    run(LOW, CAIRN_PORT(1));
    check_str("CSD: the FP queue preempts by priority", seq_get(), "L< M L>");
#endif

    /* MID's message with the earliest deadline, while HIGH runs: its level is below the
     * ceiling, so it waits (SRP). */
    soft1_rel = TENTH / 10;
    run(HIGH, CAIRN_PORT(1));
    check_str("a lower level waits, however early its deadline", seq_get(), "H< H> M");

    /* TOP from an interrupt while HIGH runs: earlier and above: preempts. */
    soft1_target = TOP;
    soft1_rel = 0;
    run(HIGH, CAIRN_PORT(1));
    check_str("earlier and above preempts", seq_get(), "H< T H>");

    /* The interrupt bound to HIGH: earlier and above LOW, it preempts; below TOP's level, or
     * later than MID's message's own deadline, it waits. */
    run(LOW, CAIRN_PORT(3));
    check_str("bound IRQ: earlier and above preempts", seq_get(), "L< H L>");
    run(TOP, CAIRN_PORT(1));
    check_str("bound IRQ: a lower level waits", seq_get(), "T< T> H");
    seq_reset();
    (void)cairn_post_deadline(MID, CAIRN_PORT(1), 0, 0, TENTH / 10);
    cairn_dispatch();
#if CAIRN_POLICY == CAIRN_POLICY_EDF
    check_str("bound IRQ: a later deadline waits", seq_get(), "M< M> H");
#else
    check_str("bound IRQ: the EDF queue outranks the FP queue", seq_get(), "M< H M>");
#endif

    run(LOW, CAIRN_PORT(2));
    check_eq("timers running", cairn_timer_active(), 0);
    check_yes("levels strictly increase up the stack", (int)stack_ok);

    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    check_eq("pool full", st.pool_full, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
