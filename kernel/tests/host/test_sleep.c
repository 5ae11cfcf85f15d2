/*
 * Sleep-state choice by break-even time (cairn/sleep.h,
 * docs/kernel.md "Idle"): the arithmetic on hand-computed tables, its boundaries,
 * and the state cairn_idle hands to arch_idle for timers at various distances.
 */
#include "ktest.h"

#include "cairn/arch_timer.h"
#include "cairn/sleep.h"
#include "hwtimer.h"

#define S(nm, p, tw, e, k) {.name = nm, .power_uw = p, .wakeup_us = tw, .transition_nj = e, .kind = k}

/* Hand-computed (1 tick = 1 us). Break-even of state i against j (the previous
 * state, or running: Ej = Tj = 0, Pj = run power):
 *   T_be = ((1000 Ei + Pj Tj) - (1000 Ej + Pi Ti)) / (Pj - Pi), rounded up
 *   A: ((10000 + 0) - (0 + 200*2)) / (1000 - 200)          = 9600 / 800    = 12
 *      (the CoMOS formula: (E_W - P_S T_W) / (P_I - P_S))
 *   B: ((102000 + 200*2) - (10000 + 40*50)) / (200 - 40)   = 90400 / 160   = 565
 *   C: ((100000 + 400) - (12000)) / 160                     = 88400 / 160   = 552.5 -> 553 */
static const struct cairn_sleep_state abc_states[] = {
    S("A", 200, 2, 10, CAIRN_SLEEP_WFI),
    S("B", 40, 50, 102, CAIRN_SLEEP_DEEP),
};
static const struct cairn_sleep_table abc = {abc_states, 2, 1000, 1000000u};

static const struct cairn_sleep_state c_states[] = {
    S("A", 200, 2, 10, CAIRN_SLEEP_WFI),
    S("C", 40, 50, 100, CAIRN_SLEEP_DEEP),
};
static const struct cairn_sleep_table ac = {c_states, 2, 1000, 1000000u};

static void test_breakeven_hand_computed(void **state)
{
    (void)state;
    assert_int_equal(cairn_sleep_breakeven_us(&abc, 0), 12);
    assert_int_equal(cairn_sleep_breakeven_us(&abc, 1), 565);
    assert_int_equal(cairn_sleep_breakeven_us(&ac, 1), 553); /* 552.5 rounded up */
}

static void test_choose_at_breakeven(void **state)
{
    (void)state;
    /* Exactly at the break-even time the energies are equal: the deeper state wins. */
    assert_int_equal(cairn_sleep_choose(&abc, 565), 1);
    assert_int_equal(cairn_sleep_choose(&abc, 564), 0);
    assert_int_equal(cairn_sleep_choose(&ac, 553), 1);
    assert_int_equal(cairn_sleep_choose(&ac, 552), 0);
    assert_int_equal(cairn_sleep_choose(&abc, 12), 0);
    /* Nothing pays off: still the shallowest state (idle must wait for an interrupt). */
    assert_int_equal(cairn_sleep_choose(&abc, 0), 0);
    assert_int_equal(cairn_sleep_choose(&abc, 11), 0);
    assert_int_equal(cairn_sleep_choose(&abc, 100000), 1);
}

/* Zero transition energy: X costs nothing extra (a <= b: break-even 0); Y neither,
 * but its wake-up latency is 1000 us. */
static const struct cairn_sleep_state xyz_states[] = {
    S("X", 500, 1, 0, CAIRN_SLEEP_WFI),
    S("Y", 100, 1000, 0, CAIRN_SLEEP_DEEP),
};
static const struct cairn_sleep_table xy = {xyz_states, 2, 1000, 1000000u};

static void test_zero_transition_energy(void **state)
{
    (void)state;
    assert_int_equal(cairn_sleep_breakeven_us(&xy, 0), 0); /* (0 - 500*1) < 0 -> 0 */
    assert_int_equal(cairn_sleep_breakeven_us(&xy, 1), 0); /* (0 + 500) - (100*1000) < 0 -> 0 */
}

static void test_latency_larger_than_slack(void **state)
{
    (void)state;
    /* Y's break-even time is 0 but its 1000 us wake-up must leave time asleep: the
     * kernel wakes 1000 ticks early, so 1000 ticks are not enough, 1001 are. */
    assert_int_equal(cairn_sleep_choose(&xy, 999), 0);
    assert_int_equal(cairn_sleep_choose(&xy, 1000), 0);
    assert_int_equal(cairn_sleep_choose(&xy, 1001), 1);
    assert_int_equal(cairn_sleep_choose(&xy, 1), 0);
}

static void test_no_timer_deepest(void **state)
{
    (void)state;
    assert_int_equal(cairn_sleep_choose(&abc, UINT32_MAX), 1);
    assert_int_equal(cairn_sleep_choose(&xy, UINT32_MAX), 1);
}

