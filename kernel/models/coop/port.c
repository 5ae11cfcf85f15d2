/*
 * Ports: the interrupt handler only counts; the polling object takes the count in one
 * masked read-and-clear, so an interrupt between the read and the clear is not lost.
 */
#include "coop.h"
#include "model_port.h"

void coop_port_signal(struct coop_port *p)
{
    uint32_t irq = model_irq_save();
    p->pending++;
    p->signalled++;
    model_irq_restore(irq);
}

uint32_t coop_port_take(struct coop_port *p)
{
    uint32_t irq = model_irq_save();
    uint32_t n = p->pending;
    p->pending = 0;
    model_irq_restore(irq);
    if (n > p->max_batch)
        p->max_batch = n;
    return n;
}
