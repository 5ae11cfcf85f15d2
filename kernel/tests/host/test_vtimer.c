/*
 * Host tests of the virtual timers (kernel/core/vtimer.c) over the host hardware
 * timer model (kernel/arch/host/hwtimer.c). Built once per counter width
 * (CAIRN_HWTIMER_BITS = 16, 24, 32); every test runs twice, with the counter
 * starting at 0 and just before it wraps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/timer.h"
#include "cairn/trace.h"

#include "hwtimer.h"

/* The kernel's queries (kernel/core/kernel.h, which this test does not include). */
cairn_ret_t cairn__timer_query(cairn_task_id_t task, uint8_t n, uint32_t *remaining, uint32_t *period);
uint8_t cairn__timer_query_task(cairn_task_id_t task, uint32_t *remaining, uint32_t *period);

_Static_assert(CAIRN_MAX_TIMERS % 4 == 0 && CAIRN_MAX_TIMERS <= 28, "the tests use tasks 1..7");

#define MASK CAIRN_HWTIMER_MASK
#define HALF CAIRN_HWTIMER_HALF

/* ---- stubs: scheduler and trace port ---------------------------------------- */
void cairn_isr_enter(uint16_t irq) { (void)irq; }
void cairn_isr_exit(void) {}
/* The heap masks interrupts around its changes; no scheduler here, so only a depth. */
static unsigned irq_depth;
uint32_t arch_irq_save(void) { return irq_depth++; }
void arch_irq_restore(uint32_t state) { irq_depth = state; }

static cairn_task_id_t current = 1;
cairn_task_id_t cairn_current_task(void)
{
    return current;
}

static unsigned ntimer_trace;
void cairn_trace_host_put(uint32_t word)
{
    if (CAIRN_TRACE_EVENT(word) == CAIRN_EV_TIMER)
        ntimer_trace++;
}

/* Absolute time: the test's own 64-bit clock over the wrapping counter. */
static uint64_t base_abs;
static uint32_t base_hw;
static uint64_t now_abs(void)
{
    return base_abs + ((arch_timer_now() - base_hw) & MASK);
}

struct fire {
    cairn_task_id_t task;
    uint8_t n;
    uint64_t t;
};
#define LOG 4096
static struct fire fired[LOG];
static unsigned nfired;
static void (*hook)(cairn_task_id_t task, uint8_t n);

void cairn_timer_fired(cairn_task_id_t task, uint8_t n)
{
    assert_true(nfired < LOG);
    fired[nfired++] = (struct fire){task, n, now_abs()};
    if (hook)
        hook(task, n);
}

/* Advances the counter, in steps short enough for now_abs to stay exact. */
static void adv(uint64_t ticks)
{
    while (ticks) {
        uint32_t step = ticks > HALF / 2 ? HALF / 2 : (uint32_t)ticks;
        base_abs = now_abs();
        base_hw = arch_timer_now();
        host_timer_advance(step);
        ticks -= step;
    }
    base_abs = now_abs();
    base_hw = arch_timer_now();
}

static uint32_t start_at;
static int start_zero(void **state)
{
    (void)state;
    start_at = 0;
    return 0;
}
static int start_near_wrap(void **state)
{
    (void)state;
    start_at = MASK - 20;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    host_timer_reset(start_at);
    base_abs = 0;
    base_hw = arch_timer_now();
    static uint64_t arena[64];
    cairn_heap_init(arena, sizeof arena);
    assert_int_equal(cairn_timer_init(), CAIRN_OK);
    nfired = 0;
    ntimer_trace = 0;
    hook = NULL;
    current = 1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (cairn_task_id_t t = 1; t <= 8; t++)
        cairn_timer_cancel_all(t);
    assert_int_equal(cairn_timer_active(), 0);
    assert_false(host_timer_armed(NULL));
    return 0;
}

static void expect(unsigned i, cairn_task_id_t task, uint8_t n, uint64_t t)
{
    assert_true(i < nfired);
    if (fired[i].task != task || fired[i].n != n || fired[i].t != t)
        fail_msg("firing %u: got task %u timer %u at %llu, want task %u timer %u at %llu", i,
                 fired[i].task, fired[i].n, (unsigned long long)fired[i].t, task, n,
                 (unsigned long long)t);
}

