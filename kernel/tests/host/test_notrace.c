/*
 * With CAIRN_TRACE_ENABLED=0 (this test links the kernel built that way) the
 * event log compiles to nothing: a busy scenario leaves the ring empty.
 */
#include "ktest.h"

#if CAIRN_TRACE_ENABLED
#error "test_notrace must be built with CAIRN_TRACE_ENABLED=0"
#endif

static struct rec a, b;

static void send_0(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0))
        assert_int_equal(cairn_send(0, NULL, 0), CAIRN_OK);
}

static void test_nothing_logged(void **state)
{
    (void)state;
    a = (struct rec){.name = "A", .hook = send_0};
    b = (struct rec){.name = "B"};
    rec_task(1, &a, 1, 1);
    rec_task(2, &b, 2, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_isr_enter(3);
    assert_int_equal(cairn_post(2, CAIRN_PORT(2), NULL, 0), CAIRN_OK);
    cairn_isr_exit();
    cairn_idle();
    assert_int_equal(cairn_task_kill(1), CAIRN_OK);
    CAIRN_TRACE(CAIRN_EV_USER, 1, 2);
    assert_log("A:INIT B:INIT A:0 B:1 B:2 A:FINAL");
    assert_int_equal(cairn_trace_host_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_nothing_logged),
    };
    return cmocka_run_group_tests_name("notrace", tests, NULL, NULL);
}
