/*
 * Cairn OS armv6m port (Cortex-M0+) on board mps2-an385: what an application's
 * main() needs besides the kernel headers. Design: docs/kernel.md, "armv6m port".
 *
 * Resources the port owns: CMSDK timer1 (free-running counter, no interrupt),
 * CMSDK timer0 (compare, IRQ 8, irq8_handler), PendSV (pendsv_handler) and SVCall
 * (svc_handler, used only to leave the dispatch trampoline).
 */
#ifndef CAIRN_ARMV6M_H
#define CAIRN_ARMV6M_H

#include <stdint.h>

#include "board.h"

/* The virtual timers count hardware ticks: the CMSDK timers run at PCLK. */
#define CAIRN_TICKS_PER_SECOND BOARD_CORE_CLOCK_HZ

/* The IRQ of the compare timer (for the event log: IRQ_ENTER's b field). */
#define CAIRN_ARMV6M_TIMER_IRQ IRQ_TIMER0

/* Starts the hardware counter at 0, sets the exception priorities (PendSV lowest,
 * timer0 above it) and enables the timer interrupt. Call first thing in main(),
 * before cairn_timer_init. */
void cairn_port_init(void);

#endif /* CAIRN_ARMV6M_H */
