/*
 * Cairn OS host port: hooks for unit tests (the kernel compiled natively;
 * interrupts are simulated by calling cairn_isr_enter/cairn_isr_exit).
 */
#ifndef CAIRN_HOST_H
#define CAIRN_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- event log ring (CAIRN_TRACE on the host) ---------------------------------- */

#ifndef CAIRN_TRACE_RING
#define CAIRN_TRACE_RING 1024
#endif

/* Copies up to max words, oldest first, without consuming them; returns how many. */
size_t cairn_trace_host_read(uint32_t *out, size_t max);
/* Words in the ring now (at most CAIRN_TRACE_RING). */
size_t cairn_trace_host_count(void);
/* Words overwritten because the ring was full, since the last reset. */
uint32_t cairn_trace_host_lost(void);
/* Empties the ring. */
void cairn_trace_host_reset(void);

/* ---- interrupts and idle --------------------------------------------------------- */

/* arch_irq_save nesting depth now (0 = interrupts enabled). */
unsigned cairn_host_irq_depth(void);
/* Runs fn (a simulated interrupt) once, at the next ARCH_IRQ_WINDOW reached with
 * interrupts enabled; NULL cancels. */
void cairn_host_irq_window_set(void (*fn)(void));
/* Whether IRQ irq (0..31) is masked (arch_irq_mask, by a CAIRN_IRQ_MESSAGE handler). */
bool cairn_host_irq_masked(unsigned irq);

/* The whole mask of IRQs 0..31 (the simulated bus swaps it with the kernel). */
uint32_t cairn_host_irq_mask_get(void);
void cairn_host_irq_mask_set(uint32_t m);

/* arch_idle calls hook(ticks) (a test's "interrupt during sleep"), if set; the
 * hook runs with interrupts disabled, as on hardware the pending interrupt would
 * run right after the kernel re-enables them (a dispatch it requests is deferred
 * until then). */
typedef void (*cairn_host_idle_hook_t)(uint32_t ticks_until_next_timer);
void cairn_host_set_idle_hook(cairn_host_idle_hook_t hook);
/* arch_idle calls since the last cairn_host_idle_reset, and the last arguments:
 * ticks, the sleep state chosen (NULL before the first call) and its index in the
 * current table (-1 before the first call). */
uint32_t cairn_host_idle_calls(void);
uint32_t cairn_host_idle_last_ticks(void);
struct cairn_sleep_state;
const struct cairn_sleep_state *cairn_host_idle_last_state(void);
int cairn_host_idle_last_state_index(void);
/* The sleep table arch_sleep_table returns (NULL: the default, the mps2-an385
 * placeholder figures with tick_hz = 10^6, i.e. 1 tick = 1 us). The table must
 * outlive its use. */
struct cairn_sleep_table;
void cairn_host_set_sleep_table(const struct cairn_sleep_table *t);
/* Zeroes the counts, clears the hook and restores the default sleep table. */
void cairn_host_idle_reset(void);

/* ---- thread tasks (thread.c) ------------------------------------------------------- */

/* Runs a thread switch requested while interrupts were disabled (arch_irq_restore
 * to depth 0 calls it, as the core takes a pended PendSV). */
void cairn_host_thread_pending(void);
/* Stack overflows arch_thread_overflow reported, and the last thread's name. */
unsigned cairn_host_thread_overflows(void);
const char *cairn_host_thread_overflow_name(void);
/* Threads whose context records are in use (a joined thread's is free again). */
unsigned cairn_host_thread_contexts(void);

/* ---- simulated bus (simbus.c): several modules' kernels in one process ------------ */

/*
 * Each simulated module has its own kernel instance: the kernel's state (cairn_k, the
 * bus manager's state, the interrupt mask) is swapped in by cairn_simbus_select, so a
 * test runs one module's kernel at a time, at top level, and the bus moves frames
 * between the modules' controllers when the test steps it. Virtual timers are not part
 * of a module's instance: a bus test does not use them. docs/distributed.md.
 */
