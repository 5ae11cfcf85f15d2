/*
 * Cairn OS bus manager (CoMOS V-B.2): messages to tasks on other modules.
 *
 * Sending: when the bus is idle (nothing of this module's queued or on the wire, and
 * nothing buffered), the message is written to the controller at once, the caller
 * blocked while it does (programmed I/O: the bus is fast, an interrupt per word would
 * cost more). When the bus is busy the message is buffered, by the priority of its
 * destination task, and the next one goes when the controller reports the previous
 * frame delivered. Only one frame is in the controller at a time, so its FIFO never
 * overtakes the priority order.
 *
 * Receiving: the controller's interrupts are bound to the bus manager task, which
 * drains the RX FIFO into ordinary messages (payload in a heap block owned by the
 * kernel, CAIRN_MSG_REMOTE); they queue behind its level and run by priority.
 *
 * Every refusal is returned to the sender (or, on the receiving side, dropped) and
 * counted, with a CAIRN_EV_NET_ERR trace word. Frame format and trace words:
 * docs/distributed.md.
 */
#include "net.h"

#include "cairn/mem.h"
#include "migrator.h"

cairn_net_t cairn_net;

_Static_assert(CAIRN_MSG_POOL > CAIRN_NET_POOL_RESERVE + 1, "the pool holds the bus manager's reserve");

/* Whether the pool has more than the reserve free (interrupts masked). */
static bool pool_above_reserve(void)
{
    const cairn_msg_t *m = cairn_k.free;
    for (unsigned n = 0; m && n < CAIRN_NET_POOL_RESERVE; n++)
        m = m->next;
    return m != 0;
}

void cairn__net_error(unsigned kind, uint8_t module, cairn_task_id_t task)
{
    uint32_t *c = 0;
    switch (kind) {
    case CAIRN_NET_ERR_DOWN: c = &cairn_net.stats.tx_down; break;
    case CAIRN_NET_ERR_TX_FULL: c = &cairn_net.stats.tx_full; break;
    case CAIRN_NET_ERR_TOO_LONG: c = &cairn_net.stats.tx_too_long; break;
    case CAIRN_NET_ERR_RX_OVERFLOW: c = &cairn_net.stats.rx_overflow; break;
    case CAIRN_NET_ERR_RX_CORRUPT: c = &cairn_net.stats.rx_corrupt; break;
    case CAIRN_NET_ERR_RX_BAD: c = &cairn_net.stats.rx_bad; break;
    case CAIRN_NET_ERR_RX_NO_TASK: c = &cairn_net.stats.rx_no_task; break;
    default: c = &cairn_net.stats.controller; break;
    }
    (*c)++;
    CAIRN_TRACE(CAIRN_EV_NET_ERR, kind, (uint32_t)module << 8 | task);
}

static void rx_refill(void);

static bool is_off(uint8_t module)
{
    return (cairn_net.off[module >> 5] >> (module & 31u)) & 1u;
}

/* With interrupts masked and the controller idle: m goes on the bus. The header is built
 * as words (little-endian, docs/distributed.md "Frames") so the driver stores it with STR. */
static void transmit(const cairn_msg_t *m, uint8_t module)
{
    bool mcast = m->dst == CAIRN_TASK_MCAST;
    uint32_t seq = cairn_net.seq++;
    uint32_t kind = mcast ? CAIRN_NET_KIND_MCAST : CAIRN_NET_KIND_MSG;
    uint32_t dst = mcast ? m->port : m->dst;
    uint32_t port = mcast ? 0u : m->port;
    uint32_t h[3] = {
        kind | (uint32_t)cairn_net.address << 8 | dst << 16 | port << 24,
        (uint32_t)m->prio | (uint32_t)m->src << 8 | (seq & 0xFFFFu) << 16,
        m->len,
    };
    cairn_bus_tx(module, (const uint8_t *)h, CAIRN_NET_HEADER, m->payload, m->len);
    cairn_net.stats.tx_frames++;
    CAIRN_TRACE(CAIRN_EV_NET_SEND, module, seq & 0xFFFFu);
    CAIRN_TRACE(CAIRN_EV_NET_SEND_TO, m->dst, m->port);
}

