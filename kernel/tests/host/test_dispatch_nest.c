/*
 * A dispatch loop between handlers, as an interrupt sees it: the loop dequeues again
 * before it runs anything else, so an interrupt that posts there leaves its message to
 * that dequeue instead of nesting another dispatch. A task kept saturated by an interrupt
 * that posts its next job at every gap (the kernel's ARCH_IRQ_WINDOW, re-armed by the
 * interrupt itself) once nested one dispatch per interrupt: the stack grew without bound
 * while the loop never found the queue empty.
 */
#include "ktest.h"

#include "../../core/kernel.h"

enum { SAT = 2, HIGH = 3 };
enum { IRQS = 200 };

static struct rec sat, high;
static unsigned irqs;          /* interrupts that posted */
static uintptr_t job2_frame;   /* the saturated handler's frame in its second job */
static uintptr_t lowest_frame; /* its deepest frame in any later job */

static unsigned refused; /* posts the pool refused: nested dispatches that never dequeued */

static void post_sat(void *arg)
{
    (void)arg;
    refused += cairn_post(SAT, CAIRN_PORT(1), NULL, 0) != CAIRN_OK;
}

/* At every gap of the loop (the stack empty below it), an interrupt posts the saturated
 * task's next job, until IRQS of them: the loop never finds the queue empty while the storm
 * lasts. The end's window inside each job (its frame still the top) is passed over. */
static void storm(void)
{
    bool gap = !cairn_k.top;
    irqs += gap;
    /* Armed again first: a dispatch the interrupt starts runs inside it. */
    if (irqs < IRQS)
        cairn_host_irq_window_set(storm);
    if (gap)
        ktest_irq(post_sat, 0);
}

static void saturated_job(struct rec *r, cairn_msg_t *msg)
{
    (void)msg;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (r->count == 2)
        job2_frame = here;
    if (r->count >= 2 && here < lowest_frame)
        lowest_frame = here;
}

static void saturate(rec_hook_t hook)
{
    sat = (struct rec){.name = "S", .hook = hook};
    rec_task(SAT, &sat, 3, 0);
    sat.count = 0;
    irqs = 0;
    refused = 0;
    job2_frame = 0;
    lowest_frame = UINTPTR_MAX;
    klog_reset();
}

static void test_a_storm_in_the_gaps_does_not_nest(void **state)
{
    (void)state;
    saturate(saturated_job);
    cairn_host_irq_window_set(storm);
    assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_host_irq_window_set(0);
    assert_int_equal(irqs, IRQS);
    /* Every message ran, and every job but the first (started by the post itself) from the
     * same dispatch loop, at the same depth. */
    assert_int_equal(refused, 0);
    assert_int_equal(sat.count, 1 + IRQS);
    assert_true(job2_frame != 0);
    assert_int_equal(lowest_frame, job2_frame);
    assert_null(cairn_k.queue);
}

/* The loop that found the queue empty and returned leaves no mark: an interrupt after it
 * has its message dispatched at once. */
static void test_after_the_loop_an_interrupt_dispatches(void **state)
{
    (void)state;
    saturate(saturated_job);
    assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    int before = sat.count;
    assert_null(cairn_k.top);
    ktest_irq(post_sat, 0);
    assert_int_equal(sat.count, before + 1);
}

/* A message that outranks the saturated task, posted in a gap, runs before its next job:
 * the loop's dequeue takes the best message. */
static void post_high(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_post(HIGH, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
}

/* The second window: the first is the end's (the job's frame still the top, which H
 * outranks: H would run above it), the second the loop's gap. */
static unsigned windows;

static void high_in_the_gap(void)
{
    if (++windows < 2) {
        cairn_host_irq_window_set(high_in_the_gap);
        return;
    }
    assert_null(cairn_k.top);
    ktest_irq(post_high, 0);
}

static void two_jobs(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT(0) && r->count == 1)
        assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
}

static void test_a_higher_message_in_the_gap_runs_first(void **state)
{
    (void)state;
    high = (struct rec){.name = "H"};
    rec_task(HIGH, &high, 5, 0);
    saturate(two_jobs);
    windows = 0;
    cairn_host_irq_window_set(high_in_the_gap);
    assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_host_irq_window_set(0);
    assert_int_equal(windows, 2);
    assert_log("S:0 H:0 S:0");
}

/* The mark is the loop's level only: an interrupt inside a handler the loop runs still
 * starts what outranks that handler at once. */
static void high_inside(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port != CAIRN_PORT(0))
        return;
    if (r->count == 1)
        assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    else
        ktest_irq(post_high, 0);
    klog("s%d", r->count);
}

static void test_a_handler_the_loop_runs_is_preempted(void **state)
{
    (void)state;
    high = (struct rec){.name = "H"};
    rec_task(HIGH, &high, 5, 0);
    saturate(high_inside);
    assert_int_equal(cairn_post(SAT, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 s1 S:0 H:0 s2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_a_storm_in_the_gaps_does_not_nest),
        KTEST(test_after_the_loop_an_interrupt_dispatches),
        KTEST(test_a_higher_message_in_the_gap_runs_first),
        KTEST(test_a_handler_the_loop_runs_is_preempted),
    };
    return cmocka_run_group_tests_name("dispatch_nest", tests, NULL, NULL);
}