/* ---- tests -------------------------------------------------------------------- */

static void test_one_shot(void **state)
{
    (void)state;
    assert_int_equal(cairn_timer_set(3, 1, 100, false), CAIRN_OK);
    assert_int_equal(cairn_timer_active(), 1);
    uint32_t dl;
    assert_true(host_timer_armed(&dl));
    assert_int_equal(dl, (start_at + 100) & MASK);
    adv(99);
    assert_int_equal(nfired, 0);
    adv(1);
    assert_int_equal(nfired, 1);
    expect(0, 3, 1, 100);
    assert_int_equal(ntimer_trace, 1);
    assert_int_equal(cairn_timer_active(), 0);
    assert_false(host_timer_armed(NULL));
    adv(1000);
    assert_int_equal(nfired, 1);
    assert_int_equal(cairn_timer_next_expiry(), UINT32_MAX);
}

static void test_periodic_drift_free(void **state)
{
    (void)state;
    assert_int_equal(cairn_timer_set(2, 0, 7, true), CAIRN_OK);
    /* irregular steps, and now and then the interrupt held off for a while */
    uint32_t r = 12345;
    while (now_abs() < 7 * 1000) {
        r = r * 1103515245u + 12345u;
        uint32_t step = 1 + (r >> 16) % 13;
        if ((r >> 8) % 5 == 0) {
            uint32_t s = arch_timer_lock();
            adv(step);
            arch_timer_unlock(s);
        } else {
            adv(step);
        }
    }
    uint64_t end = now_abs();
    assert_int_equal(nfired, end / 7);
    for (unsigned i = 0; i < nfired; i++) {
        /* never early, and at most one held-off step late */
        assert_true(fired[i].t >= 7 * (uint64_t)(i + 1));
        assert_true(fired[i].t < 7 * (uint64_t)(i + 1) + 13);
    }
    /* without hold-offs every firing is exactly on the grid again */
    unsigned before = nfired;
    adv(7 * 100);
    assert_int_equal(nfired, before + 100);
    for (unsigned i = before; i < nfired; i++)
        assert_int_equal(fired[i].t, 7 * (uint64_t)(i + 1));
    assert_int_equal(cairn_timer_cancel(2, 0), CAIRN_OK);
}

static void test_limits_and_arguments(void **state)
{
    (void)state;
    assert_int_equal(cairn_timer_set(0, 0, 10, false), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_set(1, 4, 10, false), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_set(1, 0, 0, false), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_set(1, 0, CAIRN_TIMER_MAX_TICKS + 1u, false), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_cancel(1, 4), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_cancel(0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_timer_active(), 0);
    /* four per task, for as many tasks as the pool holds */
    for (cairn_task_id_t t = 1; t <= CAIRN_MAX_TIMERS / 4; t++)
        for (uint8_t n = 0; n < 4; n++)
            assert_int_equal(cairn_timer_set(t, n, 10u + n, false), CAIRN_OK);
    assert_int_equal(cairn_timer_active(), CAIRN_MAX_TIMERS);
    /* pool empty: a new timer fails (counted), restarting a running one does not */
    assert_int_equal(cairn_timer_set(8, 0, 5, false), CAIRN_ENOMEM);
    assert_int_equal(cairn_timer_pool_failures(), 1);
    assert_int_equal(cairn_timer_set(1, 3, 5, false), CAIRN_OK);
    assert_int_equal(cairn_timer_active(), CAIRN_MAX_TIMERS);
    adv(20);
    assert_int_equal(nfired, CAIRN_MAX_TIMERS);
    expect(0, 1, 3, 5);
    assert_int_equal(cairn_timer_active(), 0);
    /* the longest interval is accepted */
    assert_int_equal(cairn_timer_set(1, 0, CAIRN_TIMER_MAX_TICKS, false), CAIRN_OK);
}

static void test_delta_list_order(void **state)
{
    (void)state;
    static const uint32_t ticks[] = {50, 10, 30, 20, 40, 35, 5};
    for (unsigned i = 0; i < 7; i++)
        assert_int_equal(cairn_timer_set((cairn_task_id_t)(1 + i), 2, ticks[i], false), CAIRN_OK);
    assert_int_equal(cairn_timer_next_expiry(), 5);
    adv(100);
    assert_int_equal(nfired, 7);
    expect(0, 7, 2, 5);
    expect(1, 2, 2, 10);
    expect(2, 4, 2, 20);
    expect(3, 3, 2, 30);
    expect(4, 6, 2, 35);
    expect(5, 5, 2, 40);
    expect(6, 1, 2, 50);
}

static void test_same_tick_insertion_order(void **state)
{
    (void)state;
    cairn_timer_set(4, 0, 30, false);
    cairn_timer_set(2, 1, 30, false);
    adv(10);
    cairn_timer_set(3, 2, 20, false); /* same deadline, set later */
    cairn_timer_set(1, 3, 19, false);
    cairn_timer_set(5, 0, 21, false);
    adv(30);
    assert_int_equal(nfired, 5);
    expect(0, 1, 3, 29);
    expect(1, 4, 0, 30);
    expect(2, 2, 1, 30);
    expect(3, 3, 2, 30);
    expect(4, 5, 0, 31);
}

static void test_restart_replaces(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 10, false);
    adv(5);
    cairn_timer_set(1, 0, 10, true); /* now periodic, from t = 5 */
    assert_int_equal(cairn_timer_active(), 1);
    adv(30);
    assert_int_equal(nfired, 3);
    expect(0, 1, 0, 15);
    expect(1, 1, 0, 25);
    expect(2, 1, 0, 35);
}

