/*
 * Cairn OS: the hardware timer every port provides to the virtual timers.
 *
 * One free-running up-counter of CAIRN_HWTIMER_BITS bits (it wraps from
 * 2^bits - 1 to 0) and one compare interrupt. The kernel never needs a periodic
 * tick: it arms the compare for the next expiry only.
 */
#ifndef CAIRN_ARCH_TIMER_H
#define CAIRN_ARCH_TIMER_H

#include <stdint.h>

/* Width of the hardware counter: 16, 24 or 32 (any value 2..32 works). */
#ifndef CAIRN_HWTIMER_BITS
#define CAIRN_HWTIMER_BITS 32
#endif

#if CAIRN_HWTIMER_BITS < 2 || CAIRN_HWTIMER_BITS > 32
#error "CAIRN_HWTIMER_BITS must be 2..32"
#endif

#define CAIRN_HWTIMER_MASK ((uint32_t)(0xFFFFFFFFu >> (32 - CAIRN_HWTIMER_BITS)))
/* The kernel never arms a deadline more than this many ticks ahead, and the
 * timer interrupt must run within this many ticks of its deadline. */
#define CAIRN_HWTIMER_HALF (CAIRN_HWTIMER_MASK / 2u + 1u)

/* The counter, 0 .. CAIRN_HWTIMER_MASK. */
uint32_t arch_timer_now(void);

/* Raise the timer interrupt when the counter reaches deadline (0 ..
 * CAIRN_HWTIMER_MASK). Replaces any earlier deadline; the interrupt fires once.
 * When the deadline is not in the future — (deadline - now) mod 2^bits is 0 or
 * greater than CAIRN_HWTIMER_HALF — the port must raise (pend) the interrupt at
 * once instead of waiting a full counter period. */
void arch_timer_arm(uint32_t deadline);

/* No timer interrupt until the next arch_timer_arm (a pending one may still run;
 * the kernel tolerates spurious calls). */
void arch_timer_disarm(void);

/* Keep the timer interrupt (and anything else that may call the timer API) from
 * running; nests. Returns the previous state for arch_timer_unlock. On
 * Cortex-M0+ this is PRIMASK, inline from the port's cairn_port.h (which then
 * defines CAIRN_PORT_TIMER_LOCK); on the host port it defers the simulated ISR. */
#include "cairn_port.h"
#ifndef CAIRN_PORT_TIMER_LOCK
uint32_t arch_timer_lock(void);
void arch_timer_unlock(uint32_t state);
#endif

/* Implemented by the kernel (kernel/core/vtimer.c); the port calls it from the
 * timer interrupt. */
void cairn_timer_isr(void);

#endif /* CAIRN_ARCH_TIMER_H */
