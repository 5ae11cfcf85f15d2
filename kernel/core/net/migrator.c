/*
 * The task migrator (TM): CoMOS's seven steps (the CoMOS paper, V-D) as the state machines
 * of docs/migration.md, "State machines": the source decides, the destination commits,
 * the others hold and apply the result. It runs in the bus manager (its frames are a
 * frame kind of their own, CAIRN_NET_KIND_MIG, handled like TIMESYNC), one migration at a
 * time, on the bus manager's timer 2 for retransmission and queries.
 *
 * Frames: the first payload byte is the kind, then the migration (source module, counter)
 * for all but REQUEST; docs/migration.md, "Frames". They leave through a small outbox of
 * whole frames (a TX token names the slot); a full outbox loses the frame, which the timer
 * sends again.
 */
#include "migrator.h"
#include "serialize.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

#define MIG (*cairn_net.mig)

/* A STATE frame numbers its parts in one byte (and its token in seven bits); blob_len is
 * 16 bits; a migration frame fits the bus's largest. */
_Static_assert((CAIRN_MIG_STATE_MAX + MIG_PART - 1u) / MIG_PART < MIG_TOKEN_PART, "STATE parts");
_Static_assert(CAIRN_MIG_FRAME_MAX <= CAIRN_NET_MAX_PAYLOAD, "migration frame");
_Static_assert(MIG_PART_HEAD == CAIRN_MIG_HEAD_MAX && MIG_SMALL_MAX <= CAIRN_MIG_HEAD_MAX, "heads");
_Static_assert(CAIRN_MIG_STATE_MAX <= 0xFFFFu, "blob_len");
_Static_assert(MIG_PART_HEAD + MIG_PART <= sizeof ((cairn_mig_state_t *)0)->part_frame, "inline blob");

static inline __attribute__((always_inline)) bool on(void)
{
    return cairn_k.net && cairn_net.mig;
}

static void trace(uint8_t ev)
{
    CAIRN_TRACE(ev, MIG.task, (uint32_t)MIG.mig_src << 8 | MIG.mig_ctr);
}

/* The same in line, for the destination's words on its way from the STATE to its answer. */
static inline __attribute__((always_inline)) void trace_of(const cairn_mig_state_t *m, uint8_t ev)
{
    CAIRN_TRACE(ev, m->task, (uint32_t)m->mig_src << 8 | m->mig_ctr);
}

/* Every module but this one, computed once (cairn_migrate_start): each check that every
 * module answered read the controller's module count again, the source's answer to
 * DESERIALIZED among them. */
static uint32_t others_of(unsigned n, uint8_t address)
{
    uint32_t m = (n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1u);
    return m & ~(1u << address);
}

static inline __attribute__((always_inline)) uint32_t all_others(void)
{
    return MIG.others;
}

/* ---- sending ------------------------------------------------------------------------------ */

static bool submit(uint8_t module, uint8_t token)
{
    cairn_msg_t t = {0};
    t.dst = CAIRN_TASK_NET;
    t.port = CAIRN_NET_KIND_MIG;
    t.src = token;
    t.prio = CAIRN_PRIO_MAX;
    t.flags = CAIRN_MSG_NET_TOKEN;
    return cairn__net_submit_token(&t, module) == CAIRN_OK;
}

/* A frame of the migrator's written to the idle controller (interrupts masked since s): the
 * sequence number used, counted, traced as the bus manager's own sends are. */
static inline __attribute__((always_inline)) void sent_now(uint8_t module, uint32_t seq, uint32_t s)
{
    cairn_net.seq = (uint16_t)(seq + 1u);
    cairn_net.stats.tx_frames++;
    cairn_net.stats.tx_immediate++;
    arch_irq_restore(s);
    CAIRN_TRACE(CAIRN_EV_NET_SEND, module, seq & 0xFFFFu);
    CAIRN_TRACE(CAIRN_EV_NET_SEND_TO, CAIRN_TASK_NET, 0);
}

/* A migrator frame written to the controller at once when it is idle and nothing is
 * buffered, as the bus manager's submit would write its token, without the token, the
 * slot and the calls between them; false (nothing sent) otherwise. */
static bool tx_now(uint8_t module, const void *data, unsigned len)
{
    if (module != CAIRN_NET_BROADCAST && ((cairn_net.off[module >> 5] >> (module & 31u)) & 1u))
        return false; /* powered off: the general path counts it */
    uint32_t h[3] = {
        CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16,
        0,
        len,
    };
    uint32_t s = arch_irq_save();
    uint32_t seq = cairn_net.seq;
    h[1] = (seq & 0xFFFFu) << 16;
    if (cairn_net.txq || !cairn_bus_tx_if_idle(module, h, data, len)) {
        arch_irq_restore(s);
        return false;
    }
    sent_now(module, seq, s);
    return true;
}

static void send(uint8_t module, const uint8_t *data, unsigned len)
{
    if (len > MIG_SMALL_MAX || tx_now(module, data, len))
        return;
    for (unsigned i = 0; i < MIG_OUTBOX; i++) {
        struct cairn_mig_out *o = &MIG.out[i];
        if (o->len)
            continue;
        __builtin_memcpy(o->data, data, len);
        o->len = (uint8_t)len;
        if (!submit(module, (uint8_t)i))
            o->len = 0;
        return;
    }
}

/* The division by MIG_PART as a multiplication and a shift, exact for every length a blob can
 * have: the M0+ divides in a library call, on the source's way to its first STATE part. */
#define PARTS_SHIFT 21u
#define PARTS_MUL (((1u << PARTS_SHIFT) + MIG_PART - 1u) / MIG_PART)
_Static_assert((uint64_t)(PARTS_MUL * MIG_PART - (1u << PARTS_SHIFT)) *
                       (CAIRN_MIG_STATE_MAX + MIG_PART - 1u) < (1u << PARTS_SHIFT) &&
                   (uint64_t)(CAIRN_MIG_STATE_MAX + MIG_PART - 1u) * PARTS_MUL <= 0xFFFFFFFFu,
               "parts(): the multiplication is the division");

static uint8_t parts(void)
{
    unsigned len = MIG.blob_len;
    /* One part (an empty task's, every small one's) without the multiplication. */
    return (uint8_t)(len && len <= MIG_PART ? 1u : (len + MIG_PART - 1u) * PARTS_MUL >> PARTS_SHIFT);
}

/* A serialised task of one part lives in the STATE frame buffer itself, after the part's
 * head, at both ends: the source builds its one frame there and the destination reads it
 * there, with no blob allocated (and none copied on the source). A module takes part in one
 * migration at a time, so the buffer is free for it (a stale part token finds the phase
 * over). */
static uint8_t *inline_blob(void)
{
    return (uint8_t *)MIG.part_frame + MIG_PART_HEAD;
}

/* The last head byte of part `index` (MIG_PART_COMMIT, MIG_PART_NO_JOIN). */
static inline __attribute__((always_inline)) uint32_t part_flags(const cairn_mig_state_t *m,
                                                                 unsigned index)
{
    return (index + 1u == m->count && m->fast ? MIG_PART_COMMIT : 0u) |
           (m->dest_epoch ? 0u : MIG_PART_NO_JOIN);
}

/* STATE part `index` written to the idle controller, interrupts masked: its head built in
 * the STATE frame buffer's first words, its bytes read straight from the blob where the
 * serialiser wrote them (word-aligned: the blob is a heap block or the buffer itself, and a
 * part a multiple of four bytes), so a part is built when the bus takes it and copied once,
 * into the controller. */
