/*
 * NVIC of ARMv6-M (Cortex-M0+: 32 interrupts, 2 priority bits; priorities
 * are the top bits of each byte, so use only 0x00, 0x40, 0x80, 0xC0).
 * IPR registers are word-access only on ARMv6-M.
 */
#ifndef CAIRN_BOARD_NVIC_H
#define CAIRN_BOARD_NVIC_H

#include <stdint.h>

#define NVIC_ISER (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER (*(volatile uint32_t *)0xE000E180u)
#define NVIC_ISPR (*(volatile uint32_t *)0xE000E200u)
#define NVIC_ICPR (*(volatile uint32_t *)0xE000E280u)
#define NVIC_IPR(n) (*(volatile uint32_t *)(0xE000E400u + 4u * (unsigned)(n)))

#define NVIC_PRIO_HIGHEST 0x00u
#define NVIC_PRIO_HIGH    0x40u
#define NVIC_PRIO_LOW     0x80u
#define NVIC_PRIO_LOWEST  0xC0u

static inline void nvic_enable(unsigned irq) { NVIC_ISER = 1u << irq; }
static inline void nvic_disable(unsigned irq) { NVIC_ICER = 1u << irq; }
static inline void nvic_set_pending(unsigned irq) { NVIC_ISPR = 1u << irq; }
static inline void nvic_clear_pending(unsigned irq) { NVIC_ICPR = 1u << irq; }
static inline int nvic_is_enabled(unsigned irq) { return (NVIC_ISER >> irq) & 1u; }
static inline int nvic_is_pending(unsigned irq) { return (NVIC_ISPR >> irq) & 1u; }

static inline void nvic_set_priority(unsigned irq, uint32_t prio)
{
    unsigned shift = 8u * (irq & 3u);
    uint32_t v = NVIC_IPR(irq >> 2);
    v &= ~(0xFFu << shift);
    v |= (prio & 0xFFu) << shift;
    NVIC_IPR(irq >> 2) = v;
}

static inline uint32_t nvic_get_priority(unsigned irq)
{
    return (NVIC_IPR(irq >> 2) >> (8u * (irq & 3u))) & 0xFFu;
}

#endif
