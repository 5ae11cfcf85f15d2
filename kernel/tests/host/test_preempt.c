/*
 * Stack-based preemption from task context: a send to a task of higher or
 * equal priority runs it at once, on the same stack; a send to a lower one is
 * queued; a task on the stack never re-enters; on a handler's return, queued
 * messages run only when they strictly outrank what is below.
 */
#include "ktest.h"

static struct rec r1, r2, r3;

/* Hook: on port 0, send on output port 0, logging around the send. */
static void send_on_0(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port != CAIRN_PORT(0))
        return;
    klog("%s:send", r->name);
    assert_int_equal(cairn_send(0, NULL, 0), CAIRN_OK);
    klog("%s:back", r->name);
}

static void three(cairn_prio_t p1, cairn_prio_t p2, cairn_prio_t p3)
{
    r1 = (struct rec){.name = "A", .hook = send_on_0};
    r2 = (struct rec){.name = "B", .hook = send_on_0};
    r3 = (struct rec){.name = "C", .hook = send_on_0};
    rec_task(1, &r1, p1, 1);
    rec_task(2, &r2, p2, 1);
    rec_task(3, &r3, p3, 1);
    klog_reset();
}

static void test_higher_runs_at_once(void **state)
{
    (void)state;
    three(1, 5, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:1 A:back");
}

static void test_equal_priority_preempts(void **state)
{
    (void)state;
    three(3, 3, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:1 A:back");
}

static void test_lower_is_queued(void **state)
{
    (void)state;
    three(5, 1, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send A:back B:1");
}

/* The current task sees itself while running, and the task below after a
 * preempting handler returns. */
static void check_current(struct rec *r, cairn_msg_t *msg)
{
    (void)msg;
    assert_int_equal(cairn_current_task(), r == &r1 ? 1 : 2);
    if (r == &r1) {
        assert_int_equal(cairn_send(0, NULL, 0), CAIRN_OK);
        assert_int_equal(cairn_current_task(), 1);
    }
}

static void test_current_task(void **state)
{
    (void)state;
    three(1, 2, 0);
    r1.hook = r2.hook = check_current;
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_current_task(), 0);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_current_task(), 0);
    assert_log("A:0 B:1");
}

/* A (3) -> B (3) runs at once; B -> A would preempt (3 >= 3) but A is on the
 * stack: queued until A returns. */
static void test_no_reentry(void **state)
{
    (void)state;
    three(3, 3, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 1, CAIRN_PORT(7)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:0 B:send B:back A:back A:7");
}

/* A task sending to itself: queued, runs after it returns. */
static void test_send_to_self(void **state)
{
    (void)state;
    three(3, 0, 0);
    assert_int_equal(cairn_route_set(1, 0, 1, CAIRN_PORT(5)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send A:back A:5");
}

/* A (1) -> B (5) at once; B -> C (3) queued; when B returns, C outranks A
 * (below): C runs before A resumes. */
static void test_return_dispatches_what_outranks_below(void **state)
{
    (void)state;
    three(1, 5, 3);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 3, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:0 B:send B:back C:1 A:back");
}

/* The same with C (2) below A (3): A resumes first, C runs after A returns. */
static void test_return_keeps_lower_queued(void **state)
{
    (void)state;
    three(3, 5, 2);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 3, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:0 B:send B:back A:back C:1");
}

/* Equal to what is below is not enough ("outranks" is strict). */
static void test_return_equal_waits(void **state)
{
    (void)state;
    three(3, 5, 3);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 3, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:0 B:send B:back A:back C:1");
}

/* A chain of increasing priorities nests on the stack and unwinds in order. */
static void test_nested_chain(void **state)
{
    (void)state;
    three(1, 2, 3);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 3, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(3, 0, 1, CAIRN_PORT(2)), CAIRN_OK); /* A on stack */
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("A:0 A:send B:0 B:send C:0 C:send C:back B:back A:back A:2");
}

/* A send from main/idle (nothing on the stack) runs the handler at once. */
static void test_send_from_idle_runs(void **state)
{
    (void)state;
    three(0, 0, 0);
    assert_int_equal(cairn_post(2, CAIRN_PORT(3), NULL, 0), CAIRN_OK);
    assert_log("B:3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_higher_runs_at_once),
        KTEST(test_equal_priority_preempts),
        KTEST(test_lower_is_queued),
        KTEST(test_current_task),
        KTEST(test_no_reentry),
        KTEST(test_send_to_self),
        KTEST(test_return_dispatches_what_outranks_below),
        KTEST(test_return_keeps_lower_queued),
        KTEST(test_return_equal_waits),
        KTEST(test_nested_chain),
        KTEST(test_send_from_idle_runs),
    };
    return cmocka_run_group_tests_name("preempt", tests, NULL, NULL);
}
