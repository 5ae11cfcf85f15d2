/*
 * Cairn OS: what every port (kernel/arch/<port>/) provides to the scheduler.
 * The hardware timer interface of the virtual timers is in cairn/arch_timer.h.
 */
#ifndef CAIRN_ARCH_H
#define CAIRN_ARCH_H

#include <stdint.h>

/* Interrupts off (nests): arch_irq_save returns the previous state for
 * arch_irq_restore. On Cortex-M0+ this is PRIMASK (inline, from the port's
 * cairn_port.h); on the host port a nesting counter. */
#include "cairn_port.h"

struct cairn_sleep_state;

/* Nothing can run: sleep in state (an entry of arch_sleep_table(), chosen by the
 * kernel: cairn/sleep.h) until an interrupt. Called with interrupts disabled
 * (arch_irq_save); the port must wake on an interrupt that is pending or becomes
 * pending (WFI with PRIMASK set does) and return with interrupts still disabled;
 * the kernel re-enables them, the interrupt runs, and its messages are dispatched.
 * ticks_until_next_timer is UINT32_MAX when no timer is running (for the port's
 * information: the choice of state is already made; docs/kernel.md, "Idle"). */
void arch_idle(uint32_t ticks_until_next_timer, const struct cairn_sleep_state *state);

/* Called by cairn_isr_exit when the outermost interrupt handler returns and a
 * queued message outranks the interrupted code. The port arranges for
 * cairn_dispatch() to run on the interrupted stack once the interrupt has
 * returned (armv6m: pend PendSV); the host port calls it directly. */
void arch_request_dispatch(void);

#endif /* CAIRN_ARCH_H */
