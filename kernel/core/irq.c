/*
 * Cairn OS: interrupts bound to messages (cairn/irq.h): the general path, which
 * the armv6m fast path (arch/armv6m/fast.c) falls back to, and the upkeep of the
 * bindings' cached task data.
 */
#include "kernel.h"

void cairn_irq_message(cairn_irq_binding_t *b)
{
    if (b->level)
        arch_irq_mask(b->irq);
    cairn_isr_enter(b->irq);
    (void)cairn__signal(b->frame.msg.dst, b->frame.msg.port);
    cairn_isr_exit();
}

void cairn_irq_unmask(unsigned irq)
{
    arch_irq_unmask(irq);
}

void cairn__irq_bindings_forget(void)
{
    for (cairn_irq_binding_t *b = __start_cairn_irq_bindings; b && b < __stop_cairn_irq_bindings; b++)
        b->frame.tcb = 0;
}

void cairn__irq_bindings_refresh(cairn_task_id_t id, cairn_tcb_t *t)
{
    for (cairn_irq_binding_t *b = __start_cairn_irq_bindings; b && b < __stop_cairn_irq_bindings; b++) {
        if (b->frame.msg.dst != id)
            continue;
        uint32_t s = arch_irq_save();
        b->frame.tcb = t;
        if (t) {
            b->frame.prio = t->prio;
            b->frame.msg.prio = t->prio;
            arch_irq_binding_fill(b, t);
        }
        arch_irq_restore(s);
    }
}