/* ---- reliable layer / migrator hook: a token's frame is built when it goes ---- */
static void transmit_token(const cairn_msg_t *m, uint8_t module)
{
    uint32_t seq = cairn_net.seq;
    uint32_t port = 0;
    if (m->port == CAIRN_NET_KIND_MIG && (m->src & MIG_TOKEN_PART)) {
        /* A STATE part: written from the migrator's blob, without a copy between. */
        if (!cairn__mig_part_write(m->src & ~MIG_TOKEN_PART, module, seq))
            return;
    } else {
        uint32_t h[3];
        const void *p;
        unsigned n;
        if (!cairn__rel_frame(m, module, h, &p, &n))
            return;
        h[1] |= (seq & 0xFFFFu) << 16;
        cairn_bus_tx(module, (const uint8_t *)h, CAIRN_NET_HEADER, p, n);
        port = h[0] >> 24;
    }
    cairn_net.seq = (uint16_t)(seq + 1u);
    cairn_net.stats.tx_frames++;
    CAIRN_TRACE(CAIRN_EV_NET_SEND, module, seq & 0xFFFFu);
    CAIRN_TRACE(CAIRN_EV_NET_SEND_TO, m->dst, port);
}

static cairn_ret_t buffer(const cairn_msg_t *m, uint8_t module, uint8_t task, uint32_t s);

cairn_ret_t cairn__net_submit(cairn_msg_t *m, uint8_t module, bool *sent)
{
    *sent = false;
    uint8_t task = m->dst == CAIRN_TASK_MCAST ? m->port : m->dst;
    if (m->len > CAIRN_NET_MAX_PAYLOAD) {
        cairn__net_error(CAIRN_NET_ERR_TOO_LONG, module, task);
        return CAIRN_EINVAL;
    }
    if (module != CAIRN_NET_BROADCAST && is_off(module)) {
        cairn__net_error(CAIRN_NET_ERR_DOWN, module, task);
        return CAIRN_EDOWN;
    }
    uint32_t s = arch_irq_save();
    if (!cairn_net.txq && cairn_bus_tx_idle()) {
        transmit(m, module);
        cairn_net.stats.tx_immediate++;
        arch_irq_restore(s);
        *sent = true;
        return CAIRN_OK;
    }
    return buffer(m, module, task, s);
}

/* With interrupts masked (s: the mask to restore): m buffered for the bus. */
static cairn_ret_t buffer(const cairn_msg_t *m, uint8_t module, uint8_t task, uint32_t s)
{
    cairn_msg_t *q = cairn_k.free;
    if (!pool_above_reserve()) {
        arch_irq_restore(s);
        cairn__net_error(CAIRN_NET_ERR_TX_FULL, module, task);
        return CAIRN_EFULL;
    }
    cairn_k.free = q->next;
    *q = *m;
    q->reserved = module;
    cairn_msg_t **link = &cairn_net.txq;
    while (*link && (*link)->prio >= q->prio)
        link = &(*link)->next;
    q->next = *link;
    *link = q;
    if (++cairn_net.stats.buffered > cairn_net.stats.buffered_peak)
        cairn_net.stats.buffered_peak = cairn_net.stats.buffered;
    cairn_net.stats.tx_buffered++;
    arch_irq_restore(s);
    CAIRN_TRACE(CAIRN_EV_NET_QUEUE, m->dst, m->port);
    return CAIRN_OK;
}

/* The same for a token of the reliable layer or the migrator (reliable layer hook). */
cairn_ret_t cairn__net_submit_token(const cairn_msg_t *t, uint8_t module)
{
    if (module != CAIRN_NET_BROADCAST && is_off(module)) {
        cairn__net_error(CAIRN_NET_ERR_DOWN, module, t->dst);
        return CAIRN_EDOWN;
    }
    uint32_t s = arch_irq_save();
    if (!cairn_net.txq && cairn_bus_tx_idle()) {
        transmit_token(t, module);
        arch_irq_restore(s);
        return CAIRN_OK;
    }
    return buffer(t, module, t->dst, s);
}

