/*
 * Cairn OS idle loop. With nothing runnable the kernel calls the port's
 * arch_idle with the time to the next timer expiry; choosing the sleep state by
 * break-even time is the port's job (docs/kernel.md, "Idle").
 */
#include "kernel.h"

#include "cairn/timer.h"

void cairn_idle(void)
{
    cairn_dispatch();
    uint32_t s = arch_irq_save();
    if (!cairn__pending_above(PRIO_IDLE)) {
        uint32_t ticks = cairn_timer_next_expiry();
        CAIRN_TRACE(CAIRN_EV_IDLE, 0, CAIRN_TRACE_SAT16(ticks));
        arch_idle(ticks);
    }
    arch_irq_restore(s);
}

_Noreturn void cairn_run(void)
{
    for (;;)
        cairn_idle();
}