static void part_put(cairn_mig_state_t *m, unsigned index, uint8_t module, uint32_t seq)
{
    unsigned at = index * MIG_PART;
    unsigned n = m->blob_len - at < MIG_PART ? m->blob_len - at : MIG_PART;
    /* A split state (serialise_tcb): the first part's fields in the STATE frame buffer, the
     * bytes of T's block, the first part's share too, straight from the block T handed. */
    unsigned state_at = m->stage.state_at, head_words = MIG_PART_HEAD / 4u, bytes_n = n;
    const uint8_t *bytes = m->blob + at;
    if (state_at) {
        if (index) {
            bytes = (const uint8_t *)m->stage.state + (at - state_at);
        } else {
            /* The first: its fields (word-aligned, behind the part's head), then the block's
             * first bytes, which were never copied into the buffer. */
            head_words += state_at / 4u;
            bytes = m->stage.state;
            bytes_n = n - state_at;
        }
    }
    m->part_frame[0] = F_STATE | (uint32_t)m->mig_src << 8 | (uint32_t)m->mig_ctr << 16 |
                       (uint32_t)index << 24;
    m->part_frame[1] = m->count | (uint32_t)m->state_epoch << 8 | (uint32_t)m->task << 16 |
                       part_flags(m, index) << 24;
    const uint32_t h[3] = {
        CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16,
        (seq & 0xFFFFu) << 16,
        MIG_PART_HEAD + n,
    };
    cairn_bus_tx_sub(module, h, m->part_frame, head_words, bytes, bytes_n);
}

/* The bus manager's transmit of a part's token: false for a stale one (the transfer ended
 * meanwhile). */
bool cairn__mig_part_write(unsigned index, uint8_t module, uint32_t seq)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->role != MIG_SOURCE || m->phase != PH_TRANSFER || !m->blob || index >= m->count)
        return false;
    part_put(m, index, module, seq);
    return true;
}

/* A small frame's slot (a STATE part's token is written by cairn__mig_part_write). */
bool cairn__mig_frame(const cairn_msg_t *t, uint32_t *h, const void **payload, unsigned *len)
{
    struct cairn_mig_out *o = &MIG.out[t->src % MIG_OUTBOX];
    if ((t->src & MIG_TOKEN_PART) || !o->len)
        return false;
    /* The slot is free again once the bytes are in the controller: the caller copies. */
    *payload = o->data;
    *len = o->len;
    o->len = 0;
    h[0] = CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16;
    h[1] = 0;
    h[2] = *len;
    return true;
}

/* A frame of this migration: kind, mig, then up to three bytes. */
static void frame(uint8_t module, uint8_t kind, int a, int b, int c)
{
    uint8_t f[6] = {kind, MIG.mig_src, MIG.mig_ctr, (uint8_t)a, (uint8_t)b, (uint8_t)c};
    unsigned n = 3 + (a >= 0) + (b >= 0) + (c >= 0);
    send(module, f, n);
}

/* The same for the frames of one byte after mig (the answers: STATE_ACK, DESERIALIZED,
 * FREEZE_ACK, ACTIVATED), built as the one word they are; the answers on the migration's
 * critical path pay for no byte-by-byte build nor the count of the bytes given. */
static void frame1(uint8_t module, uint8_t kind, uint8_t a)
{
    const uint32_t w = kind | (uint32_t)MIG.mig_src << 8 | (uint32_t)MIG.mig_ctr << 16 |
                       (uint32_t)a << 24;
    send(module, (const uint8_t *)&w, 4);
}

/* RESULT (six bytes, two words; the commit among them). */
static void result_to(uint8_t module)
{
    const uint32_t w[2] = {
        F_RESULT | (uint32_t)MIG.mig_src << 8 | (uint32_t)MIG.mig_ctr << 16 |
            (uint32_t)MIG.outcome << 24,
        MIG.task | (uint32_t)MIG.dest << 8,
    };
    send(module, (const uint8_t *)w, 6);
}

static void arm(uint32_t ticks)
{
    (void)cairn_timer_set(CAIRN_TASK_NET, CAIRN_MIG_TIMER, ticks ? ticks : 1u, true);
}

/* This module's migration has ended: the timer stops, unless a REQUEST waits for that end,
 * which it takes once, at the next tick (a periodic tick would keep a slow module in the
 * timer's interrupt for ever). */
static void timer_end(void)
{
    if (MIG.deferred_task)
        (void)cairn_timer_set(CAIRN_TASK_NET, CAIRN_MIG_TIMER, 1u, false);
    else
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
}

static inline uint32_t query_period(const cairn_mig_state_t *m)
{
    return m->cfg.retransmit_ticks * (m->cfg.tries + 2u);
}

/* ---- the source ---------------------------------------------------------------------------- */

static void freeze_here(cairn_mig_state_t *m, cairn_tcb_t *t)
{
    /* T's flags from before a deferred REQUEST stopped it, if one did. */
    m->saved_flags = m->prefrozen == t->id ? m->prefrozen_flags : t->flags & TCB_READY;
    if (m->prefrozen == t->id)
        m->prefrozen = 0;
    t->flags &= (uint8_t)~TCB_READY; /* its queued messages wait; new ones queue behind */
    m->stats.frozen++;
    trace(CAIRN_EV_MIG_FROZEN);
}

/* T's SERIALIZE handler called as the scheduler would call it, on a frame of T's on the
 * execution stack (so that T is the current task: its allocations are T's, and
 * cairn_migrate_state takes its block), with the same START, END and CURRENT trace words,
 * but without the scheduler's way around it: no dispatch follows, so the frame leaves the
 * stack with the task's flag in one masked stretch and no dispatch mark is set to be
 * cleared again. A kill that came meanwhile takes the scheduler's end, which finishes it. */
static void call_serialize(cairn_tcb_t *t)
{
    cairn_frame_t f;
    cairn_msg_t *m = &f.msg;
    m->next = 0;
    m->payload = 0;
    m->len = 0;
    m->src = CAIRN_TASK_NONE;
    m->dst = t->id;
    m->port = CAIRN_PORT_SERIALIZE;
    m->prio = t->prio;
    m->flags = 0;
    m->reserved = 0;
    cairn__policy_msg_init(m);
    uint32_t s = arch_irq_save();
    cairn__enter(t, &f, t->prio);
    arch_irq_restore(s);
    CAIRN_TRACE(CAIRN_EV_START, t->id, CAIRN_PORT_SERIALIZE);
    cairn_ret_t r = t->handler(t->state, m);
    if (t->flags & TCB_KILLING) {
        cairn__end(r, &f);
        cairn__gap_close();
        return;
    }
    CAIRN_TRACE(CAIRN_EV_END, t->id, (uint16_t)r);
    cairn_frame_t *below = f.below;
    s = arch_irq_save();
    t->flags &= (uint8_t)~TCB_ON_STACK;
    cairn_k.top = below;
    arch_irq_restore(s);
    /* cairn_current_task() in line: the frame below is the top now (the bus manager's). */
    CAIRN_TRACE(CAIRN_EV_CURRENT, cairn_k.isr_depth || !below ? CAIRN_TASK_NONE : cairn__frame_task(below), 0);
}

