/*
 * Cairn OS bus manager: the send's fast path to a remote task (docs/distributed.md,
 * "Sending"), the C twin of the armv6m assembly (kernel/arch/armv6m/net/net_fast.c, where
 * cairn_send's fast path branches when the route's task has no local TCB): it expects the
 * checks that path made (a task's handler sends on an existing output port a payload that
 * is not a heap block). The common case — a remote task on a module that is not powered
 * off, a payload that fits a frame, the plain bus manager (not the reliable layer), the bus
 * idle and nothing buffered — is written to the controller at once, as the bus manager's
 * submit does; anything else takes the general path, which gives the same result.
 */
#include "net.h"

cairn_ret_t cairn__net_send_fast(cairn_port_t out_port, const void *payload, size_t len)
{
    const cairn_tcb_t *from = cairn_k.top->tcb;
    cairn_route_t r = from->routes[out_port];
    const cairn_rtcb_t *rt = &cairn_net.remote[(uint8_t)(r.task - 1u)];
    if ((unsigned)r.task - 1u >= CAIRN_MAX_TASKS || rt->id != r.task || len > CAIRN_NET_MAX_PAYLOAD ||
        cairn_k.net != &cairn__net_plain_ops ||
        ((cairn_net.off[rt->module >> 5] >> (rt->module & 31u)) & 1u))
        return cairn__send_general(out_port, payload, len);
    uint32_t seq = cairn_net.seq;
    uint32_t h[3] = {
        CAIRN_NET_KIND_MSG | (uint32_t)cairn_net.address << 8 | (uint32_t)r.task << 16 |
            (uint32_t)r.port << 24,
        (uint32_t)rt->prio | (uint32_t)from->id << 8 | seq << 16,
        (uint32_t)len,
    };
    uint32_t s = arch_irq_save();
    if (seq != cairn_net.seq || cairn_net.txq ||
        !cairn_bus_tx_if_idle(rt->module, h, payload, (unsigned)len)) {
        arch_irq_restore(s);
        return cairn__send_general(out_port, payload, len);
    }
    cairn_net.seq = (uint16_t)(seq + 1u);
    cairn_net.stats.tx_frames++;
    cairn_net.stats.tx_immediate++;
    cairn_net.stats.tx_fast++;
    /* Before interrupts come back: the two words in a row, as the trace's reader expects. */
    CAIRN_TRACE(CAIRN_EV_NET_SEND, rt->module, seq);
    CAIRN_TRACE(CAIRN_EV_NET_SEND_TO, r.task, r.port);
    arch_irq_restore(s);
    return CAIRN_OK;
}