#define CAIRN_SIMBUS_MODULES 8
#define CAIRN_SIMBUS_FIFO 32

/* Forgets every frame and module; `modules` modules (addresses 0..modules-1), all powered
 * on, each with an RX FIFO of rx_fifo frames (at most CAIRN_SIMBUS_FIFO) and a TX FIFO of
 * CAIRN_SIMBUS_FIFO; module 0 is selected, and every kernel instance is all zero. */
void cairn_simbus_reset(unsigned modules, unsigned rx_fifo);
/* Makes module m's kernel the running one (saves the current one's). */
void cairn_simbus_select(unsigned m);
unsigned cairn_simbus_selected(void);
/* Moves one frame on the wire: the first module after the last sender (TDMA order) whose
 * head frame can go (its receivers have room: flow control). False when none can. */
bool cairn_simbus_step(void);
/* Runs each module's bus interrupts that are up and unmasked, until none is. */
void cairn_simbus_service(void);
/* Service and step until nothing moves. */
void cairn_simbus_run(void);
/* Frames in module m's TX FIFO (queued, not yet on the wire) and RX FIFO. */
unsigned cairn_simbus_tx_count(unsigned m);
unsigned cairn_simbus_rx_count(unsigned m);
bool cairn_simbus_powered(unsigned m);
/* Faults: the next frame put on the wire has one bit of its first byte flipped and
 * fails its check; a raw frame appears in module dst's RX FIFO as if from src. */
void cairn_simbus_corrupt_next(void);
void cairn_simbus_inject(unsigned dst, unsigned src, const void *data, unsigned len);
/* Module m's retained RAM (cairn_bus_retained) filled with `byte`, as a power loss may leave
 * it. */
void cairn_simbus_lose_retained(unsigned m, uint8_t byte);
/* The next TIMESYNC frame's watch (cairn_bus_tx_stamped) sees the frame delivered after
 * `busy` turns, a host timer tick each (0: delivered by its first look): the frame goes on
 * the wire then (cairn_simbus_step). Otherwise the watch sees it still queued, as the
 * simulated bus moves only when the test runs it. */
void cairn_simbus_watch_next(uint32_t busy);

/* Every frame that went on the wire since the reset, in order. */
struct cairn_simbus_wire {
    uint8_t src, dst; /* dst 0xFF: broadcast */
    uint16_t len;
    uint8_t head[10]; /* the first bytes (the Cairn header) */
    uint8_t first;    /* the first payload byte (0 without one) */
    bool corrupt;
};
/* Module m's real-time clock (cairn_bus_rtc): 32.768 kHz x (1 + ppb / 10^9) ticks, counted
 * from start_ticks at host timer value 0, the host timer running at hz. Reading it moves
 * the host timer on by one tick (a loop that waits for its next tick ends). Default: 0 ppb,
 * 1 MHz, 0. */
void cairn_simbus_rtc(unsigned m, int32_t ppb, uint32_t hz, uint32_t start_ticks);
unsigned cairn_simbus_wire_count(void);
const struct cairn_simbus_wire *cairn_simbus_wire(unsigned i);

/* Faults chosen frame by frame: before a frame is delivered the filter (if set) sees it
 * (head = its first bytes) and says what the wire does with it. A delayed frame is held
 * aside and delivered after the next frame the bus delivers (reordered behind it); a
 * duplicated one arrives twice. The sender sees its frame delivered in every case. */
enum cairn_simbus_fate { CAIRN_SIMBUS_PASS, CAIRN_SIMBUS_DROP, CAIRN_SIMBUS_DUPLICATE, CAIRN_SIMBUS_DELAY };
typedef enum cairn_simbus_fate (*cairn_simbus_filter_t)(const struct cairn_simbus_wire *w);
void cairn_simbus_filter(cairn_simbus_filter_t filter);

#endif /* CAIRN_HOST_H */
