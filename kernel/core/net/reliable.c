/*
 * Cairn OS reliable remote messages: DATA, DACK, NOTASK, retransmission and duplicate
 * suppression (cairn/reliable.h; docs/migration.md, "Messages during a migration").
 *
 * Sending: a message to a remote task is copied into one heap block (kernel-owned) with
 * its number, and appended to the task's list of unacknowledged messages; only the head
 * is on its way. Frames leave through the bus manager's TX buffer as tokens (no payload,
 * CAIRN_MSG_NET_TOKEN): the frame is built when the controller takes it, from the head at
 * that moment, to the module the task's route names then, so a message follows its task.
 * Numbers run 1..255 and wrap to 1: 0 in a table or a DACK means "none yet".
 *
 * Restarts (cairn/reliable.h): DATA ends with the receiver's epoch as known here and this
 * module's; DACK and NOTASK carry the answering module's epoch.
 *
 * Receiving: a DATA frame is accepted when its number is the next one of the task's table
 * for the sending module and the scheduler takes it; every DATA frame is answered with a
 * DACK of the last number accepted (NOTASK when the task is not here).
 */
#include "migrator.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

#define REL (*cairn_net.rel)

static uint8_t *payload_of(cairn_rel_msg_t *e)
{
    return (uint8_t *)(e + 1);
}

static uint8_t after(uint8_t seq)
{
    return seq == 255u ? 1u : (uint8_t)(seq + 1u);
}

/* A token for frame kind about task to module, into the TX buffer (or on the wire). */
static void token(uint8_t kind, cairn_task_id_t task, uint8_t seq, uint8_t module)
{
    cairn_msg_t t = {0};
    t.dst = task;
    t.port = kind;
    t.src = seq;
    t.prio = CAIRN_PRIO_MAX;
    t.flags = CAIRN_MSG_NET_TOKEN;
    if (kind == CAIRN_NET_KIND_DATA)
        REL.token[task] = true;
    if (cairn__net_submit_token(&t, module) != CAIRN_OK && kind == CAIRN_NET_KIND_DATA)
        REL.token[task] = false; /* the timer tries again */
}

/* The head message of task goes (again) to the module its route names now. */
static void kick(cairn_task_id_t task)
{
    if (!REL.pending[task] || REL.token[task] || cairn__mig_holds(task))
        return;
    int module = cairn_task_module(task);
    if (module < 0) {
        /* The task is here now (it moved in): its messages are local ones, in order. */
        if (cairn__tcb(task))
            cairn__rel_deliver_local(task);
        return;
    }
    token(CAIRN_NET_KIND_DATA, task, 0, (uint8_t)module);
}

void cairn__rel_deliver_local(cairn_task_id_t task)
{
    cairn_rel_msg_t *e;
    while ((e = REL.pending[task]) != 0) {
        cairn_frame_t f;
        void *p = 0;
        if (e->len) {
            p = cairn_malloc(e->len);
            if (!p)
                return; /* the timer tries again */
            __builtin_memcpy(p, payload_of(e), e->len);
        }
        cairn__msg_new(&f, e->src, p, e->len);
        f.msg.dst = task;
        f.msg.port = e->port;
        if (cairn__deliver(&f) != CAIRN_OK) {
            cairn__release(&f.msg);
            return;
        }
        REL.pending[task] = e->next;
        REL.stats.pending--;
        cairn_free(e);
    }
}

cairn_ret_t cairn__rel_forward(cairn_msg_t *m, uint8_t module)
{
    cairn_task_id_t task = m->dst;
    if (m->len > CAIRN_NET_MAX_PAYLOAD) {
        cairn__net_error(CAIRN_NET_ERR_TOO_LONG, module, task);
        return CAIRN_EINVAL;
    }
    cairn_rel_msg_t *e = cairn_malloc(sizeof *e + m->len + CAIRN_REL_TRAILER);
    if (!e) {
        REL.stats.no_memory++;
        cairn__net_error(CAIRN_NET_ERR_TX_FULL, module, task);
        return CAIRN_EFULL;
    }
    cairn_heap_set_owner(e, CAIRN_TASK_NONE);
    e->next = 0;
    e->len = m->len;
    e->port = m->port;
    e->src = m->src;
    if (m->len)
        __builtin_memcpy(payload_of(e), m->payload, m->len);
    /* A task sends here, and the bus manager, which preempts it, frees acknowledged
     * messages: the list and the counters change with interrupts masked. */
    uint32_t irq = arch_irq_save();
    e->seq = REL.tx_seq[task] = after(REL.tx_seq[task]);
    cairn_rel_msg_t **link = &REL.pending[task];
    while (*link)
        link = &(*link)->next;
    *link = e;
    bool first = link == &REL.pending[task];
    uint8_t seq = e->seq;
    bool arm = REL.stats.pending == 0; /* the timer runs only while messages are kept */
    REL.stats.numbered++;
    if (++REL.stats.pending > REL.stats.pending_peak)
        REL.stats.pending_peak = REL.stats.pending;
    /* Before the frame can leave: a fast receiver may take it before this module goes on. */
    CAIRN_TRACE(CAIRN_EV_NET_REL_SEND, task, (uint32_t)cairn_net.address << 8 | seq);
    if (first)
        kick(task);
    arch_irq_restore(irq);
    if (arm)
        (void)cairn_timer_set(CAIRN_TASK_NET, CAIRN_RELIABLE_TIMER, REL.period, true);
    cairn__release(m); /* copied */
    return CAIRN_OK;
}

