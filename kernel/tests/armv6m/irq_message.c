/*
 * Cairn OS armv6m port: interrupts bound to messages (cairn/irq.h) on real
 * exception hardware (cairn-sim and QEMU, same transcript).
 *
 * The fast path returns from the interrupt straight into the task's handler
 * through a fabricated exception frame; everything else goes through the general
 * path (queue, PendSV). Checks: the order of handlers in each case the fast path
 * must refuse (a queued message, the target on the stack, an equal or lower
 * priority, a task not yet initialised or killed), that the interrupted code's
 * registers and flags survive, that a handler started from an interrupt can be
 * preempted by another one, and the masking of level-sensitive lines.
 */
#include <stdint.h>

#include "cairn/irq.h"
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

enum { LOW = 1, LOW2 = 2, MID = 3, HIGH = 4, TOP = 5, LATE = 6 };

/* IRQ 24 -> HIGH, 26 -> TOP, 27 -> LOW2, 28 -> LATE: pulses; IRQ 25 -> MID: a
 * level-sensitive source, masked until MID unmasks it. */
CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, HIGH, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE(irq25_handler, IRQ_SOFT1, MID, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE_EDGE(irq26_handler, IRQ_SOFT2, TOP, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE_EDGE(irq27_handler, IRQ_SOFT3, LOW2, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE_EDGE(irq28_handler, 28, LATE, CAIRN_PORT(0))

static volatile uint32_t high_ipsr = 0xFFFFFFFFu;
static volatile uint32_t high_current;
static volatile uint32_t mid_unmask = 1;
static volatile uint32_t mid_runs;
static volatile uint32_t high_posts_mid = 1;

static void pend(unsigned irq)
{
    nvic_set_pending(irq);
    cpu_sync();
}


static cairn_ret_t low(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(0): { /* IRQ 24 starts HIGH straight on top of this handler */
        seq_add("L<");
        uint32_t got = busy_checksum(2000, 1000, IRQ_SOFT0);
        check_eq_hex("checksum across the interrupt", got, busy_checksum(2000, -1, IRQ_SOFT0));
        seq_add("L>");
        break;
    }
    case CAIRN_PORT(1): /* IRQ 27's task has this priority too: it waits */
        seq_add("L<");
        pend(IRQ_SOFT3);
        seq_add("L>");
        break;
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
    if (msg->port == CAIRN_PORT(0)) {
        seq_add("M");
        mid_runs++;
        if (mid_unmask)
            cairn_irq_unmask(IRQ_SOFT1);
    }
    return CAIRN_OK;
}

static cairn_ret_t high(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(0): /* from IRQ 24 */
        seq_add("H<");
        high_ipsr = cpu_get_ipsr();
        high_current = cairn_current_task();
        if (high_posts_mid)
            (void)cairn_post(MID, CAIRN_PORT(0), 0, 0); /* lower: queued */
        pend(IRQ_SOFT2); /* TOP: the general path when something is queued */
        seq_add("H>");
        break;
    case CAIRN_PORT(1): /* HIGH is on the stack: IRQ 24's message waits */
        seq_add("H<");
        pend(IRQ_SOFT0);
        seq_add("H>");
        break;
    case CAIRN_PORT(2): /* nothing queued: IRQ 26 starts TOP straight on top of HIGH */
        seq_add("H<");
        pend(IRQ_SOFT2);
        seq_add("H>");
        break;
    }
    return CAIRN_OK;
}

static cairn_ret_t top(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(0):
        seq_add("T");
        break;
    case CAIRN_PORT(1): /* HIGH is lower: IRQ 24's message waits */
        seq_add("T<");
        pend(IRQ_SOFT0);
        seq_add("T>");
        break;
    }
    return CAIRN_OK;
}

static cairn_ret_t late(void *state, cairn_msg_t *msg)
{
    (void)state;
    seq_add(msg->port == CAIRN_PORT_INIT ? "I" : "X");
    return CAIRN_OK;
}

static uint64_t heap[512];

static void run(cairn_task_id_t dst, cairn_port_t port)
{
    seq_reset();
    (void)cairn_post(dst, port, 0, 0);
    cairn_dispatch(); /* anything left queued (must be nothing) */
}

static void from_idle(unsigned irq)
{
    seq_reset();
    pend(irq);
    cairn_dispatch();
}

int main(void)
{
    test_begin("armv6m-irq-message");
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
    for (unsigned irq = IRQ_SOFT0; irq <= 28; irq++) {
        nvic_set_priority(irq, NVIC_PRIO_LOW);
        nvic_enable(irq);
    }

    from_idle(IRQ_SOFT0);
    check_str("from idle: HIGH, TOP through the general path, then MID", seq_get(), "H< T H> M");
    check_eq_hex("HIGH runs in Thread mode (IPSR)", high_ipsr, 0);
    check_eq("cairn_current_task() is HIGH inside HIGH", high_current, HIGH);
    /* The fast paths mark a task on the stack without losing its other flags: INIT was
     * sent, so a second cairn_task_init is refused. */
    check_eq("HIGH (the interrupt's fast path) keeps INIT sent", (uint32_t)cairn_task_init(HIGH, 0, 0),
             (uint32_t)CAIRN_EINVAL);
    check_eq("TOP keeps INIT sent", (uint32_t)cairn_task_init(TOP, 0, 0), (uint32_t)CAIRN_EINVAL);

    run(LOW, CAIRN_PORT(0));
    check_str("IRQ 24 preempts a busy LOW", seq_get(), "L< H< T H> M L>");

    run(HIGH, CAIRN_PORT(2));
    check_str("an interrupt-started handler preempts a running one", seq_get(), "H< T H>");
    high_posts_mid = 0;
    from_idle(IRQ_SOFT0); /* HIGH and TOP both from the fast path, nested */
    check_str("one started by an interrupt is preempted by another", seq_get(), "H< T H>");
    high_posts_mid = 1;

    run(HIGH, CAIRN_PORT(1));
    check_str("the target on the stack: its message waits", seq_get(), "H< H> H< T H> M");
    run(TOP, CAIRN_PORT(1));
    check_str("a lower target: its message waits", seq_get(), "T< T> H< T H> M");
    run(LOW, CAIRN_PORT(1));
    check_str("an equal priority: its message waits", seq_get(), "L< L> L2");

    /* Level-sensitive: masked from the interrupt until the task unmasks it. */
    mid_unmask = 0;
    mid_runs = 0;
    from_idle(IRQ_SOFT1);
    check_eq("level: MID ran", mid_runs, 1);
    check_eq("level: line masked after the interrupt", (uint32_t)nvic_is_enabled(IRQ_SOFT1), 0);
    pend(IRQ_SOFT1); /* the controller latches the line while it is masked */
    cairn_dispatch();
    check_eq("level: masked, the latched request waits", mid_runs, 1);
    check_eq("level: latched", (uint32_t)nvic_is_pending(IRQ_SOFT1), 1);
    /* The device is served: the latch is stale. Unmasking drops it (a line still high would
     * pend again at once) rather than bring one more, empty, message. */
    cairn_irq_unmask(IRQ_SOFT1);
    cpu_sync();
    cairn_dispatch();
    check_eq("level: unmasked, the stale latch brings no message", mid_runs, 1);
    check_eq("level: the latch is gone", (uint32_t)nvic_is_pending(IRQ_SOFT1), 0);
    check_eq("level: unmasked", (uint32_t)nvic_is_enabled(IRQ_SOFT1), 1);
    mid_unmask = 1;
    pend(IRQ_SOFT1); /* a new request */
    cairn_dispatch();
    check_eq("level: a new request runs", mid_runs, 2);
    check_eq("level: MID unmasked the line", (uint32_t)nvic_is_enabled(IRQ_SOFT1), 1);

    /* A task that does not exist yet, then is not initialised, then is. */
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    uint32_t no_route = st.no_route;
    from_idle(28);
    cairn_sched_stats(&st);
    check_eq("no task: the message is dropped and counted", st.no_route, no_route + 1);
    check_eq("create LATE", (uint32_t)cairn_task_create(LATE, late, 0, 6, 0, 0, 0), 0);
    from_idle(28);
    check_str("not initialised: buffered", seq_get(), "");
    check_eq("init LATE", (uint32_t)cairn_task_init(LATE, 0, 0), 0);
    check_str("then INIT, then the interrupt's message", seq_get(), "I X");
    from_idle(28);
    check_str("initialised: straight in", seq_get(), "X");
    check_eq("kill LATE", (uint32_t)cairn_task_kill(LATE), 0);
    from_idle(28);
    cairn_sched_stats(&st);
    check_eq("killed: dropped again", st.no_route, no_route + 2);
    check_eq("re-create LATE", (uint32_t)cairn_task_create(LATE, late, 0, 6, 0, 0, 0), 0);
    check_eq("init LATE", (uint32_t)cairn_task_init(LATE, 0, 0), 0);
    from_idle(28);
    check_str("re-created: the binding follows the new task", seq_get(), "X");

    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    check_eq("pool full", st.pool_full, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
