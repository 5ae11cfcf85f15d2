/*
 * EDF with the Stack Resource Policy (cairn/policy.h, docs/policies.md), built with
 * CAIRN_POLICY=CAIRN_POLICY_EDF: queue order by absolute deadline (ties FIFO), the
 * message's deadline over the task's, and SRP preemption (an earlier deadline AND a
 * level above the running one), which keeps the one-stack property.
 */
#include "ktest.h"
#include "one_stack.h"
#include "policy/storm.h"

#include "cairn/arch_timer.h"
#include "hwtimer.h"

_Static_assert(CAIRN_POLICY == CAIRN_POLICY_EDF, "built with CAIRN_POLICY=CAIRN_POLICY_EDF");

enum { A = 1, B, C, H, X };
static struct rec a, b, c, h, x;

/* Creates task id at level prio with relative deadline rel (0: none). */
static void edf_task(cairn_task_id_t id, struct rec *r, const char *name, cairn_prio_t prio, uint32_t rel)
{
    *r = (struct rec){.name = name};
    rec_task(id, r, prio, 0);
    if (rel)
        assert_int_equal(cairn_task_deadline(id, rel), CAIRN_OK);
}

static void post(cairn_task_id_t id, unsigned port)
{
    assert_int_equal(cairn_post(id, CAIRN_PORT(port), NULL, 0), CAIRN_OK);
}

/* ---- queue order ---------------------------------------------------------------------- */

struct script {
    cairn_task_id_t to[8];
    uint32_t advance[8]; /* ticks before each post */
    unsigned n;
};

static void isr_script(void *arg)
{
    const struct script *s = arg;
    for (unsigned i = 0; i < s->n; i++) {
        host_timer_set(arch_timer_now() + s->advance[i]);
        post(s->to[i], i);
    }
    klog("irq:end");
}

/* All queued from an interrupt handler: they run at its end by absolute deadline. B's
 * relative deadline is the shortest, but A was released 250 ticks earlier: A's absolute
 * deadline (300) is before B's (350); C's (250 + 200 = 450) after both. */
static void test_order_by_absolute_deadline(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 300);
    edf_task(B, &b, "B", 5, 100);
    edf_task(C, &c, "C", 4, 200);
    klog_reset();
    host_timer_set(0);
    struct script s = {.to = {A, B, C}, .advance = {0, 250, 0}, .n = 3};
    ktest_irq(isr_script, &s);
    assert_log("irq:end A:0 B:1 C:2");
}

/* Equal absolute deadlines run in send order (FIFO), whichever task they are for. */
static void test_ties_fifo(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 100);
    edf_task(B, &b, "B", 5, 100);
    klog_reset();
    struct script s = {.to = {B, A, B, A}, .n = 4};
    ktest_irq(isr_script, &s);
    assert_log("irq:end B:0 A:1 B:2 A:3");
}

/* A task without a relative deadline gets the longest: after every task with one. */
static void test_no_deadline_runs_last(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 1, 0);
    edf_task(B, &b, "B", 5, 1000);
    assert_int_equal(cairn_task_deadline_get(A), CAIRN_DEADLINE_MAX);
    klog_reset();
    struct script s = {.to = {A, B}, .n = 2};
    ktest_irq(isr_script, &s);
    assert_log("irq:end B:1 A:0");
}

/* The message's own deadline wins over its task's: A's relative deadline is 1000, the
 * send gives 10, so it runs before B's (100). */
static void isr_post_deadline(void *arg)
{
    (void)arg;
    post(B, 0);
    assert_int_equal(cairn_post_deadline(A, CAIRN_PORT(1), NULL, 0, 10), CAIRN_OK);
    post(A, 2);
    klog("irq:end");
}

static void test_message_deadline_wins(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 1000);
    edf_task(B, &b, "B", 5, 100);
    klog_reset();
    ktest_irq(isr_post_deadline, NULL);
    assert_log("irq:end A:1 B:0 A:2");
}

/* The same through an output port: H's handler sends to A on port 0 with a deadline of its
 * own (earlier than B's), then plainly to A on port 1 (A's relative deadline, after B's). */
static void h_sends_by_route(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    post(B, 9);
    assert_int_equal(cairn_send_deadline(0, NULL, 0, 10), CAIRN_OK);
    assert_int_equal(cairn_send(1, NULL, 0), CAIRN_OK);
    klog("H:end");
}

static void test_send_deadline_by_route(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 1, 1000);
    edf_task(B, &b, "B", 2, 100);
    h = (struct rec){.name = "H", .hook = h_sends_by_route};
    rec_task(H, &h, 3, 2);
    assert_int_equal(cairn_route_set(H, 0, A, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_route_set(H, 1, A, CAIRN_PORT(2)), CAIRN_OK);
    klog_reset();
    post(H, 0);
    assert_log("H:0 H:end A:1 B:9 A:2");
}