/* The remote TCB of m's destination (m takes its priority), or NULL. */
static const cairn_rtcb_t *remote_of(cairn_msg_t *m)
{
    const cairn_rtcb_t *r = cairn__remote_find(m->dst);
    if (r)
        m->prio = r->prio;
    return r;
}

/* A message to a task without a local TCB. */
static cairn_ret_t forward(cairn_frame_t *f)
{
    cairn_msg_t *m = &f->msg;
    const cairn_rtcb_t *r = remote_of(m);
    if (!r)
        return CAIRN__NOT_REMOTE;
    bool sent;
    cairn_ret_t ret = cairn__net_submit(m, r->module, &sent);
    if (sent)
        cairn__release(m); /* the controller has the bytes */
    return ret;
}

bool cairn__net_holds(const void *p, const cairn_msg_t *self)
{
    for (const cairn_msg_t *m = cairn_net.txq; m; m = m->next)
        if (m != self && m->payload == p &&
            (m->flags & (CAIRN_MSG_HEAP | CAIRN_MSG_TAKEN)) == CAIRN_MSG_HEAP)
            return true;
    return false;
}

static uint8_t address(void)
{
    return cairn_net.address;
}

/* Nothing ready is queued when the kernel idles, so no service message is waiting: a
 * line still masked lost its message to a full pool. Before cairn_net_start the lines
 * stay masked (their message is buffered for the uninitialised task). */
static void idle(void)
{
    const cairn_tcb_t *t = cairn__tcb(CAIRN_TASK_NET);
    if (t && (t->flags & TCB_READY))
        cairn_bus_serviced();
    rx_refill();
    cairn__rel_idle(); /* reliable layer hook */
    cairn__mig_idle(); /* migrator hook */
}

/* The reliable layer's forward: installed by cairn_net_reliable_start (reliable layer hook). */
static cairn_ret_t forward_reliable(cairn_frame_t *f)
{
    cairn_msg_t *m = &f->msg;
    const cairn_rtcb_t *r = remote_of(m);
    return r ? cairn__rel_forward(m, r->module) : CAIRN__NOT_REMOTE;
}

static const struct cairn_net_ops ops_reliable = {
    .idle = idle,
    .forward = forward_reliable,
    .mcast = cairn__net_mcast,
    .is_remote = cairn__remote_is,
    .create_remote = cairn__remote_create,
    .remove_remote = cairn__remote_remove,
    .holds = cairn__net_holds,
    .address = address,
};

void cairn__net_reliable_ops(void)
{
    cairn_k.net = &ops_reliable;
}

const struct cairn_net_ops cairn__net_plain_ops = {
    .idle = idle,
    .forward = forward,
    .mcast = cairn__net_mcast,
    .is_remote = cairn__remote_is,
    .create_remote = cairn__remote_create,
    .remove_remote = cairn__remote_remove,
    .holds = cairn__net_holds,
    .address = address,
};

/* ---- the controller's service (the bus manager task) ------------------------------ */

/* The next buffered messages, while the controller is idle (one frame at a time). */
static void send_buffered(void)
{
    /* Only the bus manager's own level takes from the buffer, and a send that finds the
     * bus idle transmits at once: an empty buffer read without masking stays empty here. */
    if (!cairn_net.txq)
        return;
    for (;;) {
        uint32_t s = arch_irq_save();
        cairn_msg_t *q = cairn_net.txq;
        if (!q || !cairn_bus_tx_idle()) {
            arch_irq_restore(s);
            return;
        }
        cairn_net.txq = q->next;
        cairn_net.stats.buffered--;
        uint8_t module = q->reserved;
        /* Powered off since it was buffered: refused now (the sender was told OK). */
        bool down = module != CAIRN_NET_BROADCAST && is_off(module);
        if (!down && (q->flags & CAIRN_MSG_NET_TOKEN))
            transmit_token(q, module);
        else if (!down)
            transmit(q, module);
        cairn_msg_t done = *q;
        q->next = cairn_k.free;
        cairn_k.free = q;
        arch_irq_restore(s);
        if (down)
            cairn__net_error(CAIRN_NET_ERR_DOWN, module, done.dst);
        cairn__release(&done);
    }
}

