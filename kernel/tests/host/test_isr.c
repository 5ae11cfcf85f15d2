/*
 * Sends from interrupt handlers: always queued while in the handler; on exit
 * from the outermost handler, what STRICTLY outranks the interrupted task runs;
 * equal priority waits for the interrupted task. Timers fire the same way.
 */
#include "ktest.h"

#include "hwtimer.h"

static struct rec t, u, v;

static void irq_posts_u_v(void *arg)
{
    (void)arg;
    assert_true(cairn_in_isr());
    assert_int_equal(cairn_current_task(), 0);
    assert_int_equal(cairn_post(2, CAIRN_PORT(1), NULL, 0), CAIRN_OK); /* U: equal to T */
    assert_int_equal(cairn_post(3, CAIRN_PORT(2), NULL, 0), CAIRN_OK); /* V: above T */
    klog("irq");
}

/* T's handler is "interrupted" half-way. */
static void t_interrupted(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    ktest_irq(irq_posts_u_v, NULL);
    klog("T:after");
    assert_int_equal(cairn_current_task(), 1);
}

static void tasks(cairn_prio_t pt, cairn_prio_t pu, cairn_prio_t pv)
{
    t = (struct rec){.name = "T", .hook = t_interrupted};
    u = (struct rec){.name = "U"};
    v = (struct rec){.name = "V"};
    rec_task(1, &t, pt, 0);
    rec_task(2, &u, pu, 0);
    rec_task(3, &v, pv, 0);
    klog_reset();
}

static void test_strictly_higher_preempts_at_exit(void **state)
{
    (void)state;
    tasks(3, 3, 4);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("T:0 irq V:2 T:after U:1");
}

static void test_lower_waits(void **state)
{
    (void)state;
    tasks(5, 1, 2);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("T:0 irq T:after V:2 U:1");
}

/* From idle, anything outranks: all run at exit, by priority. */
static void test_from_idle(void **state)
{
    (void)state;
    tasks(3, 0, 1);
    ktest_irq(irq_posts_u_v, NULL);
    assert_log("irq V:2 U:1");
}

/* Nested interrupts: nothing runs until the outermost one exits. */
static void inner(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_post(3, CAIRN_PORT(5), NULL, 0), CAIRN_OK);
    klog("inner");
}

static void outer(void *arg)
{
    (void)arg;
    ktest_irq(inner, NULL);
    klog("outer");
    assert_int_equal(cairn_post(2, CAIRN_PORT(6), NULL, 0), CAIRN_OK);
}

static void test_nested_interrupts(void **state)
{
    (void)state;
    tasks(3, 7, 6);
    ktest_irq(outer, NULL);
    assert_log("inner outer U:6 V:5");
}

/* A send through a driver task's output port from its interrupt handler. */
static void driver_isr(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_send(0, NULL, 0), CAIRN_EINVAL); /* no running task */
    assert_int_equal(cairn_send_from(2, 0, "x", 1), CAIRN_OK);
}

static void test_send_from_driver(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    u = (struct rec){.name = "U"};
    rec_task(1, &t, 3, 0);
    rec_task(2, &u, 9, 1);
    assert_int_equal(cairn_route_set(2, 0, 1, CAIRN_PORT(4)), CAIRN_OK);
    klog_reset();
    ktest_irq(driver_isr, NULL);
    assert_log("T:4");
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.no_route, 0);
}

/* A dispatch requested while interrupts are masked (as when the idle loop
 * sleeps) waits until they are unmasked: PendSV semantics. */
static void wake_irq(uint32_t ticks)
{
    (void)ticks;
    ktest_irq(inner, NULL);
    klog("hook-end");
}

static void test_dispatch_deferred_while_masked(void **state)
{
    (void)state;
    tasks(1, 1, 1);
    cairn_host_set_idle_hook(wake_irq);
    cairn_idle();
    assert_log("inner hook-end V:5");
    assert_int_equal(cairn_host_idle_calls(), 1);
}

/* Virtual timers: the hardware timer interrupt fires TIMEOUTn messages. */
static void start_timers(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT) {
        assert_int_equal(cairn_timer_start(0, 100, true), CAIRN_OK);
        assert_int_equal(cairn_timer_start(2, 250, false), CAIRN_OK);
    }
}

static void test_timer_messages(void **state)
{
    (void)state;
    t = (struct rec){.name = "T", .hook = start_timers};
    rec_task(1, &t, 2, 0);
    klog_reset();
    host_timer_advance(99);
    assert_log("");
    host_timer_advance(1);
    assert_log("T:T0");
    host_timer_advance(200);
    assert_log("T:T0 T:T0 T:T2 T:T0"); /* at 200, 250, 300 */
    assert_int_equal(cairn_timer_next_expiry(), 100);
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), 100);
    uint32_t words[64];
    size_t n = ktest_trace(words, 64);
    unsigned timers = 0;
    for (size_t i = 0; i < n; i++)
        timers += CAIRN_TRACE_EVENT(words[i]) == CAIRN_EV_TIMER;
    assert_int_equal(timers, 4);
}

/* A timer that fires while its task's lower-priority neighbour runs: the
 * timer message preempts only a strictly lower priority. */
static void advance_in_handler(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0)) {
        host_timer_advance(10);
        klog("%s:after", r->name);
    }
}

static void start_short(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT)
        assert_int_equal(cairn_timer_start(1, 5, false), CAIRN_OK);
}

static void test_timer_preempts_strictly(void **state)
{
    (void)state;
    t = (struct rec){.name = "T", .hook = advance_in_handler};
    u = (struct rec){.name = "U", .hook = start_short};
    rec_task(1, &t, 4, 0);
    rec_task(2, &u, 5, 0);
    klog_reset();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("T:0 U:T1 T:after");

    assert_int_equal(cairn_task_kill(2), CAIRN_OK);
    u = (struct rec){.name = "U", .hook = start_short};
    rec_task(2, &u, 4, 0);
    klog_reset();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("T:0 T:after U:T1");
}

/* Timer firings inside one interrupt run by priority once it exits (the port
 * brackets its timer interrupt with cairn_isr_enter/exit). */
static void test_timer_fired_in_interrupt(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    u = (struct rec){.name = "U"};
    rec_task(1, &t, 2, 0);
    rec_task(2, &u, 6, 0);
    klog_reset();
    cairn_isr_enter(24);
    cairn_timer_fired(1, 0);
    cairn_timer_fired(2, 3);
    cairn_timer_fired(2, 4); /* no such timer: ignored */
    klog("irq");
    cairn_isr_exit();
    assert_log("irq U:T3 T:T0");
    /* Outside an interrupt, a firing acts as its own interrupt. */
    klog_reset();
    cairn_timer_fired(1, 1);
    assert_log("T:T1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_strictly_higher_preempts_at_exit),
        KTEST(test_lower_waits),
        KTEST(test_from_idle),
        KTEST(test_nested_interrupts),
        KTEST(test_send_from_driver),
        KTEST(test_dispatch_deferred_while_masked),
        KTEST(test_timer_messages),
        KTEST(test_timer_preempts_strictly),
        KTEST(test_timer_fired_in_interrupt),
    };
    return cmocka_run_group_tests_name("isr", tests, NULL, NULL);
}
