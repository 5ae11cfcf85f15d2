/*
 * The MANTIS-like layer (kernel/models/mantis/mantis.h) over the host kernel's threads:
 * the five levels map onto increasing Cairn priorities and a bad level is refused and
 * counted; a resume (from a thread or an interrupt) wakes a suspended thread, which runs
 * first when its level is higher; resumes that come while one is pending coalesce (a binary
 * semaphore: nothing fills up); equal levels share the processor on the slice; the
 * periodic sleep stays on its grid, counts overruns and wraps with the counter; with
 * every thread blocked the idle loop sleeps until the next release.
 */
#include <string.h>

#include "ktest.h"

#include "cairn/arch_timer.h"
#include "hwtimer.h"
#include "mantis.h"

#define STACK 65536 /* ASan's frames are large */

static _Alignas(16) uint8_t stacks[3][STACK];

static int setup(void **state)
{
    memset(&mos_stats, 0, sizeof mos_stats);
    return ktest_setup(state);
}

#define MTEST(fn) cmocka_unit_test_setup_teardown(fn, setup, ktest_teardown)

static void test_levels_map_to_increasing_priorities(void **state)
{
    (void)state;
    cairn_prio_t prev = 0;
    for (unsigned l = 0; l < MOS_LEVELS; l++) {
        cairn_prio_t p = 0;
        assert_true(mos_level_prio(l, &p));
        assert_int_equal(p, MOS_CAIRN_PRIO_BASE + l);
        assert_true(p > prev);
        prev = p;
    }
    cairn_prio_t untouched = 77;
    assert_false(mos_level_prio(MOS_LEVELS, &untouched));
    assert_int_equal(untouched, 77);
    assert_int_equal(mos_stats.errors, 1);
}

static void silent(void *arg)
{
    (void)arg;
}

static void test_bad_level_or_stack_is_refused_and_counted(void **state)
{
    (void)state;
    assert_int_equal(mos_thread_new(3, "x", silent, 0, stacks[0], STACK, MOS_LEVELS), CAIRN_EINVAL);
    assert_false(cairn_task_exists(3));
    assert_int_equal(mos_thread_new(3, "x", silent, 0, stacks[0], 16, MOS_PRIO_LOW), CAIRN_EINVAL);
    assert_false(cairn_task_exists(3));
    assert_int_equal(mos_stats.errors, 2);
    assert_int_equal(mos_stats.created, 0);
    assert_false(mos_thread_resume(3)); /* no such thread */
    assert_int_equal(mos_stats.resume_lost, 1);
    assert_int_equal(mos_thread_suspend(), CAIRN_EINVAL); /* not a thread */
}

/* ---- levels: a resumed higher thread runs before the resume returns -------------------- */

static void waiter(void *arg)
{
    const char *name = arg;
    for (;;) {
        klog("%s:wait", name);
        if (mos_thread_suspend() != CAIRN_OK)
            return;
        klog("%s:run", name);
    }
}

static void resumer(void *arg)
{
    (void)arg;
    klog("N:before");
    assert_true(mos_thread_resume(4));
    klog("N:after");
}

static void test_higher_level_preempts(void **state)
{
    (void)state;
    assert_int_equal(mos_thread_new(4, "H", waiter, "H", stacks[0], STACK, MOS_PRIO_HIGH), CAIRN_OK);
    assert_int_equal(mos_thread_new(5, "N", resumer, 0, stacks[1], STACK, MOS_PRIO_NORMAL), CAIRN_OK);
    assert_log("H:wait N:before H:run H:wait N:after");
    assert_int_equal(cairn_thread_join(5, 0), CAIRN_OK);
    assert_int_equal(mos_stats.created, 2);
    assert_int_equal(mos_stats.resumed, 1);
}

static void resume_h(void *arg)
{
    (void)arg;
    char before[64];
    strncpy(before, klog_str(), sizeof before - 1);
    before[sizeof before - 1] = 0;
    assert_true(mos_thread_resume(4));
    assert_log(before); /* H waits for the interrupt's end */
}

static void test_interrupt_resumes(void **state)
{
    (void)state;
    assert_int_equal(mos_thread_new(4, "H", waiter, "H", stacks[0], STACK, MOS_PRIO_HIGH), CAIRN_OK);
    ktest_irq(resume_h, 0);
    assert_log("H:wait H:run H:wait");
    ktest_irq(resume_h, 0);
    assert_log("H:wait H:run H:wait H:run H:wait");
    assert_int_equal(mos_stats.resumed, 2);
}

/* ---- resumes coalesce -------------------------------------------------------------------- */

static void resume_h_thrice(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 3; i++)
        assert_true(mos_thread_resume(4));
}

static void test_resumes_coalesce(void **state)
{
    (void)state;
    assert_int_equal(mos_thread_new(4, "H", waiter, "H", stacks[0], STACK, MOS_PRIO_HIGH), CAIRN_OK);
    /* The first resume wakes H, the second is pending, the third merges into it: H runs
     * twice, not three times, and no resume is refused. */
    ktest_irq(resume_h_thrice, 0);
    assert_log("H:wait H:run H:wait H:run H:wait");
    assert_int_equal(mos_stats.resumed, 3);
    assert_int_equal(mos_stats.resume_coalesced, 1);
    assert_int_equal(mos_stats.resume_lost, 0);
    /* Many more than any mailbox or message pool holds, from one interrupt: still no
     * refusal, and one more run. */
    klog_reset();
    for (unsigned i = 0; i < 200; i++)
        ktest_irq(resume_h_thrice, 0);
    assert_int_equal(mos_stats.resumed, 603);
    assert_int_equal(mos_stats.resume_lost, 0);
    assert_int_equal(mos_stats.resume_coalesced, 201);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
}