/* ---- receive blocks ---------------------------------------------------------------------
 * A small payload is read into a heap block taken from a short list of blocks allocated
 * beforehand (kernel-owned, CAIRN_NET_RX_BLOCK bytes each), so receiving costs no
 * allocation; the list is refilled when the kernel is about to sleep. The block is an
 * ordinary heap payload from then on (cairn_take_msg, forwarding, freeing after the last
 * receiver: docs/kernel.md); an empty list falls back to cairn_malloc. */

static void *rx_block(unsigned len)
{
    if (len <= CAIRN_NET_RX_BLOCK && cairn_net.rx_cached) {
        void *b = cairn_net.rx_cache[--cairn_net.rx_cached];
        return b;
    }
    void *b = cairn_malloc(len);
    if (b)
        cairn_heap_set_owner(b, CAIRN_TASK_NONE);
    return b;
}

/* With interrupts masked (the idle hook): the list full again, as far as the heap allows. */
static void rx_refill(void)
{
    while (cairn_net.rx_cached < CAIRN_NET_RX_CACHE) {
        void *b = cairn_malloc(CAIRN_NET_RX_BLOCK);
        if (!b)
            return;
        cairn_heap_set_owner(b, CAIRN_TASK_NONE);
        cairn_net.rx_cache[cairn_net.rx_cached++] = b;
    }
}

/* Checks the frame at the head of the RX FIFO (len bytes from module src) and reads
 * its header into h and its payload into a kernel-owned heap block (*payload). 0, or the
 * error kind that drops it. */
static unsigned take_frame(uint8_t src, unsigned len, bool corrupt, uint32_t *hw, void **payload)
{
    if (corrupt)
        return CAIRN_NET_ERR_RX_CORRUPT;
    if (len < CAIRN_NET_HEADER)
        return CAIRN_NET_ERR_RX_BAD;
    if (cairn_net.rx_peeked) /* the RX interrupt's fast path read it and left the frame */
        __builtin_memcpy(hw, cairn_net.rx_peek, sizeof cairn_net.rx_peek);
    else
        cairn_bus_rx_read(hw, CAIRN_NET_HEADER);
    const uint8_t *h = (const uint8_t *)hw;
    unsigned plen = h[8] | (unsigned)h[9] << 8;
    bool mcast = h[0] == CAIRN_NET_KIND_MCAST;
    if (h[0] == CAIRN_NET_KIND_TIMESYNC) {
        /* Read into the caller's buffer (*payload points to it): no heap, no message. */
        if (h[1] != src || CAIRN_NET_HEADER + plen != len || plen != CAIRN_TIMESYNC_PAYLOAD ||
            h[2] != CAIRN_TASK_TIMESYNC)
            return CAIRN_NET_ERR_RX_BAD;
        cairn_bus_rx_read(*payload, plen);
        return 0;
    }
    /* ---- reliable layer / migrator hook: their frames' checks ---- */
    bool data = h[0] == CAIRN_NET_KIND_DATA;
    if (h[0] == CAIRN_NET_KIND_DACK || h[0] == CAIRN_NET_KIND_NOTASK || h[0] == CAIRN_NET_KIND_MIG) {
        if (h[1] != src || CAIRN_NET_HEADER + plen != len || plen > CAIRN_MIG_FRAME_MAX ||
            (h[0] != CAIRN_NET_KIND_MIG && plen != 1u))
            return CAIRN_NET_ERR_RX_BAD;
        /* The caller's buffer holds a frame's head; a STATE part goes from the controller
         * straight into the migrator's blob, or is left in the controller (popped unread). */
        unsigned head = plen < CAIRN_MIG_HEAD_MAX ? plen : CAIRN_MIG_HEAD_MAX;
        cairn_bus_rx_read(*payload, head);
        if (plen > head) {
            uint8_t *rest = cairn__mig_rx_place(src, *payload, plen);
            if (rest)
                cairn_bus_rx_read(rest, plen - head);
        }
        return 0;
    }
    if ((!mcast && !data && h[0] != CAIRN_NET_KIND_MSG) || h[1] != src ||
        CAIRN_NET_HEADER + plen != len || (!mcast && !cairn__in_port_ok(h[3])))
        return CAIRN_NET_ERR_RX_BAD;
    if (data && (!cairn_net.rel || plen < CAIRN_REL_TRAILER))
        return CAIRN_NET_ERR_RX_BAD;
    if (!mcast && !data && !cairn__tcb_inline(h[2]))
        return CAIRN_NET_ERR_RX_NO_TASK;
    uint32_t s = arch_irq_save();
    bool room = pool_above_reserve();
    arch_irq_restore(s);
    if (!room)
        return CAIRN_NET_ERR_RX_OVERFLOW;
    if (plen) {
        *payload = rx_block(plen);
        if (!*payload)
            return CAIRN_NET_ERR_RX_OVERFLOW;
        cairn_bus_rx_read(*payload, plen);
    }
    return 0;
}

