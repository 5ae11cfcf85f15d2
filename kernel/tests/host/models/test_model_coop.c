/* The Echidna-style cooperative executive: EDF order among released objects, intended
 * release times, late completions, the idle decision, ports that pile up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coop.h"
#include "fake_port.h"

static uint32_t clock_now;
static char log_buf[128];
static size_t log_len;

static uint32_t now(void *ctx)
{
    (void)ctx;
    return clock_now;
}

struct job {
    char name;
    uint32_t cost; /* ticks the cycle takes */
};

static void cycle(void *arg)
{
    struct job *j = arg;
    if (log_len < sizeof log_buf - 1)
        log_buf[log_len++] = j->name;
    log_buf[log_len] = 0;
    clock_now += j->cost;
}

static int setup(void **state)
{
    (void)state;
    fake_port_reset();
    clock_now = 0;
    log_len = 0;
    log_buf[0] = 0;
    return 0;
}

/* Run the executive until `end`, idling by jumping the clock to the next release. */
static void run_until(struct coop_exec *e, uint32_t end)
{
    while (clock_now < end) {
        if (!coop_dispatch(e))
            clock_now += coop_idle_ticks(e);
    }
}

static void edf_order(void **state)
{
    (void)state;
    struct coop_exec e;
    struct coop_object a, b, c;
    struct job ja = {'a', 1}, jb = {'b', 1}, jc = {'c', 1};
    coop_init(&e, now, NULL);
    /* Added in the order c, a, b; all released at 0: deadlines 8, 2, 4. */
    assert_true(coop_add(&e, &c, 8, 0, cycle, &jc));
    assert_true(coop_add(&e, &a, 2, 0, cycle, &ja));
    assert_true(coop_add(&e, &b, 4, 0, cycle, &jb));
    run_until(&e, 8);
    /* t0 a(dl2) t1 b(dl4) t2 a(dl4, released 2; b's next is 4) c(dl8) at 3... */
    assert_string_equal(log_buf, "abacab" "a");
    assert_int_equal(a.late + b.late + c.late, 0);
    assert_int_equal(a.runs, 4);
}

static void rejects_bad_objects(void **state)
{
    (void)state;
    struct coop_exec e;
    struct coop_object a;
    struct job ja = {'a', 1};
    coop_init(&e, now, NULL);
    assert_false(coop_add(&e, &a, 0, 0, cycle, &ja));
    assert_false(coop_add(&e, NULL, 1, 0, cycle, &ja));
    assert_false(coop_add(&e, &a, 1, 0, NULL, &ja));
    assert_true(coop_add(&e, &a, 5, 0, cycle, &ja));
    assert_false(coop_add(&e, &a, 5, 0, cycle, &ja));
    assert_int_equal(e.errors, 4);
    assert_non_null(e.objects);
    assert_null(e.objects->next);
}

static void idle_decision(void **state)
{
    (void)state;
    struct coop_exec e;
    struct coop_object a, b;
    struct job ja = {'a', 0}, jb = {'b', 0};
    coop_init(&e, now, NULL);
    coop_add(&e, &a, 10, 7, cycle, &ja);
    coop_add(&e, &b, 10, 3, cycle, &jb);
    assert_false(coop_dispatch(&e));
    assert_int_equal(e.idle_decisions, 1);
    assert_int_equal(coop_idle_ticks(&e), 3);
    clock_now = 3;
    assert_int_equal(coop_idle_ticks(&e), 0);
    assert_true(coop_dispatch(&e));
    assert_int_equal(coop_idle_ticks(&e), 4);
}

/* Overload: a long object makes the short one late; releases stay on the intended grid
 * (10, 20, 30 ...), so a late release is followed by an early one (no spreading). */
static void overrun_is_late_then_early(void **state)
{
    (void)state;
    struct coop_exec e;
    struct coop_object fast, slow;
    struct job jf = {'f', 1}, js = {'s', 14};
    coop_init(&e, now, NULL);
    coop_add(&e, &slow, 40, 1, cycle, &js);
    coop_add(&e, &fast, 10, 0, cycle, &jf);
    run_until(&e, 40);
    /* f@0, s@1..15 (f released at 10 waits), f@15 (late start, done 16 <= dl 20), f@20 ... */
    assert_string_equal(log_buf, "fsfff");
    assert_int_equal(fast.max_start_delay, 5);
    assert_int_equal(fast.late, 0);
    assert_int_equal(fast.release, 40);
    /* Heavier: s takes 25 ticks: f's release at 10 completes at 27 > 20: late. */
    js.cost = 25;
    run_until(&e, 80);
    assert_true(fast.late >= 1);
}

static struct coop_port port;

static void poll_port(void *arg)
{
    uint32_t *got = arg;
    *got += coop_port_take(&port);
}

static void ports_pile_up(void **state)
{
    (void)state;
    struct coop_exec e;
    struct coop_object poller;
    uint32_t got = 0;
    port = (struct coop_port){0};
    coop_init(&e, now, NULL);
    coop_add(&e, &poller, 1, 1, poll_port, &got);
    coop_port_signal(&port);
    coop_port_signal(&port); /* two interrupts before the 1-tick poll */
    assert_false(coop_dispatch(&e));
    assert_int_equal(got, 0);
    clock_now = 1;
    assert_true(coop_dispatch(&e));
    assert_int_equal(got, 2);
    assert_int_equal(port.max_batch, 2);
    assert_int_equal(port.pending, 0);
    assert_int_equal(fake_irq_depth, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(edf_order, setup),
        cmocka_unit_test_setup(rejects_bad_objects, setup),
        cmocka_unit_test_setup(idle_decision, setup),
        cmocka_unit_test_setup(overrun_is_late_then_early, setup),
        cmocka_unit_test_setup(ports_pile_up, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