/* The SERIALIZE handler, run now (T is not on the stack), then the kernel's part. */
static void serialise_tcb(cairn_mig_state_t *m, cairn_tcb_t *t)
{
    if (m->serialised || !t || (t->flags & TCB_ON_STACK))
        return;
    m->handed = 0;
    m->handed_len = 0;
    m->in_serialize = true;
    call_serialize(t);
    m->in_serialize = false;
    /* Written once into the STATE frame buffer, up to a part: that is the whole blob of a
     * task of one part, and the first part's fields of a split state (several parts whose
     * fields before T's block fit in the first: its parts' bytes of T's block go to the
     * controller straight from the block, no blob, no copy). Only a longer blob is
     * allocated, as long as this task needs (a handler may hand up to CAIRN_MIG_STATE_MAX),
     * and written again. The writer counts T's block and leaves its bytes to this. */
    struct cairn_mig_writer w;
    cairn__mig_gather(&w, t);
    /* Read once: through m, every field read after a call or a store is loaded again. */
    void *const handed = m->handed;
    unsigned handed_len = m->handed_len;
    uint8_t *const part = (uint8_t *)m->part_frame + MIG_PART_HEAD; /* inline_blob() */
    w.buf = part;
    w.cap = MIG_PART;
    const uint8_t *seq = cairn_net.rel->rx_seq[t->id]; /* cairn__rel_table, without its call */
    unsigned queued = cairn__mig_write(&w, t, seq, handed_len, m->cfg.hw_hz);
    unsigned size = w.len, at = size - handed_len;
    bool split = size > MIG_PART && at <= MIG_PART && size <= CAIRN_MIG_STATE_MAX &&
                 cairn_heap_owner(handed) == t->id; /* T's own heap block, kept till the end */
    uint8_t *blob = size <= MIG_PART || split ? part : 0;
    if (!blob && size <= CAIRN_MIG_STATE_MAX && (blob = cairn__malloc_for(size, CAIRN_TASK_NONE))) {
        /* A message queued for T since the first write makes it too long: T resumes. */
        w.buf = blob;
        w.cap = size;
        queued = cairn__mig_write(&w, t, seq, handed_len, m->cfg.hw_hz);
        if (w.len != size) {
            cairn_free(blob);
            blob = 0;
        }
    }
    if (blob && !split && handed_len)
        __builtin_memcpy(blob + at, handed, handed_len);
    m->queued = (uint8_t)queued;
    if (blob) {
        if (split) {
            /* The kernel's from now: a kill of T frees T's blocks, not this one. */
            cairn__heap_give(handed, CAIRN_TASK_NONE);
            m->stage.state = handed;
            m->stage.state_at = (uint16_t)at;
        }
        m->blob = blob;
        m->blob_len = (uint16_t)size;
        /* The timers travel in the blob: here they would fire for a frozen task. */
        if (w.running)
            cairn_timer_cancel_all(t->id);
    }
    m->serialised = true; /* without a blob: the transfer fails, T resumes */
    trace_of(m, CAIRN_EV_MIG_SERIALIZED);
}

static void serialise(void)
{
    serialise_tcb(cairn_net.mig, cairn__tcb(MIG.task));
}

static void source_done(void);

/* The one part of a blob that lives in the STATE frame buffer (inline_blob): its head goes
 * in the buffer's first words, just before the bytes, so the frame is one run of words for
 * the controller, written with its idle check in one call (an empty task's STATE). */
static bool tx_inline_part(uint8_t module, uint32_t seq)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    m->part_frame[0] = F_STATE | (uint32_t)m->mig_src << 8 | (uint32_t)m->mig_ctr << 16;
    m->part_frame[1] = 1u | (uint32_t)m->state_epoch << 8 | (uint32_t)m->task << 16 |
                       part_flags(m, 0) << 24;
    const uint32_t h[3] = {
        CAIRN_NET_KIND_MIG | (uint32_t)cairn_net.address << 8 | (uint32_t)CAIRN_TASK_NET << 16,
        (seq & 0xFFFFu) << 16,
        MIG_PART_HEAD + m->blob_len,
    };
    bool ok = cairn_bus_tx_if_idle(module, h, m->part_frame, MIG_PART_HEAD + m->blob_len);
    return ok;
}

/* Go-back-N: the parts from `sent` up to MIG_WINDOW beyond the acknowledged ones. A token
 * the bus manager cannot queue loses its part, which the timer sends again. */
/* STATE part `index` to the controller at once when it is idle and nothing is buffered, as
 * tx_now writes a small frame; false (nothing sent) otherwise. */
static bool tx_part_now(uint8_t index)
{
    uint8_t module = MIG.dest;
    if ((cairn_net.off[module >> 5] >> (module & 31u)) & 1u)
        return false; /* powered off: the general path counts it */
    uint32_t s = arch_irq_save();
    uint32_t seq = cairn_net.seq;
    /* In TRANSFER with a blob and index a part of it (send_parts): no stale token to check. */
    if (cairn_net.txq) {
        arch_irq_restore(s);
        return false;
    }
    if (MIG.count == 1u) {
        if (!tx_inline_part(module, seq)) {
            arch_irq_restore(s);
            return false;
        }
    } else if (cairn_bus_tx_idle()) {
        part_put(cairn_net.mig, index, module, seq);
    } else {
        arch_irq_restore(s);
        return false;
    }
    sent_now(module, seq, s);
    return true;
}

/* The last part may carry the commit (MIG_PART_COMMIT) when nothing is left for S to wait
 * for after D's staging: every other module frozen (a device of two modules, or FREEZE went
 * first and every module answered it), T's sent messages drained (the drain rule, as
 * commit() checks it: T is frozen, so it stays drained) and T not killed here. D then makes
 * T live as soon as it has staged it, and the DESERIALIZED → RESULT(MOVED) round trip is
 * gone. From the first such part on S may no longer resume T on a timeout (m->fast). */
static bool commit_on_staging(cairn_mig_state_t *m)
{
    if (!m->state_epoch || ((m->answered | 1u << m->dest) & m->others) != m->others ||
        !cairn__tcb_inline(m->task))
        return false;
    cairn_rel_state_t *const rel = cairn_net.rel;
    return !(rel->stats.pending && cairn__rel_sent_by(m->task));
}

static void send_parts(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (!m->fast && m->sent < m->count && m->count <= m->acked + MIG_WINDOW)
        m->fast = commit_on_staging(m); /* the last part goes in this window */
    while (MIG.sent < MIG.count && MIG.sent < MIG.acked + MIG_WINDOW) {
        uint8_t i = MIG.sent++;
        /* The controller takes one frame at a time: the first part may go at once, the
         * others wait as tokens and are built when the bus takes them. */
        if (!tx_part_now(i))
            (void)submit(MIG.dest, (uint8_t)(MIG_TOKEN_PART | i));
    }
}

static void free_blob(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->blob && m->blob != inline_blob()) /* none, at a join: no call */
        cairn_free(m->blob);
    m->blob = 0;
    m->blob_len = 0;
    if (m->role == MIG_SOURCE && m->stage.state_at) {
        /* A split state's block, which T handed (the destination's is the stage's). */
        cairn_free(m->handed);
        m->handed = 0;
        m->stage.state = 0;
        m->stage.state_at = 0;
    }
}

/* A new migration's stage holds no blocks: the fields that own them cleared (an
 * unstage frees and clears them; a commit hands them on). Not the whole stage: the parsed
 * fields are the staging's to fill before anything reads them, and a memset of the stage
 * cost a word loop on both ends' way to the first STATE. */
static void stage_clear(cairn_mig_state_t *m)
{
    m->stage.state = 0;
    m->stage.tcb_reserve = 0;
    m->stage.payloads = 0;
    m->stage.messages = 0;
    m->stage.state_at = 0;
}

static void resulting(uint8_t outcome)
{
    MIG.outcome = outcome;
    MIG.stats.last_outcome = outcome;
    MIG.phase = PH_RESULTING;
    MIG.tries = 0;
    send(CAIRN_NET_BROADCAST, (const uint8_t[]){F_RESULT, MIG.mig_src, MIG.mig_ctr, outcome,
                                                 MIG.task, MIG.dest}, 6);
    arm(MIG.cfg.retransmit_ticks);
    /* The destination answered already (ACTIVATED) and no one else takes part (a device of
     * two modules): no RESULT_ACK will come, the migration has ended. */
    if ((MIG.answered & all_others()) == all_others())
        source_done();
}

/* T was killed here while it was being moved, before the commit went: the kill wins. No
 * commit (a copy on D would bring T back), no resumption (T's timers would be set for no
 * task): the others free and unfreeze on RESULT(KILLED), as after ACTIVATED(no). Out of
 * line: the commit's path pays only for the look-up. */
__attribute__((noinline, cold)) static void killed_here(void)
{
    cairn_net.rel->draining = false;
    free_blob();
    MIG.stats.killed++;
    trace(CAIRN_EV_MIG_KILLED);
    MIG.answered = 0;
    resulting(CAIRN_MIG_KILLED);
}

