/*
 * Output-port routing: sends name output ports, the table is changed at run
 * time, unconnected ports and bad arguments are refused and counted.
 */
#include "ktest.h"

static struct rec s, a, b;

static void send_0(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0))
        klog("ret=%d", cairn_send(0, "hi", 3));
}

static void setup_tasks(void)
{
    s = (struct rec){.name = "S", .hook = send_0};
    a = (struct rec){.name = "A"};
    b = (struct rec){.name = "B"};
    static const cairn_route_t routes[] = {{.task = 2, .port = CAIRN_PORT(7)}, {0, 0}};
    assert_int_equal(cairn_task_create(1, rec_handler, &s, 1, routes, 2, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    rec_task(2, &a, 2, 0);
    rec_task(3, &b, 2, 0);
    klog_reset();
}

static void test_route_change_at_run_time(void **state)
{
    (void)state;
    setup_tasks();
    cairn_route_t r;
    assert_int_equal(cairn_route_get(1, 0, &r), CAIRN_OK);
    assert_int_equal(r.task, 2);
    assert_int_equal(r.port, CAIRN_PORT(7));
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_route_set(1, 0, 3, CAIRN_PORT(8)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 A:7 ret=0 S:0 B:8 ret=0");
}

/* A handler may rewire the sender's table; the next send follows it. */
static void rewire(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    (void)msg;
    assert_int_equal(cairn_route_set(1, 0, 3, CAIRN_PORT(9)), CAIRN_OK);
}

static void test_rewire_from_receiver(void **state)
{
    (void)state;
    setup_tasks();
    a.hook = rewire;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 A:7 ret=0 S:0 B:9 ret=0");
}

/* A queued message keeps the destination it was sent to. */
static void test_queued_keeps_destination(void **state)
{
    (void)state;
    setup_tasks();
    cairn_isr_enter(16);
    assert_int_equal(cairn_send_from(1, 0, NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_route_set(1, 0, 3, CAIRN_PORT(8)), CAIRN_OK);
    cairn_isr_exit();
    assert_log("A:7");
}

static void test_unconnected_and_bad_ports(void **state)
{
    (void)state;
    setup_tasks();
    cairn_sched_stats_t st;
    assert_int_equal(cairn_send_from(1, 1, NULL, 0), CAIRN_ENOROUTE); /* unconnected */
    assert_int_equal(cairn_send_from(1, 2, NULL, 0), CAIRN_EINVAL);   /* beyond the table */
    assert_int_equal(cairn_send_from(9, 0, NULL, 0), CAIRN_EINVAL);   /* no such task */
    assert_int_equal(cairn_send_from(1, 0, NULL, 0x10000), CAIRN_EINVAL);
    assert_int_equal(cairn_post(9, CAIRN_PORT(0), NULL, 0), CAIRN_ENOROUTE);
    assert_int_equal(cairn_post(2, CAIRN_PORT_INIT, NULL, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_post(2, CAIRN_PORT_LIMIT, NULL, 0), CAIRN_EINVAL);
    cairn_sched_stats(&st);
    assert_int_equal(st.no_route, 2);

    assert_int_equal(cairn_route_set(1, 2, 2, CAIRN_PORT(0)), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(9, 0, 2, CAIRN_PORT(0)), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(1, 0, CAIRN_MAX_TASKS + 1, CAIRN_PORT(0)), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT_LIMIT), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT_INIT), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(1, 0, CAIRN_TASK_MCAST, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_route_set(1, 0, CAIRN_TASK_MCAST, CAIRN_MAX_GROUPS + 1), CAIRN_EINVAL);
    cairn_route_t r;
    assert_int_equal(cairn_route_get(1, 2, &r), CAIRN_EINVAL);
    /* A route to a task that does not exist (yet) is allowed; sending fails. */
    assert_int_equal(cairn_route_set(1, 1, 12, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_send_from(1, 1, NULL, 0), CAIRN_ENOROUTE);
    /* Disconnecting. */
    assert_int_equal(cairn_route_set(1, 0, CAIRN_TASK_NONE, 55), CAIRN_OK);
    assert_int_equal(cairn_route_get(1, 0, &r), CAIRN_OK);
    assert_int_equal(r.task, 0);
    assert_int_equal(r.port, 0);
    assert_int_equal(cairn_send_from(1, 0, NULL, 0), CAIRN_ENOROUTE);
    assert_log("");
}

/* Task creation arguments. */
static void test_create_arguments(void **state)
{
    (void)state;
    struct rec x = {.name = "X"};
    assert_int_equal(cairn_task_create(0, rec_handler, &x, 1, NULL, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_task_create(CAIRN_MAX_TASKS + 1, rec_handler, &x, 1, NULL, 0, 0),
                     CAIRN_EINVAL);
    assert_int_equal(cairn_task_create(1, NULL, &x, 1, NULL, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_task_create(1, rec_handler, &x, 255, NULL, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_task_free_id(), 1);
    assert_int_equal(cairn_task_create(1, rec_handler, &x, 1, NULL, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_create(1, rec_handler, &x, 1, NULL, 0, 0), CAIRN_EBUSY);
    assert_int_equal(cairn_task_free_id(), 2);
    assert_true(cairn_task_exists(1));
    assert_false(cairn_task_exists(2));
    assert_int_equal(cairn_task_prio(1), 1);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_EINVAL); /* INIT only once */
    assert_int_equal(cairn_task_init(2, NULL, 0), CAIRN_EINVAL);
    for (cairn_task_id_t id = 2; id <= CAIRN_MAX_TASKS; id++)
        assert_int_equal(cairn_task_create(id, rec_handler, &x, 1, NULL, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_free_id(), 0);
    assert_log("X:INIT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_route_change_at_run_time),
        KTEST(test_rewire_from_receiver),
        KTEST(test_queued_keeps_destination),
        KTEST(test_unconnected_and_bad_ports),
        KTEST(test_create_arguments),
    };
    return cmocka_run_group_tests_name("route", tests, NULL, NULL);
}
