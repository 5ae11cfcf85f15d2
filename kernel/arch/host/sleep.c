/*
 * Cairn OS host port: arch_idle records its calls and runs a test's hook (a
 * simulated interrupt while asleep). Sleep-state selection is not modelled here.
 */
#include "cairn_host.h"

#include "cairn/arch.h"

static cairn_host_idle_hook_t hook;
static uint32_t calls;
static uint32_t last_ticks;

void arch_idle(uint32_t ticks_until_next_timer)
{
    calls++;
    last_ticks = ticks_until_next_timer;
    if (hook)
        hook(ticks_until_next_timer);
}

void cairn_host_set_idle_hook(cairn_host_idle_hook_t h)
{
    hook = h;
}

uint32_t cairn_host_idle_calls(void)
{
    return calls;
}

uint32_t cairn_host_idle_last_ticks(void)
{
    return last_ticks;
}

void cairn_host_idle_reset(void)
{
    calls = 0;
    last_ticks = 0;
    hook = 0;
}
