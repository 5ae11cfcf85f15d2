/*
 * TOSH_run_task of the paper's Fig. 1 a), with the sleep decision made safe: the figure
 * calls TOSH_sleep() after the queue was seen empty with interrupts enabled, so a post
 * from an interrupt in between would sleep with a task queued. Here "empty" is tested
 * with interrupts masked and the wait wakes on an interrupt already pending.
 */
#include "model_port.h"
#include "tinyos.h"

void tos_run_task(struct tos_sched *s)
{
    while (tos_run_next_task(s))
        ;
    uint32_t irq = model_irq_save();
    if (s->count == 0) {
        s->sleeps++;
        model_wait_for_interrupt();
    }
    model_irq_restore(irq);
}

void tos_run(struct tos_sched *s, volatile const bool *stop)
{
    for (;;) {
        while (tos_run_next_task(s))
            ;
        uint32_t irq = model_irq_save();
        if (*stop) {
            model_irq_restore(irq);
            return;
        }
        if (s->count == 0) {
            s->sleeps++;
            model_wait_for_interrupt();
        }
        model_irq_restore(irq);
    }
}
