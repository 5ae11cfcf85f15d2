/*
 * A small driver for Cairn's inter-processor bus controller and real-time clock
 * (kernel/boards/mps2-an385/cairn_bus.h, docs/device.md), for the device test firmware
 * under kernel/tests/device/. cairn-sim only: on QEMU the registers read as zero, so
 * bus_connected() is false and nothing here may be waited on.
 *
 * Frames are sent from thread mode only. The RX interrupt (NVIC line 24) is owned by
 * bus.c's irq24_handler: by default it masks IRQ_EN.RX, which is what bus_recv_wait()
 * needs to sleep with WFI; a program that wants to handle frames in the interrupt
 * installs its own handler with bus_set_rx_handler().
 */
#ifndef CAIRN_TEST_DEVICE_BUS_H
#define CAIRN_TEST_DEVICE_BUS_H

#include <stdint.h>

#include "cairn_bus.h"

/* Puts the controller in a known state at boot: interrupts masked (IRQ_EN = 0, NVIC line
 * 24 disabled and not pending), TX done and ERR cleared. The controller keeps its state
 * across a module's power cycle (docs/device.md, Power), the RX FIFO included, which this
 * leaves alone. */
void bus_init(void);

/* ID fields: this module's address, the number of modules, the connected bit. */
unsigned bus_address(void);
unsigned bus_modules(void);
int bus_connected(void);
/* bus_init(), then this module's address; -1 (after printing "FAIL bus not connected")
 * when the controller is not on a bus: a lone run or QEMU, where nothing may be waited on. */
int bus_start(void);

/* Waits while STATUS.TX_READY is clear, then composes a frame for `dest` (an address or
 * CAIRN_BUS_BROADCAST): TX_DEST, the whole words of buf with STR, the trailing bytes with
 * STRB. Does not queue it: bus_commit() does. buf needs no alignment. */
void bus_compose(unsigned dest, const void *buf, unsigned len);
/* Queues the composed frame (TX_SEND). */
static inline void bus_commit(void) { CAIRN_BUS_TX_SEND = 1u; }
/* bus_compose() then bus_commit(). */
void bus_send(unsigned dest, const void *buf, unsigned len);
/* Waits until nothing of this module's is queued or on the wire (STATUS.TX_IDLE). */
void bus_flush(void);

/* Pops the head frame of the RX FIFO: its source in *src (if src is not null), its first
 * min(length, cap) bytes in buf. Returns its length (which may be more than cap: the rest
 * is discarded), or -1 when the FIFO is empty. */
int bus_try_recv(uint8_t *src, void *buf, unsigned cap);
/* The same, and *status (if not null) is STATUS as it was with that frame at the head
 * (CAIRN_BUS_STATUS_RX_CORRUPT tells whether it failed its check). */
int bus_try_recv_status(uint8_t *src, void *buf, unsigned cap, uint32_t *status);
/* Sleeps (WFI, woken by the RX interrupt) until the RX FIFO holds a frame. */
void bus_wait_rx(void);
/* bus_wait_rx() then bus_try_recv_status(): the length of the frame popped. */
int bus_recv_wait(uint8_t *src, void *buf, unsigned cap);
int bus_recv_wait_status(uint8_t *src, void *buf, unsigned cap, uint32_t *status);

/* Powers module `addr` on or off (POWER). For another module it is a power frame sent in
 * this module's slot, so this waits for TX_READY first; for this module's own address
 * with on == 0 the module stops at once and this does not return. */
void bus_power(unsigned addr, int on);

/* RX interrupt handler: called from irq24_handler instead of the default (mask
 * IRQ_EN.RX). It must take the line down (pop every frame or mask IRQ_EN.RX), since RX is
 * level-sensitive. Null restores the default. */
void bus_set_rx_handler(void (*fn)(void));
/* IRQ_EN.RX and NVIC line 24 both enabled (the NVIC pending bit is left as it is). */
void bus_rx_irq_enable(void);

/* Ticks of the module's 32.768 kHz real-time clock since the start of the run. */
uint32_t rtc_count(void);

/* Thread-mode sleep with nothing to wake the module (every bus interrupt masked, the RX
 * line disabled in the NVIC): the module is finished but stays in the run. */
__attribute__((noreturn)) void bus_sleep_forever(void);

#endif