bool cairn__rel_frame(const cairn_msg_t *t, uint8_t module, uint32_t *h, const void **payload,
                      unsigned *len)
{
    uint8_t kind = t->port;
    cairn_task_id_t task = t->dst;
    uint32_t seq = t->src, port = 0, src = 0;
    *payload = &REL.epoch; /* DACK, NOTASK: who answers */
    *len = 1;
    if (kind == CAIRN_NET_KIND_DATA) {
        REL.token[task] = false;
        cairn_rel_msg_t *e = REL.pending[task];
        if (!e || cairn__mig_holds(task))
            return false; /* acknowledged meanwhile, or frozen */
        seq = e->seq;
        port = e->port;
        src = e->src;
        uint8_t *p = payload_of(e);
        p[e->len] = REL.peer_epoch[module % CAIRN_NET_MODULES];
        p[e->len + 1u] = REL.epoch;
        *payload = p;
        *len = e->len + CAIRN_REL_TRAILER;
    } else if (kind == CAIRN_NET_KIND_MIG) {
        return cairn__mig_frame(t, h, payload, len);
    }
    h[0] = kind | (uint32_t)cairn_net.address << 8 | (uint32_t)task << 16 | port << 24;
    h[1] = (seq & 0xFFu) | src << 8;
    h[2] = *len;
    return true;
}

/* ---- receiving ---------------------------------------------------------------------------- */

static uint8_t *table(cairn_task_id_t task, uint8_t module)
{
    return &REL.rx_seq[task][module % CAIRN_NET_MODULES];
}

uint8_t *cairn__rel_table(cairn_task_id_t task)
{
    return REL.rx_seq[task];
}

uint8_t *cairn__rel_epochs(cairn_task_id_t task)
{
    return REL.rx_epoch[task];
}

cairn_ret_t cairn__rel_receive(cairn_frame_t *f, uint8_t src, uint8_t seq, uint8_t to_epoch,
                               uint8_t from_epoch)
{
    cairn_task_id_t task = f->msg.dst;
    uint8_t *last = table(task, src);
    uint8_t *epoch = &REL.rx_epoch[task][src % CAIRN_NET_MODULES];
    bool here = cairn__tcb(task) && !cairn__remote_is(task);
    cairn_ret_t r = CAIRN_OK;
    bool older_sender = *epoch && from_epoch != *epoch && (int8_t)(from_epoch - *epoch) < 0;
    if (to_epoch != REL.epoch || older_sender) {
        /* For an earlier life of this module (or the sender does not know this one yet), or
         * from an earlier life of the sender's: never taken. The first is answered, so that
         * the sender learns this epoch (with what its present life got here: nothing when
         * its epoch is not the table's); the second has nobody to answer. */
        REL.stats.stale++;
        if (!older_sender)
            token(CAIRN_NET_KIND_DACK, task, from_epoch == *epoch ? *last : 0, src);
        cairn__release(&f->msg);
        return CAIRN_OK;
    }
    if (from_epoch != *epoch) {
        /* The sender's first frame here, or it restarted: its numbers start again. */
        *epoch = from_epoch;
        *last = 0;
    }
    if (cairn__mig_refuse(task, src)) {
        /* Frozen here: the sender was told FREEZE and keeps the message. */
    } else if (!here) {
        REL.stats.notask_tx++;
        token(CAIRN_NET_KIND_NOTASK, task, seq, src);
    } else if (*last != 0 && seq != after(*last)) {
        if ((int8_t)(seq - *last) <= 0)
            REL.stats.duplicates++;
        else
            REL.stats.gaps++;
        token(CAIRN_NET_KIND_DACK, task, *last, src);
    } else if ((r = cairn__deliver(f)) != CAIRN_OK) {
        REL.stats.refused++; /* not acknowledged: it comes again */
    } else {
        *last = seq;
        REL.stats.accepted++;
        CAIRN_TRACE(CAIRN_EV_NET_REL_ACCEPT, task, (uint32_t)src << 8 | seq);
        token(CAIRN_NET_KIND_DACK, task, seq, src);
        return CAIRN_OK;
    }
    cairn__release(&f->msg);
    return r == CAIRN_EFULL ? r : CAIRN_OK;
}

