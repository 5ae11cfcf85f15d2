/*
 * Cairn OS idle loop. With nothing runnable the kernel chooses the deepest sleep
 * state of the port's table whose break-even time and wake-up latency fit before
 * the next timer expiry (cairn/sleep.h; docs/kernel.md, "Idle"), has the timer
 * interrupt come early by the state's wake-up latency, and calls the port's
 * arch_idle with it.
 */
#include "kernel.h"

#include "cairn/sleep.h"
#include "cairn/timer.h"

void cairn_idle(void)
{
    cairn_dispatch();
    uint32_t s = arch_irq_save();
    if (cairn_k.net)
        cairn_k.net->idle();
    if (!cairn__pending_above(-1)) {
        /* A ready thread outranks an idle message level: it runs instead. */
        if (cairn_k.nthreads && cairn__thread_any_ready()) {
            arch_irq_restore(s);
            cairn__thread_resched();
            return;
        }
        uint32_t ticks = cairn_timer_next_expiry();
        const struct cairn_sleep_table *t = arch_sleep_table();
        unsigned i = cairn_sleep_choose(t, ticks);
        const struct cairn_sleep_state *st = &t->states[i];
        /* A state that takes long to wake from would make the expiry late by its
         * wake-up latency: the timer interrupt comes that much early instead. Not
         * worth an extra interrupt for a short latency (cairn/sleep.h). */
        if (ticks != UINT32_MAX && st->wakeup_us >= CAIRN_IDLE_WAKE_EARLY_MIN_US)
            cairn_timer_wake_early(cairn_sleep_ticks(t, st->wakeup_us));
        CAIRN_TRACE(CAIRN_EV_IDLE, i, CAIRN_TRACE_SAT16(ticks));
        arch_idle(ticks, st);
    }
    arch_irq_restore(s);
}

_Noreturn void cairn_run(void)
{
    for (;;)
        cairn_idle();
}
