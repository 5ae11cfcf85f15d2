/*
 * CMSDK APB timer (32-bit down counter clocked by PCLK = 25 MHz).
 * timer0 at 0x40000000 (IRQ 8), timer1 at 0x40001000 (IRQ 9).
 */
#ifndef CAIRN_BOARD_CMSDK_TIMER_H
#define CAIRN_BOARD_CMSDK_TIMER_H

#include <stdint.h>
#include "board.h"

struct cmsdk_timer {
    volatile uint32_t ctrl;      /* +0x0 */
    volatile uint32_t value;     /* +0x4 */
    volatile uint32_t reload;    /* +0x8 */
    volatile uint32_t intstatus; /* +0xC read: INTSTATUS, write 1: INTCLEAR */
};

#define CMSDK_TIMER0 ((struct cmsdk_timer *)BOARD_TIMER0_BASE)
#define CMSDK_TIMER1 ((struct cmsdk_timer *)BOARD_TIMER1_BASE)

#define CMSDK_TIMER_CTRL_EN     (1u << 0)
#define CMSDK_TIMER_CTRL_EXTIN  (1u << 1) /* external input as enable */
#define CMSDK_TIMER_CTRL_EXTCLK (1u << 2) /* external input as clock */
#define CMSDK_TIMER_CTRL_IRQEN  (1u << 3)
#define CMSDK_TIMER_INT         (1u << 0)

#endif
