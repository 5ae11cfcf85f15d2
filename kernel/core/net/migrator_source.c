/*
 * The source's side of a migration (docs/migration.md, "State machines"): a REQUEST taken,
 * deferred or sent on; the task frozen and serialised; the STATE parts sent (go-back-N); the
 * commit once every module is frozen and the task's messages drained; the task detached,
 * resumed or killed, and the RESULT that tells the others. What it does on a frame is in
 * migrator_rx.c, on its timer in migrator_timer.c.
 */
#include "migrator_internal.h"
#include "serialize.h"

/* Here, with most of its callers: gcc sees that it stores to nothing of theirs, so they load
 * nothing again after it. */
#if CAIRN_TRACE_ENABLED
void cairn__mig_trace(uint8_t ev)
{
    CAIRN_TRACE(ev, MIG.task, (uint32_t)MIG.mig_src << 8 | MIG.mig_ctr);
}
#endif

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

static void freeze_here(cairn_mig_state_t *m, cairn_tcb_t *t)
{
    /* T's flags from before a deferred REQUEST stopped it, if one did. */
    /* T's flag now, or the one a deferred REQUEST cleared (T's INIT, ending meanwhile, set it
     * again: both count). */
    m->saved_flags = (uint8_t)((t->flags & TCB_READY) | (m->prefrozen == t->id ? m->prefrozen_flags : 0u));
    if (m->prefrozen == t->id)
        m->prefrozen = 0;
    t->flags &= (uint8_t)~TCB_READY; /* its queued messages wait; new ones queue behind */
    m->stats.frozen++;
    cairn__mig_trace(CAIRN_EV_MIG_FROZEN);
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
void cairn__mig_serialise_tcb(cairn_mig_state_t *m, cairn_tcb_t *t)
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
    if (ok && m->fast)
        m->commit_out = true;
    return ok;
}

/* STATE part `index` to the controller at once when it is idle and nothing is buffered, as
 * migrator_send.c writes a small frame; false (nothing sent) otherwise. */
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
        cairn__mig_part_put(cairn_net.mig, index, module, seq);
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
 * cairn__mig_commit_or_drain() checks it: T is frozen, so it stays drained) and T not killed here. D then makes
 * T live as soon as it has staged it, and the DESERIALIZED → RESULT(MOVED) round trip is
 * gone. From the first such part written to the controller on S may no longer resume T on
 * a timeout (m->commit_out). */
static bool commit_on_staging(cairn_mig_state_t *m)
{
    if (!m->state_epoch || ((m->answered | 1u << m->dest) & m->others) != m->others ||
        !cairn__tcb_inline(m->task))
        return false;
    cairn_rel_state_t *const rel = cairn_net.rel;
    return !(rel->stats.pending && cairn__rel_sent_by(m->task));
}

/* Go-back-N: the parts from `sent` up to MIG_WINDOW beyond the acknowledged ones. A token
 * the bus manager cannot queue loses its part, which the timer sends again. */
void cairn__mig_send_parts(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (!m->fast && m->sent < m->count && m->count <= m->acked + MIG_WINDOW)
        m->fast = commit_on_staging(m); /* the last part goes in this window */
    while (MIG.sent < MIG.count && MIG.sent < MIG.acked + MIG_WINDOW) {
        uint8_t i = MIG.sent++;
        /* The controller takes one frame at a time: the first part may go at once, the
         * others wait as tokens and are built when the bus takes them. */
        if (!tx_part_now(i))
            (void)cairn__mig_submit(MIG.dest, (uint8_t)(MIG_TOKEN_PART | i));
    }
}

static void resulting(uint8_t outcome)
{
    MIG.outcome = outcome;
    MIG.stats.last_outcome = outcome;
    MIG.phase = PH_RESULTING;
    MIG.tries = 0;
    cairn__mig_send(CAIRN_NET_BROADCAST, (const uint8_t[]){F_RESULT, MIG.mig_src, MIG.mig_ctr, outcome,
                                                 MIG.task, MIG.dest}, 6);
    cairn__mig_arm(MIG.cfg.retransmit_ticks);
    /* The destination answered already (ACTIVATED) and no one else takes part (a device of
     * two modules): no RESULT_ACK will come, the migration has ended. */
    if ((MIG.answered & all_others()) == all_others())
        cairn__mig_source_done();
}

/* T was killed here while it was being moved, before the commit went: the kill wins. No
 * commit (a copy on D would bring T back), no resumption (T's timers would be set for no
 * task): the others free and unfreeze on RESULT(KILLED), as after ACTIVATED(no). Out of
 * line: the commit's path pays only for the look-up. */
__attribute__((noinline, cold)) static void killed_here(void)
{
    cairn_net.rel->draining = false;
    cairn__mig_free_blob();
    MIG.stats.killed++;
    cairn__mig_trace(CAIRN_EV_MIG_KILLED);
    MIG.answered = 0;
    resulting(CAIRN_MIG_KILLED);
}

void cairn__mig_resume(void)
{
    cairn_net.rel->draining = false;
    cairn_tcb_t *t = cairn__tcb(MIG.task);
    if (!t) {
        killed_here();
        return;
    }
    t->flags |= MIG.saved_flags;
    cairn__mig_restore_timers();
    cairn__mig_free_blob();
    MIG.stats.resumed++;
    cairn__mig_trace(CAIRN_EV_MIG_RESUMED);
    MIG.answered = 0;
    resulting(CAIRN_MIG_RESUMED);
}

