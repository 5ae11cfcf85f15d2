/*
 * System Control Block of ARMv6-M.
 */
#ifndef CAIRN_BOARD_SCB_H
#define CAIRN_BOARD_SCB_H

#include <stdint.h>

#define SCB_CPUID (*(volatile uint32_t *)0xE000ED00u)
#define SCB_ICSR  (*(volatile uint32_t *)0xE000ED04u)
#define SCB_VTOR  (*(volatile uint32_t *)0xE000ED08u)
#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define SCB_SCR   (*(volatile uint32_t *)0xE000ED10u)
#define SCB_CCR   (*(volatile uint32_t *)0xE000ED14u)
#define SCB_SHPR2 (*(volatile uint32_t *)0xE000ED1Cu) /* [31:24] SVCall */
#define SCB_SHPR3 (*(volatile uint32_t *)0xE000ED20u) /* [23:16] PendSV, [31:24] SysTick */

#define ICSR_NMIPENDSET   (1u << 31)
#define ICSR_PENDSVSET    (1u << 28)
#define ICSR_PENDSVCLR    (1u << 27)
#define ICSR_PENDSTSET    (1u << 26)
#define ICSR_PENDSTCLR    (1u << 25)
#define ICSR_VECTPENDING(v) (((v) >> 12) & 0x1FFu)
#define ICSR_VECTACTIVE(v)  ((v) & 0x1FFu)

#define AIRCR_VECTKEY      (0x05FAu << 16)
#define AIRCR_SYSRESETREQ  (1u << 2)

#define SCR_SLEEPONEXIT (1u << 1)
#define SCR_SLEEPDEEP   (1u << 2)
#define SCR_SEVONPEND   (1u << 4)

/* Exception numbers. */
#define EXC_NMI       2
#define EXC_HARDFAULT 3
#define EXC_SVCALL    11
#define EXC_PENDSV    14
#define EXC_SYSTICK   15
#define EXC_IRQ(n)    (16 + (n))

static inline void scb_set_svcall_priority(uint32_t prio)
{
    SCB_SHPR2 = (SCB_SHPR2 & 0x00FFFFFFu) | ((prio & 0xFFu) << 24);
}
static inline void scb_set_pendsv_priority(uint32_t prio)
{
    SCB_SHPR3 = (SCB_SHPR3 & 0xFF00FFFFu) | ((prio & 0xFFu) << 16);
}
static inline void scb_set_systick_priority(uint32_t prio)
{
    SCB_SHPR3 = (SCB_SHPR3 & 0x00FFFFFFu) | ((prio & 0xFFu) << 24);
}

#endif
