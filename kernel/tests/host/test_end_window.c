/*
 * A handler's end as an interrupt sees it: a release of the ending task that arrives
 * while the task leaves the stack (its message held back until then) runs before the
 * lower levels queued meanwhile, as at every scheduling point the highest-priority
 * ready message runs. The interrupt comes at the kernel's ARCH_IRQ_WINDOW, between
 * the two stores of the end: the task ready again, its frame off the stack. An
 * interrupt there that writes the ending frame's below (as the armv6m fast path does for
 * the binding of a task ready alone before it declines on the level) leaves the stack as
 * the end found it.
 */
#include "ktest.h"

#include "../../core/kernel.h"
#include "cairn/timer.h"

enum { HIGH = 1, LOW = 2 };

static struct rec high, low;

/* The timer interrupt that releases the high task's next job. */
static void release_high(void)
{
    cairn_timer_fired(HIGH, 0);
}

/* The high task's first job queues work for the low task and ends as its next release
 * arrives. */
static void first_job(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    assert_int_equal(cairn_post(LOW, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_host_irq_window_set(release_high);
}

static void test_release_at_the_end_runs_before_lower(void **state)
{
    (void)state;
    high = (struct rec){.name = "H", .hook = first_job};
    low = (struct rec){.name = "L"};
    rec_task(HIGH, &high, 5, 0);
    rec_task(LOW, &low, 1, 0);
    klog_reset();
    assert_int_equal(cairn_post(HIGH, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("H:0 H:T0 L:0");
}

/* Without an interrupt in the window the order is the same (the test's control). */
static void test_release_after_the_end_runs_before_lower(void **state)
{
    (void)state;
    high = (struct rec){.name = "H"};
    low = (struct rec){.name = "L"};
    rec_task(HIGH, &high, 5, 0);
    rec_task(LOW, &low, 1, 0);
    klog_reset();
    cairn_isr_enter(0);
    assert_int_equal(cairn_post(LOW, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_timer_fired(HIGH, 0);
    cairn_isr_exit();
    assert_log("H:T0 L:0");
}

/* What cairn__irq_fast does in the window for an interrupt bound to the ending task: the
 * binding's frame (here the ending frame) is the top, its below written with the top,
 * then the level test declines. */
static void fast_path_declines(void)
{
    cairn_k.top->below = cairn_k.top;
}

static void first_job_then_decline(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    assert_int_equal(cairn_post(LOW, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_host_irq_window_set(fast_path_declines);
}

static void test_a_below_written_in_the_window_leaves_the_stack_as_it_was(void **state)
{
    (void)state;
    high = (struct rec){.name = "H", .hook = first_job_then_decline};
    low = (struct rec){.name = "L"};
    rec_task(HIGH, &high, 5, 0);
    rec_task(LOW, &low, 1, 0);
    klog_reset();
    assert_int_equal(cairn_post(HIGH, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_null(cairn_k.top);
    assert_log("H:0 L:0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_release_at_the_end_runs_before_lower),
        KTEST(test_release_after_the_end_runs_before_lower),
        KTEST(test_a_below_written_in_the_window_leaves_the_stack_as_it_was),
    };
    return cmocka_run_group_tests_name("end_window", tests, NULL, NULL);
}
