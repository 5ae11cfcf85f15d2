/*
 * Cairn OS armv6m port: sleeping when nothing can run, in the state the kernel
 * chose from the board's table (kernel/boards/<board>/sleep_states.c).
 */
#include <stdint.h>

#include "cairn/arch.h"
#include "cairn/sleep.h"

#include "scb.h"

extern const struct cairn_sleep_table board_sleep_table;

const struct cairn_sleep_table *arch_sleep_table(void)
{
    return &board_sleep_table;
}

void arch_idle(uint32_t ticks_until_next_timer, const struct cairn_sleep_state *state)
{
    (void)ticks_until_next_timer;
    /* SLEEPDEEP selects the deep state for the WFI below (cairn-sim stores the
     * bit without a power effect yet; QEMU ignores it). */
    if (state->kind == CAIRN_SLEEP_DEEP)
        SCB_SCR |= SCR_SLEEPDEEP;
    else
        SCB_SCR &= ~SCR_SLEEPDEEP;
    /* Called with PRIMASK set: WFI still wakes on a pending interrupt, which is
     * taken once the kernel restores PRIMASK. */
    __asm__ volatile("dsb\n\twfi" ::: "memory");
}
