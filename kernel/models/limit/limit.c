/*
 * The LIMIT harness. The only state is counting; the idle loop is the race-free wait of
 * the other models (test with interrupts masked, then WFI).
 */
#include "limit.h"
#include "model_port.h"

void limit_call(struct limit_work *w)
{
    bool outer = w->running;
    if (outer)
        w->nested++;
    w->running = true;
    w->fn(w->arg);
    w->running = outer;
    w->runs++;
}

void limit_idle(volatile const bool *stop)
{
    uint32_t irq = model_irq_save();
    while (!*stop) {
        model_wait_for_interrupt();
        model_irq_restore(irq);
        irq = model_irq_save();
    }
    model_irq_restore(irq);
}
