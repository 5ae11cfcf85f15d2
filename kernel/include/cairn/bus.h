/*
 * What a board's bus driver provides to the bus manager (kernel/core/net/): the
 * module's port on the inter-processor bus, frame by frame. mps2-an385's driver is
 * kernel/boards/mps2-an385/bus_driver.c (the cairn-bus-ctrl registers, docs/device.md);
 * the host port's is an in-process simulated bus (kernel/arch/host/simbus.c).
 *
 * The driver's interrupts (frame received, frame delivered, error) are bound to the bus
 * manager task (CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE) as level-sensitive messages; the
 * bus manager calls cairn_bus_serviced() when it has served them.
 */
#ifndef CAIRN_BUS_H
#define CAIRN_BUS_H

#include "cairn/types.h"

/* Puts the controller in a known state and enables its interrupts. False when the
 * module is not on a bus. */
bool cairn_bus_init(void);
/* This module's address; the number of modules on the bus. */
uint8_t cairn_bus_address(void);
uint8_t cairn_bus_modules(void);

/* Nothing of this module's is queued or on the wire. */
bool cairn_bus_tx_idle(void);
/* Writes one frame for dst (an address or CAIRN_NET_BROADCAST), header then payload,
 * and queues it. Called with interrupts masked, when cairn_bus_tx_idle(). */
void cairn_bus_tx(uint8_t dst, const uint8_t *hdr, unsigned hdr_len, const void *payload,
                  unsigned len);

/* The same for a TIMESYNC frame (docs/distributed.md, "Time synchronisation"): after the
 * header and payload, the driver appends stamp()'s 8 bytes (little-endian) as the last
 * thing before it commits the frame, so the stamp is taken as late as it can be; returns
 * the stamp it wrote. */
uint64_t cairn_bus_tx_stamped(uint8_t dst, const uint8_t *hdr, unsigned hdr_len,
                              const void *payload, unsigned len, uint64_t (*stamp)(void));

/* A number of this boot of the module, never 0, one more (mod 255) than the previous
 * boot's: the reliable layer tells a restarted peer's frames from its earlier life's. */
uint8_t cairn_bus_boot_epoch(void);

/* The module's real-time clock: 32.768 kHz ticks (at its crystal's true rate). */
uint32_t cairn_bus_rtc(void);

/* The frame at the head of the RX FIFO: its length, or -1 when the FIFO is empty; its
 * source module in *src, and whether it failed the controller's check in *corrupt. */
int cairn_bus_rx_head(uint8_t *src, bool *corrupt);
/* Copies the head frame's next len bytes to buf. */
void cairn_bus_rx_read(void *buf, unsigned len);
/* Frees the head frame's place in the FIFO. */
void cairn_bus_rx_pop(void);

/* The controller's error bits since the last call (cleared). */
uint32_t cairn_bus_errors(void);
/* Acknowledges "frame delivered". */
void cairn_bus_tx_ack(void);
/* The bus manager has served the interrupts: they may come again. */
void cairn_bus_serviced(void);

/* Powers module `module` on or off (a power frame; this module's own: at once). */
void cairn_bus_power(uint8_t module, bool on);

#endif /* CAIRN_BUS_H */