static void resume(void)
{
    cairn_net.rel->draining = false;
    cairn_tcb_t *t = cairn__tcb(MIG.task);
    if (!t) {
        killed_here();
        return;
    }
    t->flags |= MIG.saved_flags;
    cairn__mig_restore_timers();
    free_blob();
    MIG.stats.resumed++;
    trace(CAIRN_EV_MIG_RESUMED);
    MIG.answered = 0;
    resulting(CAIRN_MIG_RESUMED);
}

/* The STATE goes when T is serialised and, unless it goes first, every module is frozen. */
static void try_transfer(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->phase != PH_FREEZING || !m->serialised ||
        (!m->dest_epoch && (m->answered & m->others) != m->others))
        return;
    if (!m->blob) {
        resume();
        return;
    }
    m->phase = PH_TRANSFER;
    m->acked = 0;
    m->sent = 0;
    m->count = parts();
    m->tries = 0;
    send_parts();
}

static void source_done(void)
{
    MIG.phase = PH_DONE;
    timer_end();
    trace(CAIRN_EV_MIG_UNFROZEN);
    if (MIG.cfg.done)
        MIG.cfg.done(MIG.task, MIG.dest, MIG.outcome);
}

static void defer(cairn_task_id_t task, uint8_t dest, unsigned hops)
{
    MIG.deferred_task = task;
    MIG.deferred_dest = dest;
    MIG.deferred_hops = (uint8_t)hops;
}

/* A deferred REQUEST refused after all: its task takes messages again. */
static void unprefreeze(cairn_task_id_t task, cairn_tcb_t *t)
{
    if (!task || MIG.prefrozen != task)
        return;
    MIG.prefrozen = 0;
    if (t)
        t->flags |= MIG.prefrozen_flags;
}

static void request(cairn_task_id_t task, uint8_t dest, unsigned hops)
{
    cairn_tcb_t *t = cairn__tcb(task);
    bool busy = MIG.role != MIG_NONE && !(MIG.phase == PH_DONE || MIG.phase == PH_SETTLED);
    if (busy && t && !MIG.deferred_task) {
        /* In another migration (maybe T's own, whose REQUEST this one followed closely):
         * this one waits for its end and is then taken, or sent on to where T went. */
        defer(task, dest, hops);
        return;
    }
    if (!t || !cairn__movable(task) || busy || dest == cairn_net.address ||
        dest >= cairn_bus_modules() || (t->flags & TCB_KILLING)) {
        unprefreeze(task, t);
        MIG.stats.refused++;
        return;
    }
    if (t->flags & TCB_ON_STACK) {
        /* T is running, or its dispatch has begun (its frame pushed, the handler not yet
         * called): frozen now, it would start that handler frozen. T stops taking messages
         * now and the REQUEST waits until T is off the stack, so that T stops at the end of
         * the handler it runs: a quarter of a retransmission period, long enough for the
         * handler to end (a tick would keep the bus manager, which outranks T, busy with
         * this timer). */
        if (MIG.deferred_task && MIG.deferred_task != task) {
            MIG.stats.refused++; /* one REQUEST waits at a time */
            return;
        }
        if (MIG.prefrozen != task) {
            unprefreeze(MIG.prefrozen, cairn__tcb(MIG.prefrozen));
            MIG.prefrozen_flags = t->flags & TCB_READY;
            t->flags &= (uint8_t)~TCB_READY;
            MIG.prefrozen = task;
        }
        defer(task, dest, hops);
        arm(MIG.cfg.retransmit_ticks / 4u);
        return;
    }
    /* One pointer to the state for the whole freeze: MIG reloads it after every store. */
    cairn_mig_state_t *const m = cairn_net.mig;
    stage_clear(m);
    m->role = MIG_SOURCE;
    m->phase = PH_FREEZING;
    m->mig_src = cairn_net.address;
    m->mig_ctr = ++m->counter;
    m->task = task;
    m->dest = dest;
    m->source = cairn_net.address;
    m->tries = 0;
    m->answered = 0;
    m->outcome = 0;
    m->serialised = false;
    m->queued = 0;
    m->stats.requests++;
    trace(CAIRN_EV_MIG_REQUEST);
    freeze_here(m, t);
    /* With D's epoch known, the STATE goes first and freezes D; D joins on it only in that
     * epoch, so a STATE from before D's reset is refused. Without it, FREEZE first. */
    uint8_t epoch = dest < CAIRN_NET_MODULES ? cairn_net.rel->peer_epoch[dest] : 0;
    if (epoch && epoch == m->refused_epoch[dest])
        epoch = 0;
    m->dest_epoch = epoch;
    m->state_epoch = epoch;
    m->fast = false;
    if (!epoch)
        send(CAIRN_NET_BROADCAST, (const uint8_t[]){F_FREEZE, m->mig_src, m->mig_ctr, task, dest}, 5);
    serialise_tcb(m, t);
    try_transfer();
    /* Freed once the first parts are on their way: the blob has the bytes (a split state's
     * later parts are read from it: freed with the blob). */
    if (!m->stage.state_at) {
        cairn_free(MIG.handed);
        MIG.handed = 0;
    }
    /* Armed after the first frames went: no answer is handled before this handler returns
     * (answers are messages to the bus manager, which runs it). A resumed migration armed
     * its own. */
    if (MIG.phase == PH_FREEZING || MIG.phase == PH_TRANSFER)
        arm(MIG.cfg.retransmit_ticks);
}

/* FREEZE to every module that has not answered (D has, with its DESERIALIZED(ok)). */
static void freeze_silent(void)
{
    uint32_t silent = all_others() & ~MIG.answered;
    for (uint8_t m = 0; m < 32; m++)
        if (silent & 1u << m)
            frame(m, F_FREEZE, MIG.task, MIG.dest, -1);
}

/* The drain rule: T runs at D only after every DATA message it sent from here has been
 * acknowledged. Its receivers number messages per sending module, so one still kept here
 * would be taken after those T sends from D, out of order. T is frozen: no new ones come,
 * and the kept ones drain as their DACKs arrive (cairn__mig_drained), or the migration
 * gives up after its tries (source_timer) and T resumes here. */
static void commit(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    /* A kill after a part with the commit went is too late, as after the commit itself. */
    if (!m->fast && !cairn__tcb_inline(m->task)) {
        killed_here();
        return;
    }
    m->tries = 0;
    cairn_rel_state_t *const rel = cairn_net.rel;
    /* Nothing kept at all, the usual case: no call to look for T's. */
    if (rel->stats.pending && cairn__rel_sent_by(m->task)) {
        m->phase = PH_DRAINING;
        rel->draining = true;
        return;
    }
    rel->draining = false;
    m->phase = PH_COMMITTING;
    m->outcome = CAIRN_MIG_MOVED;
    /* The commit, RESULT(MOVED), built here rather than through frame(): it is on the
     * latency's path, between the DESERIALIZED that came and the frame that goes. */
    const uint8_t f[6] = {F_RESULT, m->mig_src, m->mig_ctr, CAIRN_MIG_MOVED, m->task, m->dest};
    send(m->dest, f, sizeof f);
}

/* D's answer to the commit (RESULT(MOVED), or a part with MIG_PART_COMMIT): T live there,
 * or D reset since it may have run T there (KILLED). */
static void activated(cairn_mig_state_t *m, bool live)
{
    free_blob();
    m->answered = 1u << m->dest;
    if (live) {
        cairn__mig_detach(m->task, m->dest, m->queued);
        m->stats.moved++;
        trace(CAIRN_EV_MIG_FREED);
        resulting(CAIRN_MIG_MOVED);
    } else {
        cairn_tcb_t *t = cairn__tcb(m->task);
        if (t)
            cairn__task_remove(t);
        m->stats.killed++;
        trace(CAIRN_EV_MIG_KILLED);
        resulting(CAIRN_MIG_KILLED);
    }
}