/* cairn_send's shortcut under the deadline policies (send.c) leaves everything but a handler's
 * plain send to a local task to the general path: each case gives the general path's result. */
static void h_sends_every_way(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    assert_int_equal(cairn_send(0, "x", 1), CAIRN_OK);            /* to A: queued */
    assert_int_equal(cairn_send(1, NULL, 0), CAIRN_ENOROUTE);    /* unconnected */
    assert_int_equal(cairn_send(4, NULL, 0), CAIRN_EINVAL);      /* no such port */
    assert_int_equal(cairn_send(0, NULL, 0x10000u), CAIRN_EINVAL); /* too long */
    char *heap_payload = cairn_malloc(4);
    assert_non_null(heap_payload);
    assert_int_equal(cairn_send(0, heap_payload, 4), CAIRN_OK);  /* a heap block: given away */
    assert_int_equal(cairn_send(2, NULL, 0), CAIRN_OK);          /* a group: A and X */
    assert_int_equal(cairn_send(3, NULL, 0), CAIRN_ENOROUTE);    /* B, killed */
    klog("H:end");
}

static void test_send_shortcut_matches_general_path(void **state)
{
    (void)state;
    struct cairn_heap_stats before, after;
    edf_task(A, &a, "A", 1, 100);
    edf_task(B, &b, "B", 2, 100);
    edf_task(X, &x, "X", 5, 10);
    h = (struct rec){.name = "H", .hook = h_sends_every_way};
    rec_task(H, &h, 3, 4);
    uint8_t g = cairn_group_alloc();
    assert_int_equal(cairn_group_join(g, A, CAIRN_PORT(7)), CAIRN_OK);
    assert_int_equal(cairn_group_join(g, X, CAIRN_PORT(8)), CAIRN_OK);
    assert_int_equal(cairn_route_set(H, 0, A, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_route_set(H, 2, CAIRN_TASK_MCAST, g), CAIRN_OK);
    assert_int_equal(cairn_route_set(H, 3, B, CAIRN_PORT(3)), CAIRN_OK);
    assert_int_equal(cairn_task_kill(B), CAIRN_OK);
    cairn_heap_stats(&before);
    klog_reset();
    post(H, 0);
    /* X (level 5, deadline 10) preempts H from the group send; A's three after H */
    assert_log("H:0 X:8 H:end A:1 A:1 A:7");
    cairn_heap_stats(&after);
    assert_int_equal(after.blocks_used, before.blocks_used); /* the heap payload was freed */
    assert_int_equal(cairn_send(0, NULL, 0), CAIRN_EINVAL); /* no running task */
}

/* Deadlines compare modulo the counter: B is sent just after the counter wrapped (deadline
 * 0x45), A just before it (deadline MASK - 8, that is 9 ticks before the wrap): A's is the
 * earlier, although as plain numbers it is the larger. */
static void isr_post_across_wrap(void *arg)
{
    (void)arg;
    host_timer_set(0x5);
    post(B, 0);
    host_timer_set(CAIRN_HWTIMER_MASK - 0x10);
    post(A, 1);
    klog("irq:end");
}

static void test_deadlines_across_wrap(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 0x8);
    edf_task(B, &b, "B", 5, 0x40);
    klog_reset();
    ktest_irq(isr_post_across_wrap, NULL);
    assert_log("irq:end A:1 B:0");
}

static void test_bad_arguments(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 0);
    assert_int_equal(cairn_task_deadline(A, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_task_deadline(A, CAIRN_DEADLINE_MAX + 1u), CAIRN_EINVAL);
    assert_int_equal(cairn_task_deadline(B, 10), CAIRN_EINVAL); /* no such task */
    assert_int_equal(cairn_task_deadline(A, CAIRN_DEADLINE_MAX), CAIRN_OK);
    assert_int_equal(cairn_post_deadline(A, CAIRN_PORT(0), NULL, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_post_deadline(A, CAIRN_PORT_INIT, NULL, 0, 5), CAIRN_EINVAL);
    assert_int_equal(cairn_send_deadline(0, NULL, 0, 5), CAIRN_EINVAL); /* no running task */
}

/* A killed task's deadline goes with it: a new task with its ID starts without one. */
static void test_kill_forgets_deadline(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 3, 50);
    assert_int_equal(cairn_task_deadline_get(A), 50);
    assert_int_equal(cairn_task_kill(A), CAIRN_OK);
    edf_task(A, &a, "A", 3, 0);
    assert_int_equal(cairn_task_deadline_get(A), CAIRN_DEADLINE_MAX);
}

/* ---- SRP preemption ----------------------------------------------------------------- */

