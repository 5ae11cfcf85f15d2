/*
 * Cairn OS bus manager: the TX-done interrupt's fast path (docs/distributed.md, "Sending").
 *
 * "Frame delivered" matters to the bus manager only when it has something to send next: a
 * buffered message (the controller takes one frame at a time) or, with time synchronisation
 * on, a SYNC whose FOLLOW_UP waits for it. With nothing buffered and the synchronisation off,
 * the interrupt only clears the latch: no message to the bus manager, no service, and no
 * second interrupt when the service unmasks a latch it acknowledged before its own frames
 * went. A message buffered later finds the controller busy (its TX done comes again, and then
 * the buffer is not empty) or idle (it goes at once); the check and the clear are made with
 * interrupts masked, as the service's acknowledgement before its buffer. On armv6m the vector
 * is the same in assembly (kernel/arch/armv6m/net/net_fast.c); this is the host port's.
 */
#include "net.h"

bool cairn__net_tx_done_fast(void)
{
    uint32_t s = arch_irq_save();
    bool only_latch = !cairn_net.txq && !cairn_net.ts.on;
    if (only_latch)
        cairn_bus_tx_ack();
    arch_irq_restore(s);
    return only_latch;
}