/* STATE went first: D is staged and frozen; the others are frozen next, then the commit. */
static void freeze_rest(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    uint32_t others = all_others();
    m->answered = 1u << m->dest;
    if ((m->answered & others) == others) {
        commit();
        return;
    }
    m->phase = PH_FREEZING_REST;
    m->tries = 0;
    freeze_silent();
}

static void source_rx(uint8_t src, const uint8_t *f, unsigned len)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    uint8_t kind = f[0];
    /* DESERIALIZED first: the answer the commit waits for. */
    if (kind == F_DESERIALIZED && m->phase == PH_TRANSFER && src == m->dest && len >= 4) {
        if (f[3] != MIG_DESER_OK) {
            if (m->dest_epoch)
                m->refused_epoch[m->dest] = m->dest_epoch;
            /* After a part with the commit, only D's failure in the life the parts name
             * lets T resume: D with no record of it may have committed before a reset. */
            if (m->fast && f[3] != MIG_DESER_FAILED)
                activated(m, false);
            else
                resume();
            return;
        }
        if (m->dest_epoch)
            freeze_rest();
        else
            commit();
    } else if (kind == F_FREEZE_ACK &&
               (m->phase == PH_FREEZING || m->phase == PH_FREEZING_REST) && len >= 4) {
        if (f[3]) {
            resume(); /* the participant is in another migration */
            return;
        }
        m->answered |= 1u << src;
        /* FREEZE went first: D's epoch, for the parts to name (the commit on staging). */
        if (src == m->dest && !m->dest_epoch && m->phase == PH_FREEZING)
            m->state_epoch = len >= 5 ? f[4] : 0;
        if (m->phase == PH_FREEZING)
            try_transfer();
        else if ((m->answered & all_others()) == all_others())
            commit();
    } else if (kind == F_STATE_ACK && m->phase == PH_TRANSFER && src == m->dest && len >= 4 &&
               f[3] > m->acked && f[3] < m->count) {
        /* Cumulative: the destination has parts 0 .. f[3] - 1. */
        m->acked = f[3];
        if (m->sent < m->acked)
            m->sent = m->acked;
        m->tries = 0;
        send_parts();
    } else if (kind == F_ACTIVATED && src == m->dest && len >= 4 &&
               (m->phase == PH_COMMITTING || (m->phase == PH_TRANSFER && m->fast))) {
        activated(m, f[3] != 0);
    } else if (kind == F_RESULT_ACK && m->phase == PH_RESULTING) {
        m->answered |= 1u << src;
        if ((m->answered & all_others()) == all_others())
            source_done();
    } else if (kind == F_QUERY) {
        if (m->phase == PH_RESULTING || m->phase == PH_DONE)
            result_to(src); /* nothing before there is an outcome */
    }
}

static void source_timer(void)
{
    uint32_t silent = all_others() & ~MIG.answered;
    switch (MIG.phase) {
    case PH_FREEZING:
        serialise();
        if (++MIG.tries > MIG.cfg.tries) {
            resume();
            return;
        }
        freeze_silent();
        try_transfer();
        break;
    case PH_FREEZING_REST:
        if (++MIG.tries > MIG.cfg.tries)
            resume();
        else
            freeze_silent();
        break;
    case PH_DRAINING:
        if (!cairn__rel_sent_by(MIG.task))
            commit();
        else if (++MIG.tries > MIG.cfg.tries)
            resume();
        break;
    case PH_TRANSFER:
        /* After a part with the commit: never gives up, as in PH_COMMITTING. */
        if (!MIG.fast && ++MIG.tries > MIG.cfg.tries) {
            resume();
        } else {
            MIG.sent = MIG.acked; /* again from the first part not acknowledged */
            send_parts();
        }
        break;
    case PH_COMMITTING:
        result_to(MIG.dest); /* never gives up: D alone knows whether T runs there */
        break;
    case PH_RESULTING:
        if (++MIG.tries > MIG.cfg.tries || !silent) {
            source_done();
            return;
        }
        for (uint8_t m = 0; m < 32; m++)
            if (silent & 1u << m)
                result_to(m);
        break;
    default:
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
    }
    MIG.stats.retransmits++;
}

/* ---- participants (the destination among them) ---------------------------------------------- */

static inline __attribute__((always_inline)) bool this_mig(const cairn_mig_state_t *m,
                                                          const uint8_t *f)
{
    return m->role == MIG_PARTICIPANT && f[1] == m->mig_src && f[2] == m->mig_ctr;
}

/* Migration (mig_src, mig_ctr) is one this module, its destination, left or refused without
 * committing it: it never joins it, nor an older one of that source's present life, again
 * (a source numbers its migrations in order and runs one at a time, so an older one is
 * decided). Per source, with the source's epoch as this module knows it, so that a source's
 * new life, whose counter starts again, is not refused. */
static void shut(cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr)
{
    if (mig_src >= CAIRN_NET_MODULES)
        return;
    uint8_t epoch = cairn_net.rel->peer_epoch[mig_src];
    /* The newest is kept: leaving an older one later (a stale migration that this module
     * was still in when it refused a newer one) must not let the newer one in again. */
    if (((m->shut_set >> mig_src) & 1u) && m->shut_epoch[mig_src] == epoch &&
        (uint8_t)(mig_ctr - m->shut_ctr[mig_src]) >= 128u)
        return;
    m->shut_ctr[mig_src] = mig_ctr;
    m->shut_epoch[mig_src] = epoch;
    m->shut_set |= 1u << mig_src;
}

static bool is_shut(const cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr)
{
    /* Recorded before this module knew the source's epoch (0): whatever it knows now, the
     * record may be of the present life. */
    uint8_t epoch = mig_src < CAIRN_NET_MODULES ? m->shut_epoch[mig_src] : 0;
    return mig_src < CAIRN_NET_MODULES && ((m->shut_set >> mig_src) & 1u) &&
           (!epoch || epoch == cairn_net.rel->peer_epoch[mig_src]) &&
           (uint8_t)(m->shut_ctr[mig_src] - mig_ctr) < MIG_SHUT_SPAN;
}

static void unfreeze(void)
{
    if (MIG.dest == cairn_net.address)
        shut(cairn_net.mig, MIG.mig_src, MIG.mig_ctr);
    if (MIG.staged || MIG.stage.state) /* a split state's block before its staging */
        cairn__mig_unstage();
    free_blob();
    MIG.phase = PH_SETTLED;
    timer_end();
    trace(CAIRN_EV_MIG_UNFROZEN);
    cairn__rel_resume(MIG.task);
}

static void apply(uint8_t src, uint8_t outcome)
{
    bool settled = MIG.phase == PH_SETTLED;
    bool dest = MIG.dest == cairn_net.address;
    if (!settled) {
        MIG.outcome = outcome;
        if (outcome == CAIRN_MIG_MOVED && !dest)
            cairn__mig_route(MIG.task, MIG.dest);
        unfreeze();
    }
    if (!dest || outcome != CAIRN_MIG_MOVED)
        frame(src, F_RESULT_ACK, -1, -1, -1);
}

/* This module takes part in migration (mig_src, mig_ctr) of task to dest: frozen. The
 * query timer is armed now, or (arm false) by the caller once it has answered. In line
 * where the first STATE part joins (the destination's way to the staging); out of line,
 * join, for FREEZE and QUERY. */
static inline __attribute__((always_inline)) void
join_in_line(cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr, cairn_task_id_t task,
             uint8_t dest, uint8_t source, bool arm_now)
{
    if (m->blob) /* none, usually */
        free_blob();
    stage_clear(m);
    m->role = MIG_PARTICIPANT;
    m->phase = PH_FROZEN;
    m->mig_src = mig_src;
    m->mig_ctr = mig_ctr;
    m->task = task;
    m->dest = dest;
    m->source = source;
    m->outcome = 0;
    m->parts = 0;
    m->answer = 0xFF;
    m->staged = false;
    m->stats.frozen++;
    trace_of(m, CAIRN_EV_MIG_FROZEN);
    m->query_unarmed = !arm_now;
    if (arm_now)
        arm(query_period(m));
}

