/*
 * The idle loop: dispatches what is queued, and otherwise calls arch_idle with
 * the time to the next timer expiry and the sleep state chosen for it
 * (test_sleep.c tests the choice).
 */
#include "ktest.h"

#include "cairn/arch_timer.h"
#include "cairn/sleep.h"
#include "hwtimer.h"

static struct rec t;

static void test_idle_no_timer(void **state)
{
    (void)state;
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_int_equal(cairn_host_idle_last_ticks(), UINT32_MAX);
}

static void test_idle_runs_queued_first(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    rec_task_uninit(1, &t, 2, 0);
    assert_int_equal(cairn_post(1, CAIRN_PORT(3), NULL, 0), CAIRN_OK); /* buffered */
    cairn_idle(); /* a message that cannot run does not keep the CPU awake */
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_log("");
    /* INIT queued from an interrupt: the idle loop runs it, then the buffered one. */
    cairn_isr_enter(16);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    cairn_isr_exit();
    assert_log("T:INIT T:3");
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), 2);
}

static void start_timer(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT)
        assert_int_equal(cairn_timer_start(1, 300, false), CAIRN_OK);
}

/* The "interrupt during sleep": the timer expires while idle. */
static void sleep_until_timer(uint32_t ticks)
{
    host_timer_advance(ticks);
    klog("woke");
}

static void test_idle_until_timer(void **state)
{
    (void)state;
    t = (struct rec){.name = "T", .hook = start_timer};
    rec_task(1, &t, 2, 0);
    klog_reset();
    host_timer_advance(100);
    cairn_host_set_idle_hook(sleep_until_timer);
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), 200);
    assert_log("woke T:T1"); /* the handler runs after the wake-up, not inside arch_idle */
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_ticks(), UINT32_MAX);
}

/* A deep state that takes 50 us to wake from: the timer interrupt comes 50 ticks
 * (1 tick = 1 us) before the expiry, fires nothing, and the expiry is on time. */
static const struct cairn_sleep_state slow_states[] = {
    {.name = "sleep", .power_uw = 2700, .wakeup_us = 0, .transition_nj = 8, .kind = CAIRN_SLEEP_WFI},
    {.name = "stop", .power_uw = 3, .wakeup_us = 50, .transition_nj = 75, .kind = CAIRN_SLEEP_DEEP},
};
static const struct cairn_sleep_table slow_table = {slow_states, 2, 7500, 1000000u};
static uint32_t armed_at, now_at_sleep;

static void note_armed(uint32_t ticks)
{
    (void)ticks;
    assert_true(host_timer_armed(&armed_at));
    now_at_sleep = arch_timer_now();
}

static void test_idle_wakes_early_by_the_wakeup_latency(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    rec_task(1, &t, 2, 0);
    klog_reset();
    cairn_host_set_sleep_table(&slow_table);
    assert_int_equal(cairn_timer_set(1, 0, 1000, false), CAIRN_OK);
    cairn_host_set_idle_hook(note_armed);
    cairn_idle();
    assert_int_equal(cairn_host_idle_last_state_index(), 1);
    assert_int_equal(armed_at - now_at_sleep, 950);
    unsigned isrs = host_timer_isr_count();
    host_timer_advance(950); /* the early interrupt: nothing due yet */
    assert_int_equal(host_timer_isr_count(), isrs + 1);
    assert_log("");
    assert_true(host_timer_armed(&armed_at));
    assert_int_equal(armed_at - arch_timer_now(), 50); /* re-armed for the expiry itself */
    cairn_idle(); /* 50 us left: too short for "stop", so "sleep", with no early interrupt */
    assert_int_equal(cairn_host_idle_last_state_index(), 0);
    assert_int_equal(armed_at - now_at_sleep, 50);
    host_timer_advance(50);
    assert_log("T:T0");
}

/* Interrupts during the sleep choice (the idle loop's ARCH_IRQ_WINDOW, where they are
 * enabled): one that changes nothing lets the choice stand; one that brings a timer closer
 * makes the call return without sleeping, and the next call chooses again. */
static void sooner_timer(void)
{
    klog("irq");
    assert_int_equal(cairn_timer_set(1, 1, 100, false), CAIRN_OK);
}

/* The idle loop's dispatch reaches a window first: the interrupt is for the next one. */
static void (*during_choice)(void);

static void at_the_next_window(void)
{
    cairn_host_irq_window_set(during_choice);
}

/* T, a timer 1000 ticks away, then one idle call with irq run during its sleep choice. */
static void idle_with_an_interrupt_during_the_choice(void (*irq)(void))
{
    t = (struct rec){.name = "T"};
    rec_task(1, &t, 2, 0);
    klog_reset();
    assert_int_equal(cairn_timer_set(1, 0, 1000, false), CAIRN_OK);
    during_choice = irq;
    cairn_host_irq_window_set(at_the_next_window);
    cairn_idle();
}

static void test_an_interrupt_during_the_choice_that_brings_a_timer_closer_restarts_it(void **state)
{
    (void)state;
    idle_with_an_interrupt_during_the_choice(sooner_timer);
    assert_log("irq");
    assert_int_equal(cairn_host_idle_calls(), 0); /* chosen for 1000 ticks: not slept on */
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_int_equal(cairn_host_idle_last_ticks(), 100);
}

static void post_to_t(void)
{
    cairn_isr_enter(16);
    assert_int_equal(cairn_post(1, CAIRN_PORT(3), NULL, 0), CAIRN_OK);
    cairn_isr_exit();
}

static void test_an_interrupt_during_the_choice_runs_at_once_and_the_choice_stands(void **state)
{
    (void)state;
    idle_with_an_interrupt_during_the_choice(post_to_t);
    assert_log("T:3"); /* handled during the choice, not after a sleep */
    assert_int_equal(cairn_host_idle_calls(), 1);
    assert_int_equal(cairn_host_idle_last_ticks(), 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_idle_no_timer),
        KTEST(test_idle_runs_queued_first),
        KTEST(test_idle_until_timer),
        KTEST(test_idle_wakes_early_by_the_wakeup_latency),
        KTEST(test_an_interrupt_during_the_choice_that_brings_a_timer_closer_restarts_it),
        KTEST(test_an_interrupt_during_the_choice_runs_at_once_and_the_choice_stands),
    };
    return cmocka_run_group_tests_name("idle", tests, NULL, NULL);
}
