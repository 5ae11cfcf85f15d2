/*
 * Cairn OS: interrupts bound to messages, the general path (cairn/irq.h). The
 * armv6m fast path (arch/armv6m/fast.c) falls back to it.
 */
#include "kernel.h"

void cairn_irq_message(cairn_irq_binding_t *b)
{
    arch_irq_mask(b->irq);
    cairn_isr_enter(b->irq);
    (void)cairn__deliver(CAIRN_TASK_NONE, b->msg.dst, b->msg.port, 0, 0, 0);
    cairn_isr_exit();
}

void cairn_irq_unmask(unsigned irq)
{
    arch_irq_unmask(irq);
}