static _Alignas(16) uint8_t table_stacks[MOS_THREADS][STACK / 4];

static void test_table_of_twelve(void **state)
{
    (void)state;
    for (unsigned i = 0; i < MOS_THREADS; i++)
        assert_int_equal(mos_thread_new((cairn_task_id_t)(1u + i), "W", waiter, "W", table_stacks[i],
                                        sizeof table_stacks[i], MOS_PRIO_LOW),
                         CAIRN_OK);
    assert_int_equal(mos_thread_new(13, "X", waiter, "X", stacks[0], STACK, MOS_PRIO_LOW), CAIRN_EFULL);
    assert_false(cairn_task_exists(13));
    assert_int_equal(mos_stats.errors, 1);
    assert_int_equal(mos_thread_new(3, "Y", waiter, "Y", stacks[0], STACK, MOS_PRIO_LOW), CAIRN_EBUSY);
    assert_int_equal(mos_stats.errors, 2);
    assert_true(mos_thread_resume(3)); /* the refusal left thread 3's slot as it was */
    assert_int_equal(mos_stats.resume_lost, 0);
}

/* ---- equal levels: round robin on the slice ---------------------------------------------- */

static char runs[64];

static void worker(void *arg)
{
    char me = (char)(uintptr_t)arg;
    for (unsigned i = 0; i < 6; i++) {
        size_t n = strlen(runs);
        if (n < sizeof runs - 1)
            runs[n] = me;
        host_timer_advance(1); /* one tick of work: the slice may end here */
    }
}

static void starter(void *arg)
{
    (void)arg;
    assert_int_equal(mos_thread_new(11, "A", worker, (void *)'A', stacks[1], STACK, MOS_PRIO_LOW), CAIRN_OK);
    assert_int_equal(mos_thread_new(12, "B", worker, (void *)'B', stacks[2], STACK, MOS_PRIO_LOW), CAIRN_OK);
}

static void test_equal_levels_round_robin(void **state)
{
    (void)state;
    memset(runs, 0, sizeof runs);
    cairn_thread_set_slice(3);
    assert_int_equal(mos_thread_new(10, "S", starter, 0, stacks[0], STACK, MOS_PRIO_KERNEL), CAIRN_OK);
    assert_int_equal(cairn_thread_join(10, 0), CAIRN_OK);
    assert_string_equal(runs, "AAABBBAAABBB");
    assert_int_equal(cairn_thread_join(11, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(12, 0), CAIRN_OK);
    cairn_thread_set_slice(CAIRN_THREAD_SLICE_TICKS);
}

/* ---- the periodic sleep ---------------------------------------------------------------------- */

static void test_period_grid_overruns_and_wrap(void **state)
{
    (void)state;
    struct mos_period p;
    assert_false(mos_period_init(&p, 0, 0));
    assert_false(mos_period_init(&p, 0, CAIRN_HWTIMER_HALF + 1u));
    assert_int_equal(mos_stats.errors, 2);
    assert_true(mos_period_init(&p, 100, 10));
    assert_int_equal(mos_period_advance(&p, 103), 7); /* release 110 */
    assert_int_equal(mos_period_advance(&p, 112), 8); /* 120: on the grid, not 112 + 10 */
    assert_int_equal(mos_period_advance(&p, 130), 0); /* 130: due now, not late */
    assert_int_equal(p.overruns, 0);
    assert_int_equal(mos_period_advance(&p, 155), 0); /* 140: late */
    assert_int_equal(p.overruns, 1);
    assert_int_equal(p.next, 140);
    assert_int_equal(mos_period_advance(&p, 155), 0); /* 150: still late, then back on time */
    assert_int_equal(mos_period_advance(&p, 155), 5);
    assert_int_equal(p.overruns, 2);
    /* Across the counter's wrap. */
    assert_true(mos_period_init(&p, CAIRN_HWTIMER_MASK - 4u, 10));
    assert_int_equal(mos_period_advance(&p, CAIRN_HWTIMER_MASK - 1u), 7); /* MASK-1 .. 5 */
    assert_int_equal(p.next, 5);
    assert_int_equal(mos_period_advance(&p, 7), 8);
}

static struct mos_period tick_period;

static void periodic(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(mos_period_sleep(&tick_period), CAIRN_OK);
        klog("P@%u", (unsigned)arch_timer_now());
        host_timer_advance(4); /* the job's work */
    }
}

static void test_period_sleep_and_idle(void **state)
{
    (void)state;
    host_timer_set(1000);
    assert_true(mos_period_init(&tick_period, 1000, 20));
    assert_int_equal(mos_thread_new(3, "P", periodic, 0, stacks[0], STACK, MOS_PRIO_NORMAL), CAIRN_OK);
    assert_log("");
    /* The thread sleeps: the idle loop sleeps until its release, 20 ticks on. */
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), 20);
    host_timer_advance(20);
    assert_log("P@1020");
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), 16); /* to 1040: the work does not shift the grid */
    host_timer_advance(16);
    host_timer_advance(20);
    assert_log("P@1020 P@1040 P@1060");
    assert_int_equal(tick_period.overruns, 0);
    assert_int_equal(cairn_thread_join(3, 0), CAIRN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        MTEST(test_levels_map_to_increasing_priorities),
        MTEST(test_bad_level_or_stack_is_refused_and_counted),
        MTEST(test_higher_level_preempts),
        MTEST(test_interrupt_resumes),
        MTEST(test_resumes_coalesce),
        MTEST(test_table_of_twelve),
        MTEST(test_equal_levels_round_robin),
        MTEST(test_period_grid_overruns_and_wrap),
        MTEST(test_period_sleep_and_idle),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
