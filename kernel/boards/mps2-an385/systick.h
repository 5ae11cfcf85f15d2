/*
 * SysTick timer of ARMv6-M (24-bit down counter).
 */
#ifndef CAIRN_BOARD_SYSTICK_H
#define CAIRN_BOARD_SYSTICK_H

#include <stdint.h>

#define SYST_CSR   (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR   (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR   (*(volatile uint32_t *)0xE000E018u)
#define SYST_CALIB (*(volatile uint32_t *)0xE000E01Cu)

#define SYST_CSR_ENABLE    (1u << 0)
#define SYST_CSR_TICKINT   (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2) /* 1 = core clock */
#define SYST_CSR_COUNTFLAG (1u << 16)

#define SYST_MAX_RELOAD 0x00FFFFFFu

#endif
