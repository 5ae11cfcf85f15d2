/* NOS (SimBed Fig. 1): the delta queue, HARD jobs first, one lower-priority job or
 * interrupt per pass, missed deadlines, sleeping, periodic re-insertion, starvation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_port.h"
#include "nos.h"

static uint32_t clock_now;
static uint32_t irq_lines;      /* pending status bits */
static uint32_t sticky_lines;   /* lines that re-assert at once after handling */
static int32_t last_sleep;
static char log_buf[256];
static size_t log_len;

static void note(char c)
{
    if (log_len < sizeof log_buf - 1)
        log_buf[log_len++] = c;
    log_buf[log_len] = 0;
}

static uint32_t now(void *ctx) { (void)ctx; return clock_now; }
static uint32_t status(void *ctx) { (void)ctx; return irq_lines; }
static void handle(void *ctx, unsigned line)
{
    (void)ctx;
    note((char)('0' + line));
    irq_lines &= ~(1u << line);
    irq_lines |= sticky_lines;
    clock_now += 1;
}
static void nap(void *ctx, int32_t delta)
{
    (void)ctx;
    last_sleep = delta;
    note('z');
    if (delta != NOS_INDEFINITE)
        clock_now += (uint32_t)delta;
}

static const struct nos_ops ops = {now, status, handle, nap};

struct job {
    char name;
    uint32_t cost;
    int32_t period; /* > 0: re-insert itself */
};

static void job(struct nos_exec *x, struct nos_event *ev)
{
    struct job *j = ev->data;
    note(j->name);
    clock_now += j->cost;
    if (j->period > 0)
        nos_insert(x, ev, j->period, job, j, (enum nos_priority)ev->priority);
}

static struct nos_exec x;

static int setup(void **state)
{
    (void)state;
    fake_port_reset();
    clock_now = 1000;
    irq_lines = sticky_lines = 0;
    last_sleep = 0;
    log_len = 0;
    log_buf[0] = 0;
    nos_init(&x, &ops, NULL, 0x1u, 0x2u); /* line 0 HIGH, line 1 LOW */
    return 0;
}

static void delta_queue(void **state)
{
    (void)state;
    struct nos_event a = {0}, b = {0}, c = {0}, d = {0};
    struct job j = {'a', 0, 0};
    assert_true(nos_insert(&x, &b, 20, job, &j, NOS_SOFT));
    assert_true(nos_insert(&x, &a, 5, job, &j, NOS_SOFT));
    assert_true(nos_insert(&x, &c, 20, job, &j, NOS_SOFT)); /* after b: equal times */
    assert_true(nos_insert(&x, &d, 12, job, &j, NOS_HARD));
    assert_ptr_equal(x.calloutq, &a);
    assert_int_equal(a.delta, 5);
    assert_int_equal(d.delta, 7);
    assert_int_equal(b.delta, 8);
    assert_int_equal(c.delta, 0);
    assert_int_equal(nos_due(&x, &c), 20);
    assert_true(nos_remove(&x, &d));
    assert_int_equal(b.delta, 15);
    assert_int_equal(nos_due(&x, &b), 20);
    assert_false(nos_remove(&x, &d));
    assert_false(nos_insert(&x, &a, 1, job, &j, NOS_SOFT)); /* already queued */
    assert_false(nos_insert(&x, &d, -1, job, &j, NOS_SOFT));
    assert_false(nos_insert(&x, &d, 1, NULL, &j, NOS_SOFT));
    assert_false(nos_insert(&x, &d, 1, job, &j, (enum nos_priority)7));
    assert_int_equal(x.errors, 5);
    /* Time passes: only the first delta changes; it goes negative when missed. */
    clock_now += 9;
    nos_update(&x);
    assert_int_equal(a.delta, -4);
    assert_int_equal(b.delta, 15);
    assert_int_equal(nos_due(&x, &b), 11);
}

static void hard_first_then_one_per_pass(void **state)
{
    (void)state;
    struct nos_event s1 = {0}, s2 = {0}, h1 = {0}, h2 = {0};
    struct job js1 = {'s', 1, 0}, js2 = {'t', 1, 0}, jh1 = {'H', 1, 0}, jh2 = {'I', 1, 0};
    nos_insert(&x, &s1, 0, job, &js1, NOS_SOFT);
    nos_insert(&x, &s2, 0, job, &js2, NOS_SOFT);
    nos_insert(&x, &h1, 0, job, &jh1, NOS_HARD);
    nos_insert(&x, &h2, 1, job, &jh2, NOS_HARD); /* due once H has run (1 tick) */
    irq_lines = 0x3u;
    /* Pass 1: H, I (due by then), then the HIGH interrupt 0 ends the pass. */
    assert_int_equal(nos_pass(&x), NOS_STEP_HIGH_IRQ);
    assert_string_equal(log_buf, "HI0");
    /* Pass 2: the first due job (s) ends the pass: the LOW interrupt waits. */
    assert_int_equal(nos_pass(&x), NOS_STEP_JOB);
    assert_int_equal(nos_pass(&x), NOS_STEP_JOB);
    assert_int_equal(nos_pass(&x), NOS_STEP_LOW_IRQ);
    assert_int_equal(nos_pass(&x), NOS_STEP_SLEPT);
    assert_string_equal(log_buf, "HI0st1z");
    assert_int_equal(last_sleep, NOS_INDEFINITE);
    assert_int_equal(x.hard_runs, 2);
    assert_int_equal(x.job_runs, 2);
    assert_int_equal(x.passes, 5);
}

