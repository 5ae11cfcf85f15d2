/*
 * Cairn OS idle loop. With nothing runnable the kernel chooses the deepest sleep
 * state of the port's table whose break-even time and wake-up latency fit before
 * the next timer expiry (cairn/sleep.h; docs/kernel.md, "Idle"), has the timer
 * interrupt come early by the state's wake-up latency, and calls the port's
 * arch_idle with it.
 *
 * The choice runs with interrupts enabled: it costs 64-bit arithmetic as soon as a
 * timer runs, and an interrupt that came during a masked choice waited for it (a
 * migration's commit arriving at an idle destination, say). Interrupts are masked
 * again only to re-check what the choice depended on and to sleep: nothing ready,
 * and the soonest expiry the same (cairn__timer_stamp). An interrupt during the
 * choice that changed either makes this call return without sleeping, and the loop
 * chooses again.
 */
#include "kernel.h"

#include "cairn/sleep.h"
#include "cairn/timer.h"

/* Whether a message or a thread is ready (interrupts masked). Out of line: inlined, its
 * thread test's block went after the sleep, which then branched to the unmasking, two
 * cycles more on every wake-up. */
__attribute__((noinline)) static bool ready(void)
{
    return cairn__pending_above(-1) || (cairn_k.nthreads && cairn__thread_any_ready());
}

void cairn_idle(void)
{
    cairn_dispatch();
    uint32_t s = arch_irq_save();
    if (cairn__pending_above(-1)) {
        arch_irq_restore(s);
        return;
    }
    /* A ready thread outranks an idle message level: it runs instead. */
    if (cairn_k.nthreads && cairn__thread_any_ready()) {
        arch_irq_restore(s);
        cairn__thread_resched();
        return;
    }
    uint64_t stamp = cairn__timer_stamp();
    arch_irq_restore(s);
    /* Read unmasked (it masks for itself): what it returns depends on the soonest expiry
     * alone, which the stamp re-checked below covers, and an interrupt that came meanwhile
     * (a migration's commit at an idle destination, say) is taken at once. */
    uint32_t ticks = cairn_timer_next_expiry();
    const struct cairn_sleep_table *t = arch_sleep_table();
    unsigned i = cairn_sleep_choose(t, ticks);
    const struct cairn_sleep_state *st = &t->states[i];
    /* A state that takes long to wake from would make the expiry late by its wake-up
     * latency: the timer interrupt comes that much early instead. Not worth an extra
     * interrupt for a short latency (cairn/sleep.h). */
    uint32_t early = ticks != UINT32_MAX && st->wakeup_us >= CAIRN_IDLE_WAKE_EARLY_MIN_US
                         ? cairn_sleep_ticks(t, st->wakeup_us)
                         : 0;
    ARCH_IRQ_WINDOW();
    s = arch_irq_save();
    /* The bus manager's hook here, masked up to the sleep: an interrupt after it could
     * leave a line masked for a full pool while the module sleeps. */
    if (cairn_k.net)
        cairn_k.net->idle();
    if (!ready() && cairn__timer_stamp() == stamp) {
        if (early)
            cairn_timer_wake_early(early);
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
