/*
 * Cairn OS armv6m port: sleeping when nothing can run.
 */
#include <stdint.h>

#include "cairn/arch.h"

void arch_idle(uint32_t ticks_until_next_timer)
{
    /* TODO(issue 3, part 7): choose the sleep state by break-even time: set
     * SCB_SCR.SLEEPDEEP when ticks_until_next_timer exceeds the board's deep-sleep
     * break-even time (wake-up latency + energy break-even, from a board table
     * of sleep states that does not exist yet). Until then: plain WFI (sleep). */
    (void)ticks_until_next_timer;
    /* Called with PRIMASK set: WFI still wakes on a pending interrupt, which is
     * taken once the kernel restores PRIMASK. */
    __asm__ volatile("dsb\n\twfi" ::: "memory");
}