static void test_single_state(void **state)
{
    (void)state;
    static const struct cairn_sleep_state one[] = {S("wfi", 300, 1, 1, CAIRN_SLEEP_WFI)};
    static const struct cairn_sleep_table t = {one, 1, 1000, 1000000u};
    assert_int_equal(cairn_sleep_breakeven_us(&t, 0), 1); /* (1000 - 300*1) / (1000 - 300) */
    assert_int_equal(cairn_sleep_choose(&t, 0), 0);
    assert_int_equal(cairn_sleep_choose(&t, 5), 0);
    assert_int_equal(cairn_sleep_choose(&t, UINT32_MAX - 1), 0);
    assert_int_equal(cairn_sleep_choose(&t, UINT32_MAX), 0);
}

static void test_never_pays_off(void **state)
{
    (void)state;
    /* A deeper state that draws no less than the shallower one is never chosen
     * for a timer, however far. */
    static const struct cairn_sleep_state s[] = {
        S("a", 100, 1, 0, CAIRN_SLEEP_WFI),
        S("b", 100, 1, 0, CAIRN_SLEEP_DEEP),
    };
    static const struct cairn_sleep_table t = {s, 2, 1000, 1000000u};
    assert_int_equal(cairn_sleep_breakeven_us(&t, 1), UINT32_MAX);
    assert_int_equal(cairn_sleep_choose(&t, UINT32_MAX - 1), 0);
}

static void test_no_overflow(void **state)
{
    (void)state;
    /* Extreme figures saturate (UBSan would catch a wrap of a signed type; the
     * unsigned wraps are excluded by construction). */
    static const struct cairn_sleep_state s[] = {
        S("a", UINT32_MAX - 1, UINT32_MAX, UINT32_MAX, CAIRN_SLEEP_WFI),
        S("b", 0, UINT32_MAX, UINT32_MAX, CAIRN_SLEEP_DEEP),
    };
    static const struct cairn_sleep_table t = {s, 2, UINT32_MAX, UINT32_MAX};
    /* a: (1000 (2^32-1)) - ((2^32-2)(2^32-1)) < 0 -> 0 */
    assert_int_equal(cairn_sleep_breakeven_us(&t, 0), 0);
    /* b: 1000 (2^32-1) + (2^32-2)(2^32-1) overflows 64 bits: saturates */
    assert_int_equal(cairn_sleep_breakeven_us(&t, 1), UINT32_MAX);
    assert_int_equal(cairn_sleep_choose(&t, UINT32_MAX - 1), 0);
    /* Large tick counts at 25 MHz: ticks * 10^6 and us * tick_hz stay below 2^64. */
    static const struct cairn_sleep_state big[] = {
        S("a", 2700, 1, 8, CAIRN_SLEEP_WFI),
        S("b", 3, UINT32_MAX - 1, 0, CAIRN_SLEEP_DEEP),
    };
    static const struct cairn_sleep_table tb = {big, 2, 7500, 25000000u};
    /* b needs 4294967294 us = 107374182350 ticks: more than any 32-bit count. */
    assert_int_equal(cairn_sleep_choose(&tb, UINT32_MAX - 1), 0);
}

/* The mps2-an385 placeholder figures (kernel/boards/mps2-an385/sleep_states.c). */
static const struct cairn_sleep_state board_states[] = {
    S("sleep", 2700, 0, 8, CAIRN_SLEEP_WFI),
    S("deepsleep", 3, 5, 75, CAIRN_SLEEP_DEEP),
};

static void test_board_figures_25mhz(void **state)
{
    (void)state;
    static const struct cairn_sleep_table t = {board_states, 2, 7500, 25000000u};
    /* sleep: 8000 / 4800 = 1.7 -> 2 us;
     * deepsleep: (75000 + 2700 * 0 - 8000 - 3 * 5) / 2697 = 24.8 -> 25 us = 625 ticks. */
    assert_int_equal(cairn_sleep_breakeven_us(&t, 0), 2);
    assert_int_equal(cairn_sleep_breakeven_us(&t, 1), 25);
    assert_int_equal(cairn_sleep_choose(&t, 625), 1);
    assert_int_equal(cairn_sleep_choose(&t, 624), 0);
    assert_int_equal(cairn_sleep_ticks(&t, 5), 125);
    assert_int_equal(cairn_sleep_ticks(&t, 0), 0);
    assert_int_equal(cairn_sleep_choose(&t, UINT32_MAX - 1), 1);
    /* A 32768 Hz timer: the 25 us break-even is less than one tick, the 5 us wake-up
     * rounds up to one tick, and deepsleep needs time asleep beyond it. */
    static const struct cairn_sleep_table slow = {board_states, 2, 7500, 32768u};
    assert_int_equal(cairn_sleep_ticks(&slow, 5), 1);
    assert_int_equal(cairn_sleep_choose(&slow, 1), 0);
    assert_int_equal(cairn_sleep_choose(&slow, 2), 1);
}

