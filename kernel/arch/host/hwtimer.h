/*
 * Host port: a model of the hardware timer for unit tests.
 *
 * The counter only moves when a test calls host_timer_advance. Crossing the armed
 * deadline raises the interrupt: cairn_timer_isr runs at once, with the counter
 * at the deadline, unless the timer lock is held (arch_timer_lock); then it stays
 * pending, the counter keeps moving, and it runs when the lock is released — a
 * late interrupt. The counter is CAIRN_HWTIMER_BITS wide.
 */
#ifndef CAIRN_HOST_HWTIMER_H
#define CAIRN_HOST_HWTIMER_H

#include <stdbool.h>
#include <stdint.h>

/* Counter to start (masked to the width), disarmed, nothing pending, counts zeroed. */
void host_timer_reset(uint32_t start);
/* Moves the counter on by ticks, running the interrupt at each armed deadline crossed. */
void host_timer_advance(uint32_t ticks);
/* Sets the counter, forward or back, running no interrupt (the simulated bus runs modules
 * side by side from one time). */
void host_timer_set(uint32_t now);
/* True and the deadline when a compare is armed. */
bool host_timer_armed(uint32_t *deadline);
bool host_timer_pending(void);
/* Interrupts delivered since the reset. */
unsigned host_timer_isr_count(void);
/* Whether the timer interrupt is running now. */
bool host_timer_in_isr(void);

#endif /* CAIRN_HOST_HWTIMER_H */
