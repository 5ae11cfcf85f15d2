/* The TinyOS-like model: FIFO order, capacity, posting from tasks and interrupts, the
 * sleep decision and its race, the virtual timers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fake_port.h"
#include "tinyos.h"

static struct tos_sched s;
static char log_buf[64];
static size_t log_len;

static void note(void *arg)
{
    log_buf[log_len++] = (char)(uintptr_t)arg;
    log_buf[log_len] = 0;
}

static int setup(void **state)
{
    (void)state;
    fake_port_reset();
    tos_init(&s);
    log_len = 0;
    log_buf[0] = 0;
    return 0;
}

static void fifo_order(void **state)
{
    (void)state;
    assert_true(tos_post(&s, note, (void *)'a'));
    assert_true(tos_post(&s, note, (void *)'b'));
    assert_true(tos_post(&s, note, (void *)'c'));
    while (tos_run_next_task(&s))
        ;
    assert_string_equal(log_buf, "abc");
    assert_int_equal(s.ran, 3);
}

static void full_queue_refuses(void **state)
{
    (void)state;
    for (unsigned i = 0; i < TOS_QUEUE_LEN; i++)
        assert_true(tos_post(&s, note, (void *)(uintptr_t)('0' + i)));
    assert_false(tos_post(&s, note, (void *)'X'));
    assert_false(tos_post(&s, NULL, NULL));
    assert_int_equal(s.rejected, 2);
    assert_int_equal(tos_queued(&s), TOS_QUEUE_LEN);
    /* The refused posts left the queue intact; it wraps around correctly. */
    assert_true(tos_run_next_task(&s));
    assert_true(tos_post(&s, note, (void *)'Z'));
    while (tos_run_next_task(&s))
        ;
    assert_string_equal(log_buf, "01234567Z");
}

static void poster(void *arg)
{
    note(arg);
    if ((char)(uintptr_t)arg == 'a')
        tos_post(&s, note, (void *)'c'); /* behind b: FIFO, not LIFO */
}

static void task_posts_task(void **state)
{
    (void)state;
    tos_post(&s, poster, (void *)'a');
    tos_post(&s, poster, (void *)'b');
    fake_interrupt = NULL;
    while (tos_run_next_task(&s))
        ;
    assert_string_equal(log_buf, "abc");
}

static void irq_posts(void)
{
    tos_post(&s, note, (void *)'i');
}

static void sleeps_only_when_empty_and_masked(void **state)
{
    (void)state;
    tos_post(&s, note, (void *)'a');
    fake_interrupt = irq_posts;
    tos_run_task(&s); /* runs a, then sleeps; the interrupt posts i */
    assert_int_equal(s.sleeps, 1);
    assert_int_equal(fake_waits, 1);
    assert_int_equal(fake_waits_unmasked, 0);
    assert_string_equal(log_buf, "a");
    tos_run_task(&s); /* runs i, sleeps again */
    assert_string_equal(log_buf, "ai");
    assert_int_equal(s.sleeps, 2);
    assert_int_equal(fake_irq_depth, 0);
}

/* A post that lands after the last task ran but before the sleep decision: tos_run_task
 * must not sleep. The task posts from "interrupt context" as its last act. */
static void late_post(void *arg)
{
    note(arg);
    fake_interrupt = NULL;
}

static void no_sleep_with_work(void **state)
{
    (void)state;
    tos_post(&s, late_post, (void *)'x');
    tos_post(&s, note, (void *)'y');
    tos_run_task(&s);
    assert_string_equal(log_buf, "xy");
    assert_int_equal(s.sleeps, 1); /* only after both ran */
}

static volatile bool stop_flag;
static void stopper(void *arg)
{
    note(arg);
    stop_flag = true;
}
static void irq_posts_stopper(void)
{
    tos_post(&s, stopper, (void *)'s');
}

/* tos_run: the last task sets stop; the loop must return without sleeping on it. */
static void run_returns_on_stop(void **state)
{
    (void)state;
    stop_flag = false;
    tos_post(&s, note, (void *)'a');
    fake_interrupt = irq_posts_stopper; /* the one sleep's wake posts the stopper */
    tos_run(&s, &stop_flag);
    assert_string_equal(log_buf, "as");
    assert_int_equal(s.sleeps, 1);
    assert_int_equal(fake_waits_unmasked, 0);
}

static bool armed;
static uint32_t armed_at;
static void arm(void *ctx, bool on, uint32_t at)
{
    (void)ctx;
    armed = on;
    armed_at = at;
}

static void timers_multiplex(void **state)
{
    (void)state;
    struct tos_timers t;
    struct tos_timer fast = {0}, slow = {0}, once = {0};
    tos_timers_init(&t, &s, arm, NULL);
    assert_true(tos_timer_start(&t, &slow, 0, 10, 10, note, (void *)'s'));
    assert_true(armed);
    assert_int_equal(armed_at, 10);
    assert_true(tos_timer_start(&t, &fast, 0, 4, 4, note, (void *)'f'));
    assert_int_equal(armed_at, 4);
    assert_true(tos_timer_start(&t, &once, 0, 6, 0, note, (void *)'o'));
    assert_false(tos_timer_start(&t, &once, 0, 6, 0, NULL, NULL));
    for (uint32_t now = 1; now <= 20; now++) {
        if (armed && now == armed_at)
            tos_timers_fired(&t, now);
        while (tos_run_next_task(&s))
            ;
    }
    /* f@4 o@6 f@8 s@10 f@12 f@16 s@20 f@20 (s was started first: equal times keep order) */
    assert_string_equal(log_buf, "fofsffsf");
    assert_int_equal(fast.fired, 5);
    assert_int_equal(once.fired, 1);
    assert_false(once.active);
    tos_timer_stop(&t, &fast);
    tos_timer_stop(&t, &slow);
    assert_false(armed);
}

static void timer_lost_when_queue_full(void **state)
{
    (void)state;
    struct tos_timers t;
    struct tos_timer tm = {0};
    tos_timers_init(&t, &s, arm, NULL);
    for (unsigned i = 0; i < TOS_QUEUE_LEN; i++)
        tos_post(&s, note, (void *)'q');
    tos_timer_start(&t, &tm, 100, 5, 5, note, (void *)'t');
    tos_timers_fired(&t, 115); /* late: 105, 110 and 115 are all past */
    assert_int_equal(tm.fired, 3);
    assert_int_equal(tm.lost, 3);
    assert_int_equal(armed_at, 120);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(fifo_order, setup),
        cmocka_unit_test_setup(full_queue_refuses, setup),
        cmocka_unit_test_setup(task_posts_task, setup),
        cmocka_unit_test_setup(sleeps_only_when_empty_and_masked, setup),
        cmocka_unit_test_setup(no_sleep_with_work, setup),
        cmocka_unit_test_setup(run_returns_on_stop, setup),
        cmocka_unit_test_setup(timers_multiplex, setup),
        cmocka_unit_test_setup(timer_lost_when_queue_full, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