/* Takes the head of task's list off. The bus manager preempts tasks anywhere, in the
 * middle of a cairn_malloc too, and the heap is not re-entrant: the block is freed when
 * the kernel is about to sleep (cairn__rel_idle), when no handler is running. */
static void pop(cairn_task_id_t task)
{
    cairn_rel_msg_t *e = REL.pending[task];
    REL.pending[task] = e->next;
    REL.stats.pending--;
    e->next = REL.acked;
    REL.acked = e;
}

void cairn__rel_idle(void)
{
    if (!cairn_net.rel)
        return;
    cairn_rel_msg_t *e;
    while ((e = REL.acked) != 0) {
        REL.acked = e->next;
        cairn_free(e);
    }
}

/* Module src's epoch is now `epoch`: the messages refused for want of it go at once. A
 * message sent to a restarted module's earlier life is sent again to the new one: if the
 * earlier life took it, that life's effects are gone with it (at most once per life of the
 * receiving task, docs/migration.md). */
static void learn_epoch(uint8_t src, uint8_t epoch)
{
    uint8_t *known = &REL.peer_epoch[src % CAIRN_NET_MODULES];
    if (!epoch || *known == epoch)
        return;
    *known = epoch;
    for (cairn_task_id_t t = 1; t <= CAIRN_MAX_TASKS; t++)
        if (REL.pending[t])
            kick(t);
}

void cairn__rel_control(uint8_t kind, uint8_t src, cairn_task_id_t task, uint8_t seq, uint8_t epoch)
{
    if (task > CAIRN_MAX_TASKS || !cairn_net.rel)
        return;
    learn_epoch(src, epoch);
    if (task == CAIRN_TASK_NONE)
        return; /* a module's hello */
    cairn_rel_msg_t *e;
    bool popped = false;
    if (kind == CAIRN_NET_KIND_DACK) {
        while (seq && (e = REL.pending[task]) != 0 && (int8_t)(seq - e->seq) >= 0) {
            pop(task);
            REL.stats.acked++;
            popped = true;
        }
    } else if ((e = REL.pending[task]) != 0 && e->seq == seq &&
               cairn_task_module(task) == (int)src) {
        /* A stale NOTASK (not from the module the route names) is ignored. */
        pop(task);
        REL.stats.notask_rx++;
        cairn__net_error(CAIRN_NET_ERR_RX_NO_TASK, src, task);
        popped = true;
    }
    if (popped) {
        kick(task);
        if (REL.draining)
            cairn__mig_drained();
    }
}

bool cairn__rel_sent_by(cairn_task_id_t task)
{
    if (!REL.stats.pending)
        return false; /* the usual case at a commit: no list to walk */
    for (cairn_task_id_t t = 1; t <= CAIRN_MAX_TASKS; t++)
        for (const cairn_rel_msg_t *e = REL.pending[t]; e; e = e->next)
            if (e->src == task)
                return true;
    return false;
}

void cairn__rel_timer(void)
{
    if (!cairn_net.rel)
        return;
    if (!REL.stats.pending) {
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_RELIABLE_TIMER);
        return;
    }
    for (cairn_task_id_t t = 1; t <= CAIRN_MAX_TASKS; t++) {
        if (REL.pending[t] && !REL.token[t] && !cairn__mig_holds(t)) {
            REL.stats.resent++;
            kick(t);
        }
    }
}

void cairn__rel_resume(cairn_task_id_t task)
{
    kick(task);
}

/* ---- the API ---------------------------------------------------------------------------- */

cairn_ret_t cairn_net_reliable_start(uint32_t retransmit_ticks)
{
    if (!cairn_k.net)
        return CAIRN_ENOROUTE;
    if (!retransmit_ticks)
        return CAIRN_EINVAL;
    if (!cairn_net.rel) {
        cairn_rel_state_t *r = cairn_malloc(sizeof *r);
        if (!r)
            return CAIRN_ENOMEM;
        cairn_heap_set_owner(r, CAIRN_TASK_NONE);
        __builtin_memset(r, 0, sizeof *r);
        r->epoch = cairn_bus_boot_epoch();
        cairn_net.rel = r;
    }
    REL.on = true;
    REL.period = retransmit_ticks;
    cairn__net_reliable_ops();
    /* Hello: a DACK for no task tells every module this one's epoch, so that a first
     * message need not be refused to learn it, and a peer that knew an earlier life of
     * this module drops at once what it had sent there. */
    token(CAIRN_NET_KIND_DACK, CAIRN_TASK_NONE, 0, CAIRN_NET_BROADCAST);
    return CAIRN_OK;
}

bool cairn_net_reliable_on(void)
{
    return cairn_k.net && cairn_net.rel;
}

void cairn_net_reliable_stats(cairn_reliable_stats_t *st)
{
    if (!cairn_net.rel) {
        __builtin_memset(st, 0, sizeof *st);
        return;
    }
    uint32_t s = arch_irq_save();
    *st = REL.stats;
    arch_irq_restore(s);
}
