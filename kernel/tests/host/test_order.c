/*
 * Message order: by destination priority, then creation order.
 */
#include "ktest.h"

static struct rec a = {.name = "A"}, b = {.name = "B"}, c = {.name = "C"}, e = {.name = "E"};
static struct rec d = {.name = "D"};

/* D (priority 10) posts to lower-priority tasks: everything is queued and runs
 * after D returns, highest priority first, creation order within a priority. */
static void d_posts(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    assert_int_equal(cairn_post(1, CAIRN_PORT(1), NULL, 0), CAIRN_OK); /* A p3 */
    assert_int_equal(cairn_post(2, CAIRN_PORT(2), NULL, 0), CAIRN_OK); /* B p5 */
    assert_int_equal(cairn_post(3, CAIRN_PORT(3), NULL, 0), CAIRN_OK); /* C p5 */
    assert_int_equal(cairn_post(1, CAIRN_PORT(4), NULL, 0), CAIRN_OK); /* A p3 */
    assert_int_equal(cairn_post(4, CAIRN_PORT(5), NULL, 0), CAIRN_OK); /* E p1 */
    assert_int_equal(cairn_post(2, CAIRN_PORT(6), NULL, 0), CAIRN_OK); /* B p5 */
    assert_int_equal(cairn_post(3, CAIRN_PORT(7), NULL, 0), CAIRN_OK); /* C p5 */
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.queued, 7);
    klog("D:end");
}

static void setup_tasks(void)
{
    a = (struct rec){.name = "A"};
    b = (struct rec){.name = "B"};
    c = (struct rec){.name = "C"};
    e = (struct rec){.name = "E"};
    d = (struct rec){.name = "D", .hook = d_posts};
    rec_task(1, &a, 3, 0);
    rec_task(2, &b, 5, 0);
    rec_task(3, &c, 5, 0);
    rec_task(4, &e, 1, 0);
    rec_task(5, &d, 10, 0);
    klog_reset();
}

static void test_priority_then_creation(void **state)
{
    (void)state;
    setup_tasks();
    assert_int_equal(cairn_post(5, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("D:0 D:end B:2 C:3 B:6 C:7 A:1 A:4 E:5");
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.queued, 0);
    assert_int_equal(st.queued_peak, 7);
}

/* The same order when the messages come from an interrupt handler. */
static void isr_posts(void *arg)
{
    (void)arg;
    static const cairn_task_id_t to[] = {4, 1, 2, 3, 1, 2};
    for (unsigned i = 0; i < CAIRN_COUNT(to); i++)
        assert_int_equal(cairn_post(to[i], CAIRN_PORT(i), NULL, 0), CAIRN_OK);
    klog("irq:end");
}

static void test_order_from_interrupt(void **state)
{
    (void)state;
    setup_tasks();
    ktest_irq(isr_posts, NULL);
    assert_log("irq:end B:2 C:3 B:5 A:1 A:4 E:0");
}

/* A message to a task that cannot run yet keeps its place; later messages of
 * the same priority for other tasks pass it, and it runs in creation order
 * among its own task's messages once the task is ready. */
static void test_blocked_message_keeps_place(void **state)
{
    (void)state;
    setup_tasks();
    struct rec u = {.name = "U"};
    rec_task_uninit(6, &u, 5, 0); /* priority 5, no INIT yet */
    klog_reset();
    ktest_irq(isr_posts, NULL); /* B, C messages as before */
    klog("|");
    cairn_isr_enter(16);
    assert_int_equal(cairn_post(6, CAIRN_PORT(9), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(2, CAIRN_PORT(10), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(6, CAIRN_PORT(11), NULL, 0), CAIRN_OK);
    cairn_isr_exit();
    assert_log("irq:end B:2 C:3 B:5 A:1 A:4 E:0 | B:10");
    klog_reset();
    assert_int_equal(cairn_task_init(6, NULL, 0), CAIRN_OK);
    assert_log("U:INIT U:9 U:11");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_priority_then_creation),
        KTEST(test_order_from_interrupt),
        KTEST(test_blocked_message_keeps_place),
    };
    return cmocka_run_group_tests_name("order", tests, NULL, NULL);
}