static void join(uint8_t mig_src, uint8_t mig_ctr, cairn_task_id_t task, uint8_t dest, uint8_t source,
                 bool arm_now)
{
    join_in_line(cairn_net.mig, mig_src, mig_ctr, task, dest, source, arm_now);
}

/* The first STATE part of a migration this module has no record of: it is frozen by it,
 * as by FREEZE, when the part names this module's present epoch and the task is not live
 * here; else the part is refused (DESERIALIZED(failed)): it was sent before this module's
 * reset, or FREEZE went first and was lost. */
static void join_on_state(uint8_t src, const uint8_t *f)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    bool busy = m->role != MIG_NONE && !(m->phase == PH_DONE || m->phase == PH_SETTLED);
    cairn_task_id_t task = f[6];
    if (this_mig(m, f) || busy || f[3] != 0 || !f[5] || f[5] != cairn_net.rel->epoch ||
        (f[7] & MIG_PART_NO_JOIN) || task < 1 || task > CAIRN_MAX_TASKS ||
        (cairn__tcb_inline(task) && !cairn__remote_is(task)) || is_shut(m, f[1], f[2]))
        return;
    join_in_line(m, f[1], f[2], task, cairn_net.address, src, false); /* armed once answered */
}

/* A QUERY about a migration to this module that it has no record of (it was reset, or the
 * FREEZE never came). T live here says where it is; otherwise this module joins the
 * migration frozen and asks S in turn, which answers with the outcome or NOMIG. */
static void query_as_destination(uint8_t src, const uint8_t *f, bool busy)
{
    cairn_task_id_t task = f[3];
    if (task < 1 || task > CAIRN_MAX_TASKS)
        return;
    if (cairn__tcb(task) && !cairn__remote_is(task)) {
        send(src, (const uint8_t[]){F_RESULT, f[1], f[2], CAIRN_MIG_MOVED, task,
                                    cairn_net.address}, 6);
        return;
    }
    if (busy || is_shut(cairn_net.mig, f[1], f[2]))
        return; /* one migration at a time (the asker asks again), or one left already */
    join(f[1], f[2], task, f[4], f[1], true);
    frame(MIG.source, F_QUERY, MIG.task, MIG.dest, -1);
}

static void commit_here(cairn_mig_state_t *m, uint8_t src);

/* A STATE part of this module's migration, as its destination (frozen, no outcome yet): the
 * next part in order taken (cairn__mig_rx_place put its bytes in the blob, or found no room),
 * the last one staged; then the answer. */
static inline __attribute__((always_inline)) void
state_part(cairn_mig_state_t *m, uint8_t src, const uint8_t *f, unsigned len)
{
    uint8_t index = f[3], count = f[4];
    bool accepted = index == m->parts && m->answer == 0xFF;
    if (accepted) {
        /* cairn__mig_rx_place put the bytes in the blob, or found no room for them. */
        if (!m->placed) {
            m->answer = 0;
        } else {
            m->blob_len = (uint16_t)(m->blob_len + (len - MIG_PART_HEAD));
            /* The first of several: the state block taken apart while the next parts
             * come. */
            if (m->parts++ == 0 && count > 1 && !cairn__mig_split())
                m->answer = 0;
        }
        if (m->answer == 0xFF && m->parts == count) {
            m->answer = cairn__mig_stage() ? 1 : 0;
            if (m->answer) {
                m->phase = PH_STAGED;
                m->stats.staged++;
                trace_of(m, CAIRN_EV_MIG_STAGED);
                /* The source has nothing left to wait for: live now, ACTIVATED(yes). The
                 * part names this life (cairn__mig_rx_place and participant_rx refuse any
                 * other). */
                if (f[7] & MIG_PART_COMMIT) {
                    commit_here(m, src);
                    return;
                }
            } else {
                m->stats.stage_failed++;
                trace(CAIRN_EV_MIG_STAGE_FAILED);
            }
        }
    }
    /* Every part once the answer is known gets it; a part in order is acknowledged every
     * MIG_ACK_EVERY parts (the source's window is wider), a repeated or out-of-order one
     * at once with what this module has (cumulative), and changes nothing. */
    if (m->answer != 0xFF) {
        if (m->answer && (f[7] & MIG_PART_COMMIT)) {
            commit_here(m, src); /* staged on a part without it: the commit comes now */
            return;
        }
        frame1(src, F_DESERIALIZED, m->answer);
        /* The query timer, once the answer is on its way: the commit is a round trip
         * away, and the timer's cost goes in it. Not on the first part, where the next
         * one comes while this module still handles it: there it waits for the first
         * STATE_ACK (below), or for this module to go idle (cairn__mig_idle). */
        if (m->query_unarmed) {
            m->query_unarmed = false;
            arm(query_period(m));
        }
    } else if (!accepted || m->parts % MIG_ACK_EVERY == 0) {
        frame1(src, F_STATE_ACK, m->parts);
        /* A part the source's window has room behind (or a repeated one): the timer's
         * cost is hidden there better than on the first part or at an idle moment
         * between parts, where the next part waited for it. */
        if (m->query_unarmed) {
            m->query_unarmed = false;
            arm(query_period(m));
        }
    }
}

/* The commit, RESULT(MOVED) from the source, at a destination that has staged T: T made live
 * (the commit point), then answered. */
static void commit_here(cairn_mig_state_t *m, uint8_t src)
{
    /* Recorded first: a reset once T is live must not let the source resume it. */
    if (m->commits && m->mig_src < CAIRN_NET_MODULES)
        m->commits[m->mig_src] = cairn__mig_record_word(cairn_net.rel->epoch, m->mig_ctr);
    bool ok = cairn__mig_commit();
    m->outcome = CAIRN_MIG_MOVED;
    if (ok) {
        m->stats.committed++;
        trace_of(m, CAIRN_EV_MIG_COMMITTED);
    }
    free_blob();
    m->phase = PH_SETTLED;
    /* Committed on staging, the query timer was never armed: nothing to cancel, unless a
     * REQUEST waits for this migration's end. */
    bool armed = !m->query_unarmed;
    m->query_unarmed = false;
    if (armed || m->deferred_task)
        timer_end();
    frame1(src, F_ACTIVATED, ok);
    trace(CAIRN_EV_MIG_UNFROZEN);
    cairn__rel_resume(m->task);
    cairn__mig_spare(); /* for the next staging, now that this one is answered */
}

/* A STATE part that state_part does not take: for another life of this module, for a
 * migration it has no record of, or one it has settled. Every answer says what this module
 * knows for sure, since a part with MIG_PART_COMMIT may have made T live here before. */
static void state_elsewhere(cairn_mig_state_t *m, uint8_t src, const uint8_t *f, unsigned len,
                            bool dest_here)
{
    uint8_t epoch = cairn_net.rel->epoch;
    if (f[5] && f[5] != epoch) {
        /* Sent to an earlier life: it may have committed then (unless the record kept across
         * the reset proves it did not); staged never now. */
        uint8_t a[4] = {F_DESERIALIZED, f[1], f[2],
                        cairn__mig_record_never_committed(epoch, f[5], f[1], f[2])
                            ? MIG_DESER_FAILED
                            : MIG_DESER_NO_RECORD};
        send(src, a, 4);
        return;
    }
    if (this_mig(m, f) && dest_here) {
        if (!m->outcome) {
            state_part(m, src, f, len);
        } else if (m->outcome == CAIRN_MIG_MOVED) {
            /* Committed: every part of it is answered so, for a source whose ACTIVATED was
             * lost. */
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], cairn__tcb(m->task) != 0};
            send(src, a, 4);
        } else if (m->outcome == CAIRN_MIG_KILLED) {
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], 0};
            send(src, a, 4);
        } else {
            uint8_t a[4] = {F_DESERIALIZED, f[1], f[2], MIG_DESER_FAILED};
            send(src, a, 4);
        }
        return;
    }
    uint8_t answer = MIG_DESER_NO_RECORD;
    cairn_task_id_t task = f[6];
    if (f[5]) {
        if (task >= 1 && task <= CAIRN_MAX_TASKS && cairn__tcb(task) && !cairn__remote_is(task)) {
            /* T is live here, though frozen at the source: this life committed it, and a
             * later migration took the record's place. */
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], 1};
            send(src, a, 4);
            return;
        }
        /* Not in it in this life (busy, FREEZE missed, or left it): never will be. */
        shut(m, f[1], f[2]);
        answer = MIG_DESER_FAILED;
    }
    uint8_t a[4] = {F_DESERIALIZED, f[1], f[2], answer};
    send(src, a, 4);
}