/* The frame at the head of the RX FIFO becomes a message (or is dropped and counted). */
static void receive(uint8_t src, unsigned len, bool corrupt)
{
    uint32_t hw[3];
    const uint8_t *h = (const uint8_t *)hw;
    hw[0] = 0; /* the task byte of an error word when the header was not read */
    /* A TIMESYNC frame's payload or a migration frame's head (word-aligned). */
    uint32_t tw[(CAIRN_MIG_HEAD_MAX > CAIRN_TIMESYNC_PAYLOAD ? CAIRN_MIG_HEAD_MAX
                                                             : CAIRN_TIMESYNC_PAYLOAD) / 4u];
    uint8_t *ts = (uint8_t *)tw;
    void *p = ts;
    unsigned err = take_frame(src, len, corrupt, hw, &p);
    cairn_bus_rx_pop();
    cairn_net.rx_peeked = false;
    if (err) {
        cairn_net.ts.service_fresh = false;
        cairn__net_error(err, src, h[2]);
        return;
    }
    if (h[0] == CAIRN_NET_KIND_TIMESYNC) {
        cairn_net.stats.rx_frames++;
        CAIRN_TRACE(CAIRN_EV_NET_RECV, src, h[6] | (unsigned)h[7] << 8);
        CAIRN_TRACE(CAIRN_EV_NET_RECV_TO, CAIRN_TASK_TIMESYNC, 0);
        cairn__timesync_rx(src, ts, len - CAIRN_NET_HEADER);
        return;
    }
    /* ---- reliable layer / migrator hook: control frames ---- */
    if (h[0] == CAIRN_NET_KIND_DACK || h[0] == CAIRN_NET_KIND_NOTASK || h[0] == CAIRN_NET_KIND_MIG) {
        cairn_net.ts.service_fresh = false;
        cairn_net.stats.rx_frames++;
        CAIRN_TRACE(CAIRN_EV_NET_RECV, src, h[6] | (unsigned)h[7] << 8);
        CAIRN_TRACE(CAIRN_EV_NET_RECV_TO, h[2], h[3]);
        if (h[0] == CAIRN_NET_KIND_MIG)
            cairn__mig_rx(src, ts, len - CAIRN_NET_HEADER);
        else
            cairn__rel_control(h[0], src, h[2], h[4], ts[0]);
        return;
    }
    cairn_net.ts.service_fresh = false;
    if (p == ts)
        p = 0;
    bool mcast = h[0] == CAIRN_NET_KIND_MCAST;
    /* Field by field (no cairn__msg_new): the block is the kernel's already. */
    cairn_frame_t f;
    cairn_msg_t *m = &f.msg;
    m->next = 0;
    m->payload = p;
    m->len = (uint16_t)(len - CAIRN_NET_HEADER);
    m->src = h[5];
    m->prio = 0;
    m->flags = p ? CAIRN_MSG_HEAP | CAIRN_MSG_REMOTE : CAIRN_MSG_REMOTE;
    m->reserved = 0;
    cairn_net.stats.rx_frames++;
    CAIRN_TRACE(CAIRN_EV_NET_RECV, src, h[6] | (unsigned)h[7] << 8);
    CAIRN_TRACE(CAIRN_EV_NET_RECV_TO, mcast ? CAIRN_TASK_MCAST : h[2], mcast ? h[2] : h[3]);
    cairn_ret_t r;
    if (mcast) {
        m->dst = CAIRN_TASK_MCAST;
        m->port = h[2];
        r = cairn__mcast_send(&f); /* releases what nobody got */
    } else if (h[0] == CAIRN_NET_KIND_DATA) { /* reliable layer hook */
        m->dst = h[2];
        m->port = h[3];
        m->len = (uint16_t)(m->len - CAIRN_REL_TRAILER);
        const uint8_t *epochs = (const uint8_t *)p + m->len;
        uint8_t to_epoch = epochs[0], from_epoch = epochs[1];
        if (!m->len) {
            cairn_free(p); /* the trailer alone */
            m->payload = 0;
            m->flags = CAIRN_MSG_REMOTE;
        }
        r = cairn__rel_receive(&f, src, h[4], to_epoch, from_epoch); /* releases what it did not deliver */
    } else {
        m->dst = h[2];
        m->port = h[3];
        r = cairn__deliver(&f);
        if (r != CAIRN_OK)
            cairn__release(m);
    }
    if (r == CAIRN_EFULL)
        cairn__net_error(CAIRN_NET_ERR_RX_OVERFLOW, src, h[2]);
}

