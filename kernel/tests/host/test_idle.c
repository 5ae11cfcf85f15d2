/*
 * The idle loop: dispatches what is queued, and otherwise calls arch_idle with
 * the time to the next timer expiry and the sleep state chosen for it
 * (test_sleep.c tests the choice).
 */
#include "ktest.h"

#include "hwtimer.h"

static struct rec t;

static void test_idle_no_timer(void **state)
{
    (void)state;
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_int_equal(cairn_host_idle_last_ticks(), UINT32_MAX);
}

static void test_idle_runs_queued_first(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    rec_task_uninit(1, &t, 2, 0);
    assert_int_equal(cairn_post(1, CAIRN_PORT(3), NULL, 0), CAIRN_OK); /* buffered */
    cairn_idle(); /* a message that cannot run does not keep the CPU awake */
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_log("");
    /* INIT queued from an interrupt: the idle loop runs it, then the buffered one. */
    cairn_isr_enter(16);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    cairn_isr_exit();
    assert_log("T:INIT T:3");
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), 2);
}

static void start_timer(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT)
        assert_int_equal(cairn_timer_start(1, 300, false), CAIRN_OK);
}

/* The "interrupt during sleep": the timer expires while idle. */
static void sleep_until_timer(uint32_t ticks)
{
    host_timer_advance(ticks);
    klog("woke");
}

static void test_idle_until_timer(void **state)
{
    (void)state;
    t = (struct rec){.name = "T", .hook = start_timer};
    rec_task(1, &t, 2, 0);
    klog_reset();
    host_timer_advance(100);
    cairn_host_set_idle_hook(sleep_until_timer);
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), 200);
    assert_log("woke T:T1"); /* the handler runs after the wake-up, not inside arch_idle */
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), UINT32_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_idle_no_timer),
        KTEST(test_idle_runs_queued_first),
        KTEST(test_idle_until_timer),
    };
    return cmocka_run_group_tests_name("idle", tests, NULL, NULL);
}