static void missed_deadlines_detected(void **state)
{
    (void)state;
    struct nos_event a = {0}, b = {0};
    struct job ja = {'a', 7, 0}, jb = {'b', 1, 0};
    nos_insert(&x, &a, 0, job, &ja, NOS_SOFT);
    nos_insert(&x, &b, 3, job, &jb, NOS_SOFT);
    assert_int_equal(nos_pass(&x), NOS_STEP_JOB); /* a: on time, takes 7 */
    assert_int_equal(a.missed, 0);
    assert_int_equal(b.delta, -4);
    assert_int_equal(nos_pass(&x), NOS_STEP_JOB); /* b: 4 ticks late */
    assert_int_equal(b.missed, 1);
    assert_int_equal(b.max_lateness, 4);
    assert_int_equal(x.missed, 1);
}

static void sleeps_until_first_due(void **state)
{
    (void)state;
    struct nos_event p = {0};
    struct job jp = {'p', 2, 10};
    nos_insert(&x, &p, 10, job, &jp, NOS_HARD);
    assert_int_equal(nos_pass(&x), NOS_STEP_SLEPT);
    assert_int_equal(last_sleep, 10);
    /* Periodic: runs at 10, 20, 30 relative to its actual invocation. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(nos_pass(&x), NOS_STEP_SLEPT);
    assert_string_equal(log_buf, "zpzpzpz");
    assert_int_equal(p.runs, 3);
    assert_int_equal(p.missed, 0);
    assert_int_equal(clock_now, 1040);
}

static void overload_starves_low_priority(void **state)
{
    (void)state;
    struct nos_event h = {0}, s = {0};
    struct job jh = {'H', 2, 2}, js = {'s', 1, 0};
    nos_insert(&x, &h, 0, job, &jh, NOS_HARD);
    nos_insert(&x, &s, 0, job, &js, NOS_SOFT);
    irq_lines = 0x2u;
    (void)jh;
    nos_remove(&x, &h);
    /* A HIGH interrupt that re-asserts at once: every pass handles it and ends. */
    sticky_lines = 0x1u;
    irq_lines = 0x3u;
    for (int i = 0; i < 100; i++)
        assert_int_equal(nos_pass(&x), NOS_STEP_HIGH_IRQ);
    assert_int_equal(s.runs, 0);
    assert_int_equal(x.low_irqs, 0);
    assert_true(s.queued);
    assert_int_equal(nos_due(&x, &s), -100);
    /* Relieved, the soft job runs first, 100 ticks late, then the LOW interrupt. */
    sticky_lines = 0;
    irq_lines = 0x2u;
    assert_int_equal(nos_pass(&x), NOS_STEP_JOB);
    assert_int_equal(s.max_lateness, 100);
    assert_int_equal(nos_pass(&x), NOS_STEP_LOW_IRQ);
}

static void soft_jobs_starve_low_interrupts(void **state)
{
    (void)state;
    /* Two SOFT jobs that are always due: the LOW interrupt is never reached. */
    struct nos_event a = {0}, b = {0};
    struct job ja = {'a', 3, 1}, jb = {'b', 3, 1};
    nos_insert(&x, &a, 0, job, &ja, NOS_SOFT);
    nos_insert(&x, &b, 0, job, &jb, NOS_SOFT);
    irq_lines = 0x2u;
    for (int i = 0; i < 40; i++)
        assert_int_equal(nos_pass(&x), NOS_STEP_JOB);
    assert_int_equal(x.low_irqs, 0);
    assert_true(a.missed + b.missed > 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(delta_queue, setup),
        cmocka_unit_test_setup(hard_first_then_one_per_pass, setup),
        cmocka_unit_test_setup(missed_deadlines_detected, setup),
        cmocka_unit_test_setup(sleeps_until_first_due, setup),
        cmocka_unit_test_setup(overload_starves_low_priority, setup),
        cmocka_unit_test_setup(soft_jobs_starve_low_interrupts, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