static void participant_rx(uint8_t src, const uint8_t *f, unsigned len)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    uint8_t kind = f[0];
    bool dest_here = false;
    if (kind == F_FREEZE && len >= 5) {
        bool busy = m->role != MIG_NONE && !(m->phase == PH_DONE || m->phase == PH_SETTLED);
        if (this_mig(m, f)) {
            if (m->phase != PH_SETTLED)
                frame(src, F_FREEZE_ACK, 0, cairn_net.rel->epoch, -1);
            return; /* a FREEZE for a migration whose result is known is ignored */
        }
        if (busy || (f[4] == cairn_net.address && is_shut(m, f[1], f[2]))) {
            uint8_t a[4] = {F_FREEZE_ACK, f[1], f[2], 1};
            send(src, a, 4);
            return;
        }
        if (cairn__tcb(f[3]) && !cairn__remote_is(f[3]))
            return; /* the task lives here: this module is the source of another story */
        join(f[1], f[2], f[3], f[4], src, true);
        /* with this module's epoch, which the STATE parts then name (the commit on staging) */
        frame(src, F_FREEZE_ACK, 0, cairn_net.rel->epoch, -1);
        return;
    }
    dest_here = m->role == MIG_PARTICIPANT && m->dest == cairn_net.address;
    if (kind == F_STATE && len >= MIG_PART_HEAD) {
        state_elsewhere(m, src, f, len, dest_here);
        return;
    }
    if (kind == F_RESULT && len >= 6) {
        if (dest_here && this_mig(m, f) && f[3] == CAIRN_MIG_MOVED) {
            if (m->phase == PH_STAGED) {
                commit_here(m, src); /* taken by cairn__mig_rx first, usually */
            } else if (m->phase == PH_SETTLED && m->outcome == CAIRN_MIG_MOVED &&
                       cairn__tcb(m->task)) {
                frame1(src, F_ACTIVATED, 1); /* a repeated commit */
            } else {
                /* No staged copy: never stages this migration again. */
                m->outcome = CAIRN_MIG_KILLED;
                if (m->phase != PH_SETTLED)
                    unfreeze();
                frame1(src, F_ACTIVATED, 0);
            }
            return;
        }
        if (this_mig(m, f)) {
            apply(src, f[3]);
            return;
        }
        if (!dest_here && f[3] == CAIRN_MIG_MOVED && f[5] == cairn_net.address) {
            /* A commit for a migration this module has no record of (reset since). */
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], 0};
            send(src, a, 4);
        }
        return;
    }
    if (kind == F_NOMIG && this_mig(m, f) && src == m->source && dest_here && m->phase != PH_SETTLED) {
        /* S was reset before it committed: it never will; T, if anywhere, is there. The
         * outcome is recorded so that the others' QUERY gets it from here. */
        m->outcome = CAIRN_MIG_RESUMED;
        unfreeze();
        return;
    }
    if (kind == F_QUERY && this_mig(m, f)) {
        if (m->outcome)
            result_to(src);
    } else if (kind == F_QUERY && len >= 5 && f[4] == cairn_net.address) {
        /* Read here, not at the entry: only FREEZE and this QUERY need it, and every branch
         * before this one returns, so the phase is the one the frame found. */
        query_as_destination(src, f,
                             m->role != MIG_NONE && !(m->phase == PH_DONE || m->phase == PH_SETTLED));
    }
}

static void participant_timer(void)
{
    if (MIG.phase == PH_SETTLED) {
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
        return;
    }
    frame(MIG.source, F_QUERY, MIG.task, MIG.dest, -1);
    if (MIG.dest != cairn_net.address)
        frame(MIG.dest, F_QUERY, MIG.task, MIG.dest, -1);
    MIG.stats.retransmits++;
}

/* ---- the bus manager's hooks ------------------------------------------------------------------ */

static void mig_dispatch(uint8_t src, const uint8_t *f, unsigned len);
static cairn_ret_t take_or_forward(cairn_task_id_t task, uint8_t module, unsigned hops);

uint8_t *cairn__mig_rx_place(uint8_t src, const uint8_t *f, unsigned len)
{
    if (!on())
        return 0;
    cairn_mig_state_t *const m = cairn_net.mig;
    m->placed = false;
    if (src >= 32 || len <= MIG_PART_HEAD || len - MIG_PART_HEAD > MIG_PART || f[0] != F_STATE)
        return 0;
    uint8_t index = f[3];
    if (index == 0) /* only a first part joins (join_on_state refuses the others): not per part */
        join_on_state(src, f);
    if (!this_mig(m, f) || m->dest != cairn_net.address || m->outcome || index != m->parts ||
        m->answer != 0xFF || (f[5] && f[5] != cairn_net.rel->epoch))
        return 0;
    if (index == 0) {
        if (m->blob) /* a join left none */
            free_blob();
        /* Room for every part the source announced, within the longest task. */
        unsigned room = (unsigned)f[4] * MIG_PART;
        m->blob_cap = (uint16_t)(room < CAIRN_MIG_STATE_MAX ? room : CAIRN_MIG_STATE_MAX);
        /* The first part goes in the STATE frame buffer whatever the count: the later ones
         * go where cairn__mig_split puts them. */
        m->blob = f[4] ? inline_blob() : 0;
        if (f[4] > 1 && m->blob_len + (len - MIG_PART_HEAD) <= m->blob_cap) {
            /* Of several: read here, the task's block's share straight into the block. */
            cairn__mig_split_rx(len - MIG_PART_HEAD);
            m->placed = true;
            return 0;
        }
    } else if (m->stage.state_at) {
        uint8_t *at = cairn__mig_split_place(m, len - MIG_PART_HEAD);
        m->placed = at != 0;
        return at;
    }
    /* The STATE frame buffer holds only a first part (a later one finds the blob split, or a
     * blob of blob_cap, or the answer given): blob_cap bounds both. */
    if (!m->blob || m->blob_len + (len - MIG_PART_HEAD) > m->blob_cap)
        return 0;
    m->placed = true;
    return m->blob + m->blob_len;
}

void cairn__mig_rx(uint8_t src, const uint8_t *f, unsigned len)
{
    if (!on())
        return;
    cairn_mig_state_t *const m = cairn_net.mig;
    if (!len || src >= 32) {
        m->stats.frames_bad++;
        return;
    }
    m->stats.frames_rx++;
    /* The commit first, as participant_rx would take it (a participant is never the
     * source of the migration it is in): it is on the latency's path, the dispatch's
     * tests of the other kinds before it are not. */
    if (f[0] == F_RESULT && len >= 6 && m->phase == PH_STAGED && this_mig(m, f) &&
        f[3] == CAIRN_MIG_MOVED && m->dest == cairn_net.address) {
        commit_here(m, src);
        return;
    }
    /* So is a STATE part placed in the blob: cairn__mig_rx_place made participant_rx's
     * checks of it (this migration, this module its destination, no outcome, the next
     * part in order, no answer yet). */
    if (m->placed && f[0] == F_STATE) {
        state_part(m, src, f, len);
        m->placed = false;
        return;
    }
    mig_dispatch(src, f, len);
    m->placed = false; /* it belonged to this frame */
}

