/*
 * What the execution models need from the CPU: a critical section and "wait for an
 * interrupt with interrupts masked". Two ports: armv6m.c (PRIMASK and WFI, after the
 * kernel's armv6m port) and the host tests' fake (kernel/tests/host/models/).
 */
#ifndef CAIRN_MODEL_PORT_H
#define CAIRN_MODEL_PORT_H

#include <stdint.h>

uint32_t model_irq_save(void);
void model_irq_restore(uint32_t state);
/* Called inside model_irq_save(): returns once an interrupt is pending; the interrupt
 * runs at the model_irq_restore() that follows. A pending interrupt that arrived between
 * the caller's last check and this call wakes it at once (ARMv6-M WFI with PRIMASK set),
 * which is what closes the "queue empty, then sleep" race. */
void model_wait_for_interrupt(void);

#endif
