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

/* The master's watch for its SYNC's arrival (cairn_bus_tx_stamped). */
typedef struct cairn_bus_watch {
    uint32_t turns; /* at most this many turns of the driver's loop */
    uint32_t busy;  /* out: the turns it saw the controller busy; 0 when the frame had arrived
                     * by the first look (when, it cannot tell), `turns` when still busy */
    uint32_t hw;    /* out, when 0 < busy < turns: the hardware counter (arch_timer_now)
                     * read right after the loop, a fixed number of cycles after the arrival
                     * give or take one turn */
} cairn_bus_watch_t;

/* The same for a TIMESYNC frame (docs/distributed.md, "Time synchronisation"): after the
 * header and payload, the driver appends stamp()'s 8 bytes (little-endian) as the last
 * thing before it commits the frame, so the stamp is taken as late as it can be; returns
 * the stamp it wrote. Then, from the instruction after the commit, it watches the
 * controller until nothing of this module's is queued or on the wire (the frame's arrival),
 * in a loop of a few instructions: the arrival is seen within those few cycles whatever the
 * code around it costs, and a frame that goes at once (a slot starting then) is still on
 * the wire at the first look. */
uint64_t cairn_bus_tx_stamped(uint8_t dst, const uint8_t *hdr, unsigned hdr_len,
                              const void *payload, unsigned len, uint64_t (*stamp)(void),
                              cairn_bus_watch_t *watch);

/* A number of this boot of the module, never 0, one more (mod 255) than the previous
 * boot's: the reliable layer tells a restarted peer's frames from its earlier life's. */
uint8_t cairn_bus_boot_epoch(void);

/* A few bytes of RAM that a reset of the module keeps, as the boot counter's (*len: how
 * many): what the kernel must remember of a life the module has left. A power loss may clear
 * them or leave noise: their user checks them. */
void *cairn_bus_retained(unsigned *len);

/* The module's real-time clock: 32.768 kHz ticks (at its crystal's true rate). */
uint32_t cairn_bus_rtc(void);

/* Waits for the RTC's next tick (at most one, 30.5 us) and returns its count, with the
 * hardware counter (arch_timer_now) in *hw: read right after a loop of a few instructions on
 * the register, so a fixed number of cycles after the edge give or take one turn, whatever
 * the code around it costs (time synchronisation's anchor, docs/distributed.md). */
uint32_t cairn_bus_rtc_edge(uint32_t *hw);

/* The frame at the head of the RX FIFO: its length, or -1 when the FIFO is empty; its
 * source module in *src, and whether it failed the controller's check in *corrupt. */
int cairn_bus_rx_head(uint8_t *src, bool *corrupt);
/* Frames in the RX FIFO. */
unsigned cairn_bus_rx_count(void);
/* The C fast paths' calls (kernel/core/net/rx_fast.c, send_fast.c: the host port's, and the RX
 * path's on armv6m while time synchronisation is on; the armv6m assembly reaches the
 * registers itself), one each where the others take several; the header is
 * CAIRN_NET_HEADER bytes, moved as two words and a halfword.
 * When exactly one frame waits, not corrupt, of CAIRN_NET_HEADER to max_len bytes: its
 * header copied to head and its length | source << 16; else -1 and nothing read. */
int cairn_bus_rx_single(uint32_t *head, unsigned max_len);
/* The head frame's next len bytes, as whole words, into word-aligned buf (which has room for
 * them; the bytes past the frame's end read as 0), then the frame popped. */
void cairn_bus_rx_words_pop(void *buf, unsigned len);
/* When the controller is idle: the header (head[2]'s low half last) and payload written and
 * the frame queued (true); else nothing (false). Interrupts masked. */
bool cairn_bus_tx_if_idle(uint8_t dst, const uint32_t *head, const void *payload, unsigned len);
/* cairn_bus_tx with a second head of sub_words words written between the header and the
 * payload: a migration's STATE part, its head (for a split state's first part, the serialised
 * fields too) then its bytes from where the serialised task lies, with no copy between.
 * Called with interrupts masked, when cairn_bus_tx_idle(). */
void cairn_bus_tx_sub(uint8_t dst, const uint32_t *head, const uint32_t *sub, unsigned sub_words,
                      const void *payload, unsigned len);
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

/* The other way: on a port that has it (armv6m), the RX vector branches to
 * cairn__net_rx_vector, the bus manager's fast path, which takes the common frame into its
 * task's handler and otherwise goes on as the vector of the driver's RX binding would. That
 * path reaches the controller's registers itself (the board's register map, cairn_bus.h). */
struct cairn_irq_binding;
extern struct cairn_irq_binding cairn_bus_rx_binding;
/* The same for TX done: cairn__net_txdone_vector clears the latch when the bus manager has
 * nothing to send next, and otherwise goes on as this binding's vector. */
extern struct cairn_irq_binding cairn_bus_txdone_binding;

#endif /* CAIRN_BUS_H */
