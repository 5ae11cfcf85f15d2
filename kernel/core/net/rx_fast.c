/*
 * Cairn OS bus manager: the RX interrupt's fast path (docs/distributed.md, "Receiving").
 *
 * The common case of a received frame — a message to one local task that is ready and
 * outranks the interrupted code, with a payload that fits a receive block, nothing queued
 * and no other frame waiting — goes from the RX interrupt straight into the destination's
 * handler: the port's vector calls cairn__net_rx_fast, and when it returns a frame the
 * exception returns into that frame's handler (the port's part, like an interrupt bound
 * to a message). On armv6m the vector is the same path in assembly
 * (kernel/arch/armv6m/net/net_fast.c), which calls this one while time synchronisation
 * is on. The message is the one the bus manager would have built (the payload in a
 * receive block, CAIRN_MSG_REMOTE), with the same trace words, so only the path differs.
 *
 * Anything else is the bus manager's: the RX line is masked and the bus manager runs as
 * before. A header read to decide stays in cairn_net.rx_peek for it (the controller's FIFO
 * cannot be read twice), and so does the time stamp of the interrupt's entry, which a
 * TIMESYNC frame needs: the counter the port's vector read at its head, so that the stamp's
 * distance from the frame's arrival does not depend on the checks below, the stack's depth
 * or the header read.
 */
#include "net.h"

static bool on_stack(const cairn_frame_t *f)
{
    for (const cairn_frame_t *l = cairn_k.top; l; l = l->below)
        if (l == f)
            return true;
    return false;
}

cairn_frame_t *cairn__net_rx_fast(uint32_t entry_hw)
{
    cairn_frame_t *top = cairn_k.top;
    const cairn_tcb_t *net = cairn__tcb_inline(CAIRN_TASK_NET);
    /* Before cairn_net_start, frames wait in the controller; a header already read, queued
     * messages, frames behind this one and a nested interrupt keep the bus manager's order. */
    if (cairn_net.rx_peeked || cairn_k.queue || cairn_k.isr_depth || !net ||
        (net->flags >> 5) != (TCB_READY >> 5) || (top && on_stack(&cairn_net.rx_frame)))
        return 0;
    uint32_t *hw = cairn_net.rx_peek;
    int got = cairn_bus_rx_single(hw, CAIRN_NET_HEADER + CAIRN_NET_RX_BLOCK);
    if (got < 0)
        return 0;
    if (cairn_net.ts.on) /* the header read: the entry's stamp is this frame's arrival */
        cairn__timesync_entry_at(entry_hw);
    const uint8_t *h = (const uint8_t *)hw;
    unsigned plen = ((unsigned)got & 0xFFFFu) - CAIRN_NET_HEADER;
    cairn_tcb_t *t = cairn__tcb_inline(h[2]);
    if ((hw[0] & 0xFFFFu) != (CAIRN_NET_KIND_MSG | ((unsigned)got >> 16) << 8) ||
        (uint16_t)hw[2] != plen || !cairn__in_port_ok(h[3]) || !t ||
        (t->flags >> 5) != (TCB_READY >> 5) || (top && t->prio <= top->prio) ||
        (plen && !cairn_net.rx_cached)) {
        cairn_net.rx_peeked = true;
        return 0;
    }
    void *p = plen ? cairn_net.rx_cache[--cairn_net.rx_cached] : 0;
    cairn_bus_rx_words_pop(p, plen);
    cairn_frame_t *f = &cairn_net.rx_frame; /* free: not on the stack */
    cairn_msg_t *m = &f->msg;
    m->next = 0;
    m->payload = p;
    m->len = (uint16_t)plen;
    m->src = h[5];
    m->dst = h[2];
    m->port = h[3];
    m->prio = t->prio;
    m->flags = p ? CAIRN_MSG_HEAP | CAIRN_MSG_REMOTE : CAIRN_MSG_REMOTE;
    m->reserved = 0;
    cairn__enter(t, f, t->prio);
    cairn_net.ts.service_fresh = false;
    cairn_net.stats.rx_frames++;
    cairn_net.stats.rx_fast++;
    CAIRN_TRACE(CAIRN_EV_NET_RECV, (unsigned)got >> 16, h[6] | (unsigned)h[7] << 8);
    CAIRN_TRACE(CAIRN_EV_NET_RECV_TO, h[2], h[3]);
    CAIRN_TRACE(CAIRN_EV_SEND, h[2], h[3]);
    CAIRN_TRACE(CAIRN_EV_START, h[2], h[3]);
    return f;
}
