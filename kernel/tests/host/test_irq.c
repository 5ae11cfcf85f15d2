/*
 * Interrupts bound to messages (cairn/irq.h) on the host port, where the vector
 * is the general path: mask a level-sensitive line, then send like an interrupt
 * handler (queued inside it; what strictly outranks the interrupted task runs at
 * exit). The kernel keeps each binding's view of its task (the armv6m fast path
 * reads it) up to date across creation, kill and re-initialisation.
 */
#include "ktest.h"

CAIRN_IRQ_MESSAGE(vec_level, 5, 2, CAIRN_PORT(1))
CAIRN_IRQ_MESSAGE_EDGE(vec_edge, 6, 3, CAIRN_PORT(2))

static struct rec t, u, v;

static void t_interrupted(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    vec_level(); /* U: equal to T, waits */
    vec_edge();  /* V: above T, runs when the interrupt exits */
    klog("T:after");
}

static void tasks(void)
{
    t = (struct rec){.name = "T", .hook = t_interrupted};
    u = (struct rec){.name = "U"};
    v = (struct rec){.name = "V"};
    rec_task(1, &t, 3, 0);
    rec_task(2, &u, 3, 0);
    rec_task(3, &v, 4, 0);
    klog_reset();
}

static void test_level_masks_edge_does_not(void **state)
{
    (void)state;
    tasks();
    cairn_irq_unmask(5);
    vec_level();
    assert_log("U:1");
    assert_true(cairn_host_irq_masked(5));
    cairn_irq_unmask(5);
    assert_false(cairn_host_irq_masked(5));
    vec_edge();
    assert_log("U:1 V:2");
    assert_false(cairn_host_irq_masked(6));
}

static void test_preemption_rules(void **state)
{
    (void)state;
    tasks();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("T:0 V:2 T:after U:1");
}

static void test_binding_follows_its_task(void **state)
{
    (void)state;
    assert_null(vec_level_binding.frame.tcb);
    cairn_sched_stats_t st;
    vec_level(); /* no task 2 yet: dropped and counted */
    cairn_sched_stats(&st);
    assert_int_equal(st.no_route, 1);
    u = (struct rec){.name = "U"};
    rec_task_uninit(2, &u, 7, 0);
    assert_non_null(vec_level_binding.frame.tcb);
    assert_int_equal(vec_level_binding.frame.prio, 7);
    assert_int_equal(vec_level_binding.frame.msg.prio, 7);
    klog_reset();
    vec_level(); /* not initialised: buffered */
    assert_log("");
    assert_int_equal(cairn_task_init(2, NULL, 0), CAIRN_OK);
    assert_log("U:INIT U:1");
    assert_int_equal(cairn_task_kill(2), CAIRN_OK);
    assert_null(vec_level_binding.frame.tcb);
    /* A new kernel forgets every task, and so does every binding. */
    rec_task(2, &u, 2, 0);
    assert_non_null(vec_level_binding.frame.tcb);
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    assert_null(vec_level_binding.frame.tcb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_level_masks_edge_does_not, ktest_setup, ktest_teardown),
        cmocka_unit_test_setup_teardown(test_preemption_rules, ktest_setup, ktest_teardown),
        cmocka_unit_test_setup_teardown(test_binding_follows_its_task, ktest_setup, ktest_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