void cairn__net_service(void)
{
    cairn_bus_tx_ack();
    uint32_t e = cairn_bus_errors();
    if (e)
        cairn__net_error(CAIRN_NET_ERR_CONTROLLER, cairn_net.address, (cairn_task_id_t)e);
    cairn__timesync_tx_done();
    send_buffered();
    uint8_t src;
    bool corrupt;
    int len;
    while ((len = cairn_bus_rx_head(&src, &corrupt)) >= 0)
        receive(src, (unsigned)len, corrupt);
    send_buffered(); /* a frame may have been delivered meanwhile */
    cairn_bus_serviced();
}

/* ---- a migrator frame without the service ----------------------------------------------
 * The RX interrupt's fast path takes plain messages only; for any other frame its binding
 * starts the bus manager, whose service serves the whole controller. A migration frame at the
 * head of the RX FIFO needs none of the rest: TX done and errors come through lines of their
 * own (TX done as a message only when something is buffered). So it is read and handed to the
 * migrator at once, after the checks take_frame makes of it, and the service runs only when
 * other frames wait behind it. A migration's frames are sequential (an empty task's move is
 * three, one after another, each waiting for this path at one end). With the migrator on (the
 * caller checks); false, with the header kept in rx_peek if it was read, when the head frame
 * is anything else: the service takes it as before. */
static bool mig_frame_first(void)
{
    uint8_t src;
    int len;
    if (cairn_net.rx_peeked) {
        bool corrupt;
        len = cairn_bus_rx_head(&src, &corrupt);
        if (len < (int)CAIRN_NET_HEADER || corrupt)
            return false;
    } else {
        /* One call for the usual case, a frame alone; frames behind it go to the service. */
        int got = cairn_bus_rx_single(cairn_net.rx_peek, CAIRN_NET_HEADER + CAIRN_MIG_FRAME_MAX);
        if (got < 0)
            return false;
        cairn_net.rx_peeked = true;
        len = got & 0xFFFF;
        src = (uint8_t)(got >> 16);
    }
    const uint8_t *h = (const uint8_t *)cairn_net.rx_peek;
    unsigned plen = (unsigned)len - CAIRN_NET_HEADER;
    if (h[0] != CAIRN_NET_KIND_MIG || h[1] != src || (uint16_t)cairn_net.rx_peek[2] != plen ||
        !plen || plen > CAIRN_MIG_FRAME_MAX)
        return false;
    uint32_t tw[CAIRN_MIG_HEAD_MAX / 4u];
    if (plen <= CAIRN_MIG_HEAD_MAX) {
        /* Every frame but STATE: its words, then the pop, in one loop of the driver's. */
        cairn_bus_rx_words_pop(tw, plen);
    } else {
        cairn_bus_rx_read(tw, CAIRN_MIG_HEAD_MAX);
        uint8_t *rest = cairn__mig_rx_place(src, (const uint8_t *)tw, plen);
        if (rest)
            cairn_bus_rx_read(rest, plen - CAIRN_MIG_HEAD_MAX);
        cairn_bus_rx_pop();
    }
    cairn_net.rx_peeked = false;
    cairn_net.ts.service_fresh = false;
    cairn_net.stats.rx_frames++;
    CAIRN_TRACE(CAIRN_EV_NET_RECV, src, h[6] | (unsigned)h[7] << 8);
    CAIRN_TRACE(CAIRN_EV_NET_RECV_TO, h[2], h[3]);
    cairn__mig_rx(src, (const uint8_t *)tw, plen);
    return true;
}

