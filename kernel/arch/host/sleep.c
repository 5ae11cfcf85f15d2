/*
 * Cairn OS host port: arch_idle records its calls and the sleep state the kernel
 * chose, and runs a test's hook (a simulated interrupt while asleep). The sleep
 * table is a default (1 tick = 1 us) or the one a test set.
 */
#include "cairn_host.h"

#include "cairn/arch.h"
#include "cairn/sleep.h"

/* The default: round STM32L0-class figures (the host tests' expectations), with
 * 1 tick = 1 us. */
static const struct cairn_sleep_state default_states[] = {
    {.name = "sleep", .power_uw = 2700, .wakeup_us = 0, .transition_nj = 8, .kind = CAIRN_SLEEP_WFI},
    {.name = "deepsleep", .power_uw = 3, .wakeup_us = 5, .transition_nj = 75, .kind = CAIRN_SLEEP_DEEP},
};
static const struct cairn_sleep_table default_table = {
    .states = default_states,
    .count = sizeof default_states / sizeof default_states[0],
    .run_power_uw = 7500,
    .tick_hz = 1000000u,
};

static cairn_host_idle_hook_t hook;
static uint32_t calls;
static uint32_t last_ticks;
static const struct cairn_sleep_state *last_state;
static const struct cairn_sleep_table *table = &default_table;

const struct cairn_sleep_table *arch_sleep_table(void)
{
    return table;
}

void arch_idle(uint32_t ticks_until_next_timer, const struct cairn_sleep_state *state)
{
    calls++;
    last_ticks = ticks_until_next_timer;
    last_state = state;
    if (hook)
        hook(ticks_until_next_timer);
}

void cairn_host_set_idle_hook(cairn_host_idle_hook_t h)
{
    hook = h;
}

void cairn_host_set_sleep_table(const struct cairn_sleep_table *t)
{
    table = t ? t : &default_table;
}

uint32_t cairn_host_idle_calls(void)
{
    return calls;
}

uint32_t cairn_host_idle_last_ticks(void)
{
    return last_ticks;
}

const struct cairn_sleep_state *cairn_host_idle_last_state(void)
{
    return last_state;
}

int cairn_host_idle_last_state_index(void)
{
    return last_state ? (int)(last_state - table->states) : -1;
}

void cairn_host_idle_reset(void)
{
    calls = 0;
    last_ticks = 0;
    last_state = 0;
    hook = 0;
    table = &default_table;
}
