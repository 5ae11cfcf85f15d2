/*
 * Cairn OS host port: what the kernel takes from the port (cairn/arch.h).
 */
#ifndef CAIRN_PORT_H
#define CAIRN_PORT_H

#include <stdint.h>

/* A nesting counter (kernel/arch/host/irq.c): restoring to 0 runs a dispatch an
 * interrupt requested meanwhile, as PendSV does on Cortex-M0+. */
uint32_t arch_irq_save(void);
void arch_irq_restore(uint32_t state);

/* Where the kernel lets an interrupt in between two stores (kernel.h): a test's
 * simulated interrupt, once (cairn_host_irq_window_set). */
void cairn_host_irq_window(void);
#define ARCH_IRQ_WINDOW() cairn_host_irq_window()

/* Whether a thread's saved context can be resumed by arch_thread_switch, the switch a thread's
 * own kernel call makes: any can (swapcontext), but not while the simulated timer interrupt
 * runs (kernel/arch/host/hwtimer.c), whose switch waits for its end as a pended PendSV does. */
int cairn_host_thread_switch_now(void);
static inline int arch_thread_resumes_by_call(uintptr_t saved_sp)
{
    (void)saved_sp;
    return cairn_host_thread_switch_now();
}

/* Interrupt line masking, recorded for tests (cairn_host_irq_masked). */
void arch_irq_mask(unsigned irq);
void arch_irq_unmask(unsigned irq);

/* The vector of an interrupt bound to a message: the general path. */
#define CAIRN__IRQ_VECTOR(vector, binding, level)                                                 \
    void vector(void);                                                                            \
    void vector(void)                                                                             \
    {                                                                                             \
        cairn_irq_message(&(binding));                                                            \
    }

#endif /* CAIRN_PORT_H */
