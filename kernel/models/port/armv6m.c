/*
 * The models' CPU port on ARMv6-M: the kernel port's PRIMASK section (cairn_port.h) and
 * the same DSB; WFI as the kernel's idle (kernel/arch/armv6m/idle.c), without its sleep
 * table: the models choose no sleep state.
 */
#include "cairn_port.h"
#include "model_port.h"

uint32_t model_irq_save(void)
{
    return arch_irq_save();
}

void model_irq_restore(uint32_t state)
{
    arch_irq_restore(state);
}

void model_wait_for_interrupt(void)
{
    __asm__ volatile("dsb\n\twfi" ::: "memory");
}