static void test_cancel_head_middle_tail(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 10, false);
    cairn_timer_set(1, 1, 20, false);
    cairn_timer_set(1, 2, 30, false);
    cairn_timer_set(1, 3, 40, false);
    cairn_timer_set(2, 0, 50, false);
    assert_int_equal(cairn_timer_cancel(1, 0), CAIRN_OK); /* head */
    uint32_t dl;
    assert_true(host_timer_armed(&dl));
    assert_int_equal(dl, (start_at + 20) & MASK);
    assert_int_equal(cairn_timer_cancel(1, 2), CAIRN_OK); /* middle */
    assert_int_equal(cairn_timer_cancel(2, 0), CAIRN_OK); /* tail */
    assert_int_equal(cairn_timer_cancel(2, 0), CAIRN_EINVAL); /* not running */
    assert_int_equal(cairn_timer_active(), 2);
    adv(100);
    assert_int_equal(nfired, 2);
    expect(0, 1, 1, 20);
    expect(1, 1, 3, 40);
    assert_int_equal(cairn_timer_cancel(1, 1), CAIRN_EINVAL); /* already fired */
}

static void test_cancel_all(void **state)
{
    (void)state;
    for (uint8_t n = 0; n < 4; n++) {
        cairn_timer_set(1, n, 10u * (n + 1), n & 1);
        cairn_timer_set(2, n, 10u * (n + 1) + 1, false);
    }
    adv(15);
    cairn_timer_cancel_all(1);
    assert_int_equal(cairn_timer_active(), 3);
    adv(100);
    assert_int_equal(nfired, 5);
    expect(0, 1, 0, 10);
    expect(1, 2, 0, 11);
    expect(2, 2, 1, 21);
    expect(3, 2, 2, 31);
    expect(4, 2, 3, 41);
}

/* The migrator's one-walk query says for every timer of a task what a query per timer says,
 * running and due ones alike, and nothing of another task's. */
static void test_query_task(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 30, true);
    cairn_timer_set(2, 1, 12, false);
    cairn_timer_set(1, 2, 10, false);
    cairn_timer_set(1, 3, 50, false);
    adv(4);
    uint32_t rem[CAIRN_TIMERS_PER_TASK], per[CAIRN_TIMERS_PER_TASK];
    uint8_t found = cairn__timer_query_task(1, rem, per);
    assert_int_equal(found, 0x0D);
    for (uint8_t n = 0; n < CAIRN_TIMERS_PER_TASK; n++) {
        uint32_t r1, p1;
        cairn_ret_t r = cairn__timer_query(1, n, &r1, &p1);
        assert_int_equal(r == CAIRN_OK, (found >> n) & 1u);
        if (r == CAIRN_OK) {
            assert_int_equal(rem[n], r1);
            assert_int_equal(per[n], p1);
        }
    }
    assert_int_equal(rem[2], 6);
    assert_int_equal(rem[0], 26);
    assert_int_equal(per[0], 30);
    assert_int_equal(rem[3], 46);
    assert_int_equal(cairn__timer_query_task(3, rem, per), 0);
}