/* ---- end to end: cairn_idle -> arch_idle(ticks, state) ------------------------------ */

static uint8_t last_idle_a(void)
{
    uint32_t w[CAIRN_TRACE_RING];
    size_t n = ktest_trace(w, CAIRN_TRACE_RING);
    for (size_t i = n; i-- > 0;)
        if (CAIRN_TRACE_EVENT(w[i]) == CAIRN_EV_IDLE)
            return (uint8_t)(w[i] >> 16);
    fail_msg("no IDLE event");
    return 0xFF;
}

static int idle_with_timer(uint32_t ticks)
{
    if (ticks != UINT32_MAX)
        assert_int_equal(cairn_timer_set(1, 0, ticks, false), CAIRN_OK);
    else
        assert_int_equal(cairn_timer_cancel(1, 0), CAIRN_OK);
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), ticks);
    int i = cairn_host_idle_last_state_index();
    assert_int_equal(last_idle_a(), i); /* the event log names the state too */
    return i;
}

static void test_idle_default_table(void **state)
{
    (void)state;
    /* The host default: the board figures with 1 tick = 1 us (break-even 2 and 25). */
    assert_int_equal(idle_with_timer(300), 1);
    assert_string_equal(cairn_host_idle_last_state()->name, "deepsleep");
    assert_int_equal(cairn_host_idle_last_state()->kind, CAIRN_SLEEP_DEEP);
    assert_int_equal(idle_with_timer(25), 1);
    assert_int_equal(idle_with_timer(24), 0);
    assert_string_equal(cairn_host_idle_last_state()->name, "sleep");
    assert_int_equal(idle_with_timer(1), 0);
    assert_int_equal(idle_with_timer(UINT32_MAX), 1); /* no timer */
    assert_int_equal(cairn_host_idle_calls(), 5);
}

/* Three states: break-even 12 (A), 565 (B against A), and D against B:
 *   ((1000*1000 + 40*50) - (102000 + 1*2000)) / (40 - 1) = 898000 / 39 = 23025.6 -> 23026,
 *   wake-up 2000 us. */
static const struct cairn_sleep_state abd_states[] = {
    S("A", 200, 2, 10, CAIRN_SLEEP_WFI),
    S("B", 40, 50, 102, CAIRN_SLEEP_DEEP),
    S("D", 1, 2000, 1000, CAIRN_SLEEP_DEEP),
};
static const struct cairn_sleep_table abd = {abd_states, 3, 1000, 1000000u};

static void test_idle_three_states(void **state)
{
    (void)state;
    cairn_host_set_sleep_table(&abd);
    assert_int_equal(cairn_sleep_breakeven_us(&abd, 2), 23026);
    assert_int_equal(idle_with_timer(10), 0);
    assert_int_equal(idle_with_timer(564), 0);
    assert_int_equal(idle_with_timer(565), 1);
    assert_int_equal(idle_with_timer(23025), 1);
    assert_int_equal(idle_with_timer(23026), 2);
    assert_int_equal(idle_with_timer(CAIRN_HWTIMER_HALF - 1u), 2);
    assert_int_equal(idle_with_timer(UINT32_MAX), 2);
}

/* The timer moves closer while asleep: the next idle chooses again. */
static void sleep_a_while(uint32_t ticks)
{
    (void)ticks;
    host_timer_advance(280);
}

static void test_idle_rechooses_as_timer_nears(void **state)
{
    (void)state;
    assert_int_equal(cairn_timer_set(1, 0, 300, false), CAIRN_OK);
    cairn_host_set_idle_hook(sleep_a_while);
    cairn_idle(); /* 300 ticks: deepsleep; a (spurious) wake-up after 280 */
    assert_int_equal(cairn_host_idle_last_state_index(), 1);
    cairn_host_set_idle_hook(NULL);
    cairn_idle(); /* 20 ticks left: below the 26 us break-even */
    assert_int_equal(cairn_host_idle_last_ticks(), 20);
    assert_int_equal(cairn_host_idle_last_state_index(), 0);
    assert_int_equal(cairn_timer_cancel(1, 0), CAIRN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_breakeven_hand_computed),
        KTEST(test_choose_at_breakeven),
        KTEST(test_zero_transition_energy),
        KTEST(test_latency_larger_than_slack),
        KTEST(test_no_timer_deepest),
        KTEST(test_single_state),
        KTEST(test_never_pays_off),
        KTEST(test_no_overflow),
        KTEST(test_board_figures_25mhz),
        KTEST(test_idle_default_table),
        KTEST(test_idle_three_states),
        KTEST(test_idle_rechooses_as_timer_nears),
    };
    return cmocka_run_group_tests_name("sleep", tests, NULL, NULL);
}
