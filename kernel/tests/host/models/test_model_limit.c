/* LIMIT: work runs when called, nesting is counted, the idle loop waits masked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_port.h"
#include "limit.h"

static unsigned done;
static volatile bool stop;

static void leaf(void *arg) { done += (unsigned)(uintptr_t)arg; }

static void calls_run_once_each(void **state)
{
    (void)state;
    fake_port_reset();
    struct limit_work a = {.fn = leaf, .arg = (void *)1}, b = {.fn = leaf, .arg = (void *)10};
    done = 0;
    limit_call(&a);
    limit_call(&b);
    limit_call(&b);
    assert_int_equal(done, 21);
    assert_int_equal(a.runs, 1);
    assert_int_equal(b.runs, 2);
    assert_int_equal(a.nested + b.nested, 0);
    assert_false(b.running);
}

static unsigned wakes;
static void tick(void)
{
    if (++wakes == 3)
        stop = true;
}

static void nest_body(void *arg)
{
    struct limit_work *w = arg;
    if (w->runs == 0 && !w->nested)
        limit_call(w); /* re-entry: counted once */
}

static void reentry_counted(void **state)
{
    (void)state;
    struct limit_work w = {0};
    w.fn = nest_body;
    w.arg = &w;
    limit_call(&w);
    assert_int_equal(w.runs, 2);
    assert_int_equal(w.nested, 1);
    assert_false(w.running);
}

static void idle_waits_masked(void **state)
{
    (void)state;
    fake_port_reset();
    fake_interrupt = tick;
    stop = false;
    wakes = 0;
    limit_idle(&stop);
    assert_int_equal(wakes, 3);
    assert_int_equal(fake_waits, 3);
    assert_int_equal(fake_waits_unmasked, 0);
    assert_int_equal(fake_irq_depth, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calls_run_once_each),
        cmocka_unit_test(reentry_counted),
        cmocka_unit_test(idle_waits_masked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