static void test_start_stop_current_task(void **state)
{
    (void)state;
    current = 6;
    assert_int_equal(cairn_timer_start(1, 10, false), CAIRN_OK);
    assert_int_equal(cairn_timer_start(2, 12, false), CAIRN_OK);
    assert_int_equal(cairn_timer_stop(2), CAIRN_OK);
    current = 0;
    assert_int_equal(cairn_timer_start(0, 10, false), CAIRN_EINVAL); /* no task */
    adv(20);
    assert_int_equal(nfired, 1);
    expect(0, 6, 1, 10);
}

/* Expiries on both sides of the counter wrap (the near-wrap run starts 21 ticks
 * before it), and a deadline that is numerically smaller than now. */
static void test_wrap_around(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 5, false);
    cairn_timer_set(1, 1, 21, false);
    cairn_timer_set(1, 2, 22, false);
    cairn_timer_set(1, 3, 40, true);
    adv(200);
    assert_int_equal(nfired, 8);
    expect(0, 1, 0, 5);
    expect(1, 1, 1, 21);
    expect(2, 1, 2, 22);
    for (unsigned i = 0; i < 5; i++)
        expect(3 + i, 1, 3, 40 * (i + 1));
    /* across many wraps of a short counter */
    uint64_t span = (uint64_t)MASK * 3 + 1000;
    if (span > 0x200000000ull)
        span = 0x200000000ull;
    uint32_t period = (uint32_t)(span / 37);
    cairn_timer_cancel(1, 3);
    nfired = 0;
    uint64_t t0 = now_abs();
    cairn_timer_set(2, 0, period, true);
    adv(span);
    assert_int_equal(nfired, span / period);
    for (unsigned i = 0; i < nfired; i++)
        expect(i, 2, 0, t0 + (uint64_t)period * (i + 1));
}

/* Longer than the counter range (16/24-bit), or the longest interval (32-bit):
 * intermediate deadlines, never more than half the range ahead. */
static void test_beyond_counter_range(void **state)
{
    (void)state;
    uint64_t far = (uint64_t)MASK * 2 + 12345;
    if (far > CAIRN_TIMER_MAX_TICKS)
        far = CAIRN_TIMER_MAX_TICKS;
    cairn_timer_set(3, 3, (uint32_t)far, false);
    cairn_timer_set(4, 0, 1000, false);
    uint32_t dl;
    unsigned isr0 = host_timer_isr_count();
    while (host_timer_armed(&dl) && nfired < 2) {
        uint32_t ahead = (dl - arch_timer_now()) & MASK;
        assert_true(ahead >= 1 && ahead <= HALF);
        adv(ahead);
        if (nfired < 2)
            assert_int_equal(cairn_timer_next_expiry(), far - now_abs());
    }
    assert_int_equal(nfired, 2);
    expect(0, 4, 0, 1000);
    expect(1, 3, 3, far);
    assert_true(host_timer_isr_count() - isr0 >= 2 + far / HALF - 1);
}

/* The interrupt runs late: every overdue expiry fires, in deadline order (ties in
 * set order), including each missed period of a periodic timer. */
static void test_late_isr_fires_all_in_order(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 10, false);
    cairn_timer_set(2, 0, 20, false);
    cairn_timer_set(3, 0, 4, true);
    cairn_timer_set(4, 0, 30, false);
    uint32_t s = arch_timer_lock();
    adv(35);
    assert_int_equal(nfired, 0);
    assert_true(host_timer_pending());
    assert_int_equal(cairn_timer_next_expiry(), 0);
    arch_timer_unlock(s);
    /* deadlines 4 8 10 12 16 20 20 24 28 30 32; the tie at 20 goes to the timer set first */
    static const cairn_task_id_t want[] = {3, 3, 1, 3, 3, 2, 3, 3, 3, 4, 3};
    assert_int_equal(nfired, 11);
    for (unsigned i = 0; i < 11; i++)
        expect(i, want[i], 0, 35);
    /* the periodic timer keeps its phase: next at 36 */
    assert_int_equal(cairn_timer_next_expiry(), 1);
    adv(1);
    expect(11, 3, 0, 36);
}