/* H's handler (level 3, relative deadline 1000) sends: to a higher level with an earlier
 * deadline (runs at once), to a lower level with an earlier deadline (waits: the level is
 * not above the ceiling), to a higher level with a later deadline (waits: EDF), and to
 * its own level (waits: an equal level is not above the ceiling). */
static void h_sends(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    post(X, 1);                                                                 /* level 5, 10 */
    assert_int_equal(cairn_post_deadline(A, CAIRN_PORT(2), NULL, 0, 1), CAIRN_OK); /* level 1 */
    assert_int_equal(cairn_post_deadline(X, CAIRN_PORT(3), NULL, 0, 5000), CAIRN_OK);
    assert_int_equal(cairn_post_deadline(B, CAIRN_PORT(4), NULL, 0, 1), CAIRN_OK); /* level 3 */
    klog("H:end");
}

static void x_checks(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    (void)msg;
    klog("depth=%u", assert_one_stack());
}

static void test_srp_preemption(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 1, 10);
    edf_task(B, &b, "B", 3, 1000);
    edf_task(H, &h, "H", 3, 1000);
    edf_task(X, &x, "X", 5, 10);
    h.hook = h_sends;
    x.hook = x_checks;
    klog_reset();
    post(H, 0);
    /* After H: A and B (deadline 1) first, in send order; X's 5000 last. */
    assert_log("H:0 X:1 depth=2 H:end A:2 B:4 X:3 depth=1");
}

/* A queued message starts at the end of an interrupt only when it beats the interrupted
 * handler on both counts. */
static void isr_posts_x_a(void *arg)
{
    (void)arg;
    post(A, 5); /* level 1, deadline 10: earlier than H's, but below the ceiling */
    /* level 5, deadline 5: the earliest, and above the ceiling: starts at the end of the
     * interrupt, or (arg) deadline 10, behind A */
    assert_int_equal(cairn_post_deadline(X, CAIRN_PORT(6), NULL, 0, arg ? 10 : 5), CAIRN_OK);
    klog("irq:end");
}

static void h_interrupted(struct rec *r, cairn_msg_t *msg)
{
    (void)msg;
    ktest_irq(isr_posts_x_a, r->user);
    klog("H:end");
}

static void test_interrupt_end_uses_srp(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 1, 10);
    edf_task(H, &h, "H", 3, 1000);
    edf_task(X, &x, "X", 5, 10);
    h.hook = h_interrupted;
    x.hook = x_checks;
    klog_reset();
    post(H, 0);
    assert_log("H:0 irq:end X:6 depth=2 H:end A:5");
}

/* Only the queue's first ready message may start (SRP starts the highest-priority job or
 * none): X, as early as A but sent after it, waits behind A, whose level keeps it out.
 * With levels that follow relative deadlines and no per-send deadlines this cannot
 * happen (a message that outranks the running one has a higher level). */
static void test_blocked_head_waits(void **state)
{
    (void)state;
    edf_task(A, &a, "A", 1, 10);
    edf_task(H, &h, "H", 3, 1000);
    edf_task(X, &x, "X", 5, 10);
    h.hook = h_interrupted;
    h.user = &h;
    x.hook = x_checks;
    klog_reset();
    post(H, 0);
    assert_log("H:0 irq:end H:end A:5 X:6 depth=1");
}

/* The one-stack property under a storm: tasks at levels 1..5 with relative deadlines
 * that shrink as the level grows (as SRP wants) and messages with their own deadlines
 * (which need not), from interrupts at random times and from handlers. Every handler
 * checks the stack; every message is handled. */
static void test_one_stack_storm(void **state)
{
    (void)state;
    static struct rec storm[5];
    static const char *names[] = {"S1", "S2", "S3", "S4", "S5"};
    storm_start(5, 12345);
    for (unsigned i = 0; i < 5; i++) {
        storm[i] = (struct rec){.name = names[i], .hook = storm_hook_of(i)};
        rec_task((cairn_task_id_t)(i + 1), &storm[i], (cairn_prio_t)(i + 1), 0);
        assert_int_equal(cairn_task_deadline((cairn_task_id_t)(i + 1), 600 - 100 * i), CAIRN_OK);
    }
    struct storm_counts c = storm_run(200);
    assert_int_equal(c.handled, c.sent);
    assert_true(c.max_depth >= 3); /* the storm did nest */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_order_by_absolute_deadline),
        KTEST(test_ties_fifo),
        KTEST(test_no_deadline_runs_last),
        KTEST(test_message_deadline_wins),
        KTEST(test_send_deadline_by_route),
        KTEST(test_send_shortcut_matches_general_path),
        KTEST(test_deadlines_across_wrap),
        KTEST(test_bad_arguments),
        KTEST(test_kill_forgets_deadline),
        KTEST(test_srp_preemption),
        KTEST(test_interrupt_end_uses_srp),
        KTEST(test_blocked_head_waits),
        KTEST(test_one_stack_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