/* The STATE goes when T is serialised and, unless it goes first, every module is frozen. */
void cairn__mig_try_transfer(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->phase != PH_FREEZING || !m->serialised ||
        (!m->dest_epoch && (m->answered & m->others) != m->others))
        return;
    if (!m->blob) {
        cairn__mig_resume();
        return;
    }
    m->phase = PH_TRANSFER;
    m->acked = 0;
    m->sent = 0;
    m->count = parts();
    m->tries = 0;
    cairn__mig_send_parts();
}

void cairn__mig_source_done(void)
{
    MIG.phase = PH_DONE;
    cairn__mig_timer_end();
    cairn__mig_trace(CAIRN_EV_MIG_UNFROZEN);
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
    bool busy = in_migration(cairn_net.mig);
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
        cairn__mig_arm(MIG.cfg.retransmit_ticks / 4u);
        return;
    }
    if (MIG.deferred_task == task) {
        MIG.deferred_task = 0; /* a REQUEST for T that waited: this later one overtakes it */
        MIG.stats.refused++;
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
    cairn__mig_trace(CAIRN_EV_MIG_REQUEST);
    freeze_here(m, t);
    /* With D's epoch known, the STATE goes first and freezes D; D joins on it only in that
     * epoch, so a STATE from before D's reset is refused. Without it, FREEZE first. */
    uint8_t epoch = dest < CAIRN_NET_MODULES ? cairn_net.rel->peer_epoch[dest] : 0;
    if (epoch && epoch == m->refused_epoch[dest])
        epoch = 0;
    m->dest_epoch = epoch;
    m->state_epoch = epoch;
    m->fast = false;
    m->commit_out = false;
    if (!epoch)
        cairn__mig_send(CAIRN_NET_BROADCAST, (const uint8_t[]){F_FREEZE, m->mig_src, m->mig_ctr, task, dest}, 5);
    cairn__mig_serialise_tcb(m, t);
    cairn__mig_try_transfer();
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
        cairn__mig_arm(MIG.cfg.retransmit_ticks);
}

/* FREEZE to every module that has not answered (D has, with its DESERIALIZED(ok)). */
void cairn__mig_freeze_silent(void)
{
    uint32_t silent = all_others() & ~MIG.answered;
    for (uint8_t m = 0; m < 32; m++)
        if (silent & 1u << m)
            cairn__mig_frame_to(m, F_FREEZE, MIG.task, MIG.dest);
}

/* The drain rule: T runs at D only after every DATA message it sent from here has been
 * acknowledged. Its receivers number messages per sending module, so one still kept here
 * would be taken after those T sends from D, out of order. T is frozen: no new ones come,
 * and the kept ones drain as their DACKs arrive (cairn__mig_drained), or the migration
 * gives up after its tries (migrator_timer.c) and T resumes here. */
void cairn__mig_commit_or_drain(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    /* A kill after a part with the commit went is too late, as after the commit itself. */
    if (!m->commit_out && !cairn__tcb_inline(m->task)) {
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
    /* The commit, RESULT(MOVED), built here rather than through cairn__mig_frame_to(): it is
     * on the latency's path, between the DESERIALIZED that came and the frame that goes. */
    const uint8_t f[6] = {F_RESULT, m->mig_src, m->mig_ctr, CAIRN_MIG_MOVED, m->task, m->dest};
    cairn__mig_send(m->dest, f, sizeof f);
}

/* D's answer to the commit (RESULT(MOVED), or a part with MIG_PART_COMMIT): T live there,
 * or D reset since it may have run T there (KILLED). */
void cairn__mig_activated(cairn_mig_state_t *m, bool live)
{
    cairn__mig_free_blob();
    m->answered = 1u << m->dest;
    if (live) {
        cairn__mig_detach(m->task, m->dest, m->queued);
        m->stats.moved++;
        cairn__mig_trace(CAIRN_EV_MIG_FREED);
        resulting(CAIRN_MIG_MOVED);
    } else {
        cairn_tcb_t *t = cairn__tcb(m->task);
        if (t)
            cairn__task_remove(t);
        m->stats.killed++;
        cairn__mig_trace(CAIRN_EV_MIG_KILLED);
        resulting(CAIRN_MIG_KILLED);
    }
}

/* T's own module takes the REQUEST; any other sends it on to the module its routes name for
 * T. `hops`: how often it crossed the bus to get here (a fourth byte once forwarded; the
 * first send keeps three). Routes that disagree (a module restarted with its first routes
 * after T moved away) make a loop: the REQUEST crossed the bus for ever between two bus
 * managers that each named the other, which kept the slower one busy until its stack ran
 * into the kernel's state. A REQUEST that would reach more modules than there are has gone
 * round such a loop: refused. */
cairn_ret_t cairn__mig_take_or_forward(cairn_task_id_t task, uint8_t module, unsigned hops)
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
    cairn__mig_send((uint8_t)where, f, hops ? 4u : 3u);
    return CAIRN_OK;
}