/* Handlers may set and cancel timers from inside cairn_timer_fired. */
static void rearm_self(cairn_task_id_t task, uint8_t n)
{
    if (task == 1 && n == 0 && nfired < 5)
        assert_int_equal(cairn_timer_set(1, 0, 5, false), CAIRN_OK);
    if (task == 2 && n == 0) {
        /* cancels a timer due at the same tick (already in the due queue) and its own
         * periodic timer (already re-armed), and starts one that lands in the middle */
        assert_int_equal(cairn_timer_cancel(3, 0), CAIRN_OK);
        assert_int_equal(cairn_timer_cancel(2, 0), CAIRN_OK);
        assert_int_equal(cairn_timer_set(4, 1, 2, false), CAIRN_OK);
    }
}

static void test_set_cancel_from_fired(void **state)
{
    (void)state;
    hook = rearm_self;
    cairn_timer_set(1, 0, 5, false);
    adv(100);
    assert_int_equal(nfired, 5);
    for (unsigned i = 0; i < 5; i++)
        expect(i, 1, 0, 5 * (i + 1));
    nfired = 0;
    uint64_t t0 = now_abs();
    cairn_timer_set(2, 0, 10, true);
    cairn_timer_set(3, 0, 10, false);
    cairn_timer_set(5, 0, 11, false);
    adv(50);
    assert_int_equal(nfired, 3);
    expect(0, 2, 0, t0 + 10);
    expect(1, 5, 0, t0 + 11);
    expect(2, 4, 1, t0 + 12);
}

/* Handlers that take time: the counter moves while the interrupt dispatches. */
static void slow_handler(cairn_task_id_t task, uint8_t n)
{
    if (task == 1 && n == 0 && nfired == 1) {
        host_timer_advance(3);
        assert_int_equal(cairn_timer_set(2, 0, 5, false), CAIRN_OK);
    }
    if (task == 3 && n == 0)
        host_timer_advance(5);
}

static void test_long_handlers(void **state)
{
    (void)state;
    hook = slow_handler;
    /* a late interrupt whose first handler takes 3 ticks and sets a timer while
     * the periodic timer's missed periods are still queued: neither drifts */
    cairn_timer_set(1, 0, 10, true);
    uint32_t s = arch_timer_lock();
    adv(35);
    arch_timer_unlock(s);
    assert_int_equal(nfired, 3);
    expect(0, 1, 0, 35);
    expect(1, 1, 0, 38);
    expect(2, 1, 0, 38);
    adv(2);
    expect(3, 1, 0, 40);
    adv(3);
    expect(4, 2, 0, 43);
    cairn_timer_cancel(1, 0);
    /* a handler that runs past the next deadline: it fires in the same interrupt */
    nfired = 0;
    uint64_t t0 = now_abs();
    cairn_timer_set(3, 0, 10, false);
    cairn_timer_set(4, 0, 12, false);
    cairn_timer_set(4, 1, 20, false);
    unsigned isr0 = host_timer_isr_count();
    adv(20);
    assert_int_equal(nfired, 3);
    expect(0, 3, 0, t0 + 10);
    expect(1, 4, 0, t0 + 15);
    expect(2, 4, 1, t0 + 20);
    assert_int_equal(host_timer_isr_count() - isr0, 2);
}

static void test_next_expiry(void **state)
{
    (void)state;
    assert_int_equal(cairn_timer_next_expiry(), UINT32_MAX);
    cairn_timer_set(1, 0, 100, false);
    assert_int_equal(cairn_timer_next_expiry(), 100);
    adv(30);
    assert_int_equal(cairn_timer_next_expiry(), 70);
    cairn_timer_set(1, 1, 10, false);
    assert_int_equal(cairn_timer_next_expiry(), 10);
    cairn_timer_cancel(1, 1);
    assert_int_equal(cairn_timer_next_expiry(), 70);
    uint32_t s = arch_timer_lock();
    adv(80);
    assert_int_equal(cairn_timer_next_expiry(), 0);
    arch_timer_unlock(s);
    assert_int_equal(nfired, 1);
    assert_int_equal(cairn_timer_next_expiry(), UINT32_MAX);
}