static void mig_dispatch(uint8_t src, const uint8_t *f, unsigned len)
{
    if (f[0] == F_REQUEST) {
        if (len >= 3 && f[1] >= 1 && f[1] <= CAIRN_MAX_TASKS && f[2] < cairn_bus_modules())
            (void)take_or_forward(f[1], f[2], len >= 4 ? f[3] : 1u);
        return;
    }
    cairn_mig_state_t *const m = cairn_net.mig;
    if (len < 3 || f[0] > F_NOMIG) {
        m->stats.frames_bad++;
        return;
    }
    bool mine = f[1] == cairn_net.address;
    if (mine && m->role == MIG_SOURCE && f[2] == m->mig_ctr) {
        source_rx(src, f, len);
    } else if (mine && f[0] == F_QUERY) {
        uint8_t a[3] = {F_NOMIG, f[1], f[2]}; /* no record of it: reset since */
        send(src, a, 3);
    } else if (!mine) {
        participant_rx(src, f, len);
    }
}

void cairn__mig_timer(void)
{
    if (!on())
        return;
    bool busy = MIG.role != MIG_NONE && !(MIG.phase == PH_DONE || MIG.phase == PH_SETTLED);
    if (MIG.deferred_task && !busy) {
        cairn_task_id_t task = MIG.deferred_task;
        uint32_t taken = MIG.stats.requests;
        MIG.deferred_task = 0;
        if (MIG.prefrozen == task && !cairn__tcb(task))
            MIG.prefrozen = 0; /* killed while it waited */
        (void)take_or_forward(task, MIG.deferred_dest, MIG.deferred_hops);
        if (MIG.deferred_task || MIG.stats.requests != taken)
            return; /* deferred again, or taken: the timer is armed for what follows */
    }
    if (MIG.role == MIG_SOURCE)
        source_timer();
    else if (MIG.role == MIG_PARTICIPANT)
        participant_timer();
    else
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
}

/* The bus manager's idle hook, interrupts masked, about to sleep: a destination that joined
 * on a STATE part arms its query timer only now, if it is still frozen. A prompt commit
 * (or the next part) comes while the module is still busy with the last one, so it never
 * pays for the timer, nor for the sleep arithmetic a running timer brings; and the query is
 * for a silence, which a module waiting for a frame only meets asleep (docs/migration.md,
 * "Timers"). The set changes the timer stamp the idle path re-checks: it chooses again. */
void cairn__mig_idle(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (!m || !m->query_unarmed)
        return;
    m->query_unarmed = false;
    if (m->role == MIG_PARTICIPANT && (m->phase == PH_FROZEN || m->phase == PH_STAGED))
        arm(query_period(m));
}

void cairn__mig_drained(void)
{
    if (on() && MIG.role == MIG_SOURCE && MIG.phase == PH_DRAINING && !cairn__rel_sent_by(MIG.task))
        commit();
}

bool cairn__mig_holds(cairn_task_id_t task)
{
    return on() && MIG.role == MIG_PARTICIPANT && MIG.task == task &&
           (MIG.phase == PH_FROZEN || MIG.phase == PH_STAGED);
}

bool cairn__mig_refuse(cairn_task_id_t task, uint8_t src)
{
    if (!on() || MIG.role != MIG_SOURCE || MIG.task != task)
        return false;
    if (MIG.phase >= PH_FREEZING && MIG.phase <= PH_COMMITTING) {
        frame(src, F_FREEZE, MIG.task, MIG.dest, -1); /* the sender holds it from now on */
        return true;
    }
    if (MIG.outcome == CAIRN_MIG_MOVED) {
        result_to(src); /* redirects the sender */
        return true;
    }
    return false;
}

/* ---- the API ----------------------------------------------------------------------------------- */

cairn_ret_t cairn_migrate_start(const cairn_migrate_config_t *cfg)
{
    if (!cairn_k.net)
        return CAIRN_ENOROUTE;
    if (!cfg || !cfg->retransmit_ticks || !cfg->tries || (cfg->count && !cfg->tasks))
        return CAIRN_EINVAL;
    cairn_ret_t r = cairn_net_reliable_start(cfg->retransmit_ticks);
    if (r != CAIRN_OK)
        return r;
    if (!cairn_net.mig) {
        cairn_mig_state_t *m = cairn_malloc(sizeof *m);
        if (!m)
            return CAIRN_ENOMEM;
        cairn_heap_set_owner(m, CAIRN_TASK_NONE);
        __builtin_memset(m, 0, sizeof *m);
        cairn_net.mig = m;
    }
    MIG.cfg = *cfg;
    cairn__mig_spare();
    MIG.others = others_of(cairn_bus_modules(), cairn_net.address);
    MIG.commits = cairn__mig_record_open(cairn_net.rel->epoch);
    return CAIRN_OK;
}

/* The migrator's state changes in the bus manager only (it preempts every task): a
 * REQUEST made by a task reaches it as a message (payload: task, module). */
cairn_ret_t cairn_migrate(cairn_task_id_t task, uint8_t module)
{
    if (!on() || task < 1 || task > CAIRN_MAX_TASKS || module >= cairn_bus_modules())
        return CAIRN_EINVAL;
    uint8_t *req = cairn_malloc(2);
    if (!req)
        return CAIRN_ENOMEM;
    req[0] = task;
    req[1] = module;
    return cairn_post(CAIRN_TASK_NET, CAIRN_MIG_PORT_REQUEST, req, 2);
}

cairn_ret_t cairn__mig_request_msg(const cairn_msg_t *msg)
{
    if (!on() || msg->len != 2)
        return CAIRN_EINVAL;
    const uint8_t *req = msg->payload;
    return take_or_forward(req[0], req[1], 0);
}

/* T's own module takes the REQUEST; any other sends it on to the module its routes name for
 * T. `hops`: how often it crossed the bus to get here (a fourth byte once forwarded; the
 * first send keeps three). Routes that disagree (a module restarted with its first routes
 * after T moved away) make a loop: the REQUEST crossed the bus for ever between two bus
 * managers that each named the other, which kept the slower one busy until its stack ran
 * into the kernel's state. A REQUEST that would reach more modules than there are has gone
 * round such a loop: refused. */
static cairn_ret_t take_or_forward(cairn_task_id_t task, uint8_t module, unsigned hops)
{
    if (cairn__tcb(task) && !cairn__remote_is(task)) {
        request(task, module, hops);
        return CAIRN_OK;
    }
    int where = cairn_task_module(task);
    if (where < 0) {
        MIG.stats.refused++; /* a task on no module: the only answer its asker can read */
        return CAIRN_EINVAL;
    }
    if (hops + 1u >= cairn_bus_modules()) {
        MIG.stats.refused++;
        return CAIRN_EINVAL;
    }
    const uint8_t f[4] = {F_REQUEST, task, module, (uint8_t)(hops + 1u)};
    send((uint8_t)where, f, hops ? 4u : 3u);
    return CAIRN_OK;
}

cairn_ret_t cairn_migrate_state(void *block, size_t len)
{
    if (!on() || !MIG.in_serialize || cairn_current_task() != MIG.task || len > 0xFFFFu)
        return CAIRN_EINVAL;
    MIG.handed = block;
    MIG.handed_len = (uint16_t)len;
    return CAIRN_OK;
}

void cairn_migrate_stats(cairn_migrate_stats_t *st)
{
    if (!on()) {
        __builtin_memset(st, 0, sizeof *st);
        return;
    }
    *st = MIG.stats;
    st->busy = (MIG.role != MIG_NONE && !(MIG.phase == PH_DONE || MIG.phase == PH_SETTLED)) ||
               MIG.deferred_task;
}
