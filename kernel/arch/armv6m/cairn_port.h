/*
 * Cairn OS armv6m port: what the kernel inlines from the port (cairn/arch.h).
 */
#ifndef CAIRN_PORT_H
#define CAIRN_PORT_H

#include <stdint.h>

/* PRIMASK. Inline: the send fast path has one such section. No ISB after the
 * restore: the core takes a pending interrupt after the MSR anyway (QEMU ends
 * its translation block at an MSR to PRIMASK). */
static inline uint32_t arch_irq_save(void)
{
    uint32_t s;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(s)::"memory");
    return s;
}

static inline void arch_irq_restore(uint32_t state)
{
    __asm__ volatile("msr primask, %0" ::"r"(state) : "memory");
}

/* The virtual timers' lock (cairn/arch_timer.h) is the same PRIMASK section. */
#define CAIRN_PORT_TIMER_LOCK 1
static inline uint32_t arch_timer_lock(void)
{
    return arch_irq_save();
}

static inline void arch_timer_unlock(uint32_t state)
{
    arch_irq_restore(state);
}

/* NVIC line masking for interrupts bound to messages (cairn/irq.h). */
static inline void arch_irq_mask(unsigned irq)
{
    *(volatile uint32_t *)0xE000E180u = 1u << irq; /* NVIC_ICER */
}

/* The pending latch first: a level-sensitive line that stayed high while masked left it set,
 * and with the device served it is stale (one more, empty, message). A line still high pends
 * again at once, so no request is lost. */
static inline void arch_irq_unmask(unsigned irq)
{
    *(volatile uint32_t *)0xE000E280u = 1u << irq; /* NVIC_ICPR */
    *(volatile uint32_t *)0xE000E100u = 1u << irq; /* NVIC_ISER */
}

/* Whether a thread's saved context (its saved SP) can be resumed by arch_thread_switch, the
 * switch a thread's own kernel call makes (kernel/arch/armv6m/thread.c): it switched itself out
 * by a call, so its fabricated exception frame's pc is cairn__armv6m_resume_pc. One that an
 * interrupt preempted has a full frame (r0-r3, r12, lr, flags, perhaps an alignment word):
 * PendSV resumes it. */
extern const uint16_t cairn__armv6m_resume_pc[];
static inline int arch_thread_resumes_by_call(uintptr_t saved_sp)
{
    return ((const uint32_t *)saved_sp)[8 + 6] == (uint32_t)(uintptr_t)cairn__armv6m_resume_pc;
}

/* The send fast path is assembly (kernel/arch/armv6m/fast.c), for fixed priority only:
 * it hard-codes that policy's test (docs/policies.md), so send.c looks at the policy too. */
#define CAIRN_PORT_FAST_SEND 1

/* The uncontended mutex's take and give are assembly (kernel/arch/armv6m/sem_fast.c). */
#define CAIRN_PORT_SEM_FAST 1
/* ... and cairn_mutex_lock / cairn_mutex_unlock inline them at the call site
 * (cairn_port_mutex.h, included by cairn/sem.h). */
#define CAIRN_PORT_MUTEX_INLINE "cairn_port_mutex.h"

/* The vector of an interrupt bound to a message: r0 = the binding, then the
 * fast path (kernel/arch/armv6m/fast.c; the shared section prefix keeps it in
 * reach of B). */
#define CAIRN__IRQ_VECTOR(vector, binding, level)                                                 \
    void vector(void);                                                                            \
    __attribute__((naked, section(".text.cairn_fast." #vector))) void vector(void)                \
    {                                                                                             \
        __asm__ volatile("ldr  r0, =%c0\n\t"                                                      \
                         "b    %c1\n\t"                                                           \
                         ".ltorg" ::"i"(&(binding)),                                              \
                         "i"((level) ? cairn__irq_fast_level : cairn__irq_fast));                 \
    }
void cairn__irq_fast(void);
void cairn__irq_fast_level(void);

/* A binding's vector that goes to entry instead of the binding's fast path (r0 = the
 * binding): the bus RX interrupt's fast path, kernel/arch/armv6m/net/net_fast.c. */
#define CAIRN__IRQ_VECTOR_VIA(vector, binding, entry)                                             \
    void vector(void);                                                                            \
    void entry(void);                                                                             \
    __attribute__((naked, section(".text.cairn_fast." #vector))) void vector(void)                \
    {                                                                                             \
        __asm__ volatile("ldr  r0, =%c0\n\t"                                                      \
                         "b    %c1\n\t"                                                           \
                         ".ltorg" ::"i"(&(binding)),                                              \
                         "i"(entry));                                                             \
    }
void cairn__armv6m_return_into(void);

#endif /* CAIRN_PORT_H */
