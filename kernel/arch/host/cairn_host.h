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
/* Whether IRQ irq (0..31) is masked (arch_irq_mask, by a CAIRN_IRQ_MESSAGE handler). */
bool cairn_host_irq_masked(unsigned irq);

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

#endif /* CAIRN_HOST_H */