static void test_spurious_isr(void **state)
{
    (void)state;
    cairn_timer_set(1, 0, 50, false);
    adv(20);
    cairn_timer_isr();
    cairn_timer_isr();
    assert_int_equal(nfired, 0);
    assert_int_equal(cairn_timer_next_expiry(), 30);
    adv(30);
    assert_int_equal(nfired, 1);
    expect(0, 1, 0, 50);
}

/* Random sets, cancels and steps against a model of absolute deadlines (16
 * possible timers competing for the pool). */
struct model {
    int running;
    uint64_t deadline;
    uint32_t period;
    uint64_t seq;
};

static void test_random_against_model(void **state)
{
    (void)state;
    struct model m[4][4] = {{{0}}};
    uint64_t seq = 0;
    uint32_t r = 99;
#define RND(b) ((r = r * 1664525u + 1013904223u), (r >> 8) % (b))
    for (int op = 0; op < 4000; op++) {
        unsigned task = RND(4), n = RND(4);
        unsigned k = RND(10);
        if (k < 4) {
            uint32_t ticks = 1 + RND(k == 0 ? 3000 : 60);
            bool per = RND(3) == 0;
            bool full = cairn_timer_active() == CAIRN_MAX_TIMERS;
            cairn_ret_t ret = cairn_timer_set((cairn_task_id_t)(task + 1), (uint8_t)n, ticks, per);
            if (!m[task][n].running && full) {
                assert_int_equal(ret, CAIRN_ENOMEM); /* pool full */
            } else {
                assert_int_equal(ret, CAIRN_OK);
                m[task][n] = (struct model){1, now_abs() + ticks, per ? ticks : 0, seq++};
            }
        } else if (k < 5) {
            assert_int_equal(cairn_timer_cancel((cairn_task_id_t)(task + 1), (uint8_t)n),
                             m[task][n].running ? CAIRN_OK : CAIRN_EINVAL);
            m[task][n].running = 0;
        } else {
            uint32_t step = RND(40);
            uint64_t until = now_abs() + step;
            unsigned from = nfired;
            adv(step);
            /* the model's firings up to `until`, in (deadline, seq) order */
            unsigned i = from;
            for (;;) {
                struct model *best = NULL;
                unsigned bt = 0, bn = 0;
                for (unsigned t = 0; t < 4; t++)
                    for (unsigned x = 0; x < 4; x++) {
                        struct model *c = &m[t][x];
                        if (c->running && c->deadline <= until &&
                            (!best || c->deadline < best->deadline ||
                             (c->deadline == best->deadline && c->seq < best->seq))) {
                            best = c;
                            bt = t;
                            bn = x;
                        }
                    }
                if (!best)
                    break;
                expect(i++, (cairn_task_id_t)(bt + 1), (uint8_t)bn, best->deadline);
                if (best->period) {
                    best->deadline += best->period;
                    best->seq = seq++;
                } else {
                    best->running = 0;
                }
            }
            assert_int_equal(nfired, i);
            if (nfired > LOG - 200)
                nfired = 0;
        }
        unsigned running = 0;
        for (unsigned t = 0; t < 4; t++)
            for (unsigned x = 0; x < 4; x++)
                running += (unsigned)m[t][x].running;
        assert_int_equal(cairn_timer_active(), running);
    }
#undef RND
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_one_shot),
        T(test_periodic_drift_free),
        T(test_limits_and_arguments),
        T(test_delta_list_order),
        T(test_same_tick_insertion_order),
        T(test_restart_replaces),
        T(test_cancel_head_middle_tail),
        T(test_cancel_all),
        T(test_query_task),
        T(test_start_stop_current_task),
        T(test_wrap_around),
        T(test_beyond_counter_range),
        T(test_late_isr_fires_all_in_order),
        T(test_set_cancel_from_fired),
        T(test_long_handlers),
        T(test_next_expiry),
        T(test_spurious_isr),
        T(test_random_against_model),
    };
#undef T
    int failed = cmocka_run_group_tests_name("vtimer, counter from 0", tests, start_zero, NULL);
    failed += cmocka_run_group_tests_name("vtimer, counter near wrap", tests, start_near_wrap, NULL);
    return failed;
}