/* INIT (cairn_net_start) serves what came before: frames wait in the controller until
 * the applications exist. */
static cairn_ret_t net_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    /* First: the RX (or TX done) time stamp, which only the time synchronisation reads; the
     * RX fast path took it when it read the head frame's header and left the frame here. */
    if (!cairn_net.rx_peeked && cairn_net.ts.on)
        cairn__timesync_entry();
    if (msg->port == CAIRN_NET_PORT_SERVICE && cairn_net.mig && mig_frame_first() &&
        !cairn_bus_rx_count())
        cairn_bus_serviced(); /* migrator hook: its frame alone */
    else if (msg->port == CAIRN_NET_PORT_SERVICE || msg->port == CAIRN_PORT_INIT)
        cairn__net_service();
    else if (msg->port == CAIRN_PORT_TIMEOUT0)
        cairn__timesync_period_timer();
    else if (msg->port == CAIRN_PORT_TIMEOUT(CAIRN_RELIABLE_TIMER)) /* reliable layer hook */
        cairn__rel_timer();
    else if (msg->port == CAIRN_PORT_TIMEOUT(CAIRN_MIG_TIMER)) /* migrator hook */
        cairn__mig_timer();
    else if (msg->port == CAIRN_MIG_PORT_REQUEST) /* migrator hook */
        return cairn__mig_request_msg(msg);
    else if (msg->port == CAIRN_TIMESYNC_PORT_PERIOD)
        return cairn__timesync_period_msg(msg);
    return CAIRN_OK;
}

/* ---- the API -------------------------------------------------------------------------- */

cairn_ret_t cairn_net_init(void)
{
    __builtin_memset(&cairn_net, 0, sizeof cairn_net);
    cairn_k.net = 0;
    if (!cairn_bus_init())
        return CAIRN_ENOROUTE;
    cairn_net.address = cairn_bus_address();
    cairn_ret_t r = cairn_task_create(CAIRN_TASK_NET, net_task, 0, CAIRN_NET_PRIO, 0, 0, 0);
    if (r == CAIRN_OK)
        cairn_k.net = &cairn__net_plain_ops;
    return r;
}

cairn_ret_t cairn_net_start(void)
{
    return cairn_k.net ? cairn_task_init(CAIRN_TASK_NET, 0, 0) : CAIRN_ENOROUTE;
}

uint8_t cairn_net_address(void)
{
    return cairn_k.net ? cairn_net.address : 0;
}

cairn_ret_t cairn_net_power(uint8_t module, bool on)
{
    if (!cairn_k.net || module == CAIRN_NET_BROADCAST)
        return CAIRN_EINVAL;
    uint32_t bit = 1u << (module & 31u);
    uint32_t s = arch_irq_save();
    if (on)
        cairn_net.off[module >> 5] &= ~bit;
    else if (module != cairn_net.address)
        cairn_net.off[module >> 5] |= bit;
    arch_irq_restore(s);
    cairn_bus_power(module, on);
    return CAIRN_OK;
}

void cairn_net_stats(cairn_net_stats_t *st)
{
    uint32_t s = arch_irq_save();
    *st = cairn_net.stats;
    arch_irq_restore(s);
}
