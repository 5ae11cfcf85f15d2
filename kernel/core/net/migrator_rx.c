/*
 * The task migrator's frames in: the bus manager's receive hooks (cairn__mig_rx_place, then
 * cairn__mig_rx) and what each role does with each frame (the source's answers; a
 * participant's FREEZE, STATE parts, RESULT, NOMIG, QUERY). One file because the hooks take
 * every role's handling in line: the answers on a migration's path pay for no call between
 * the frame's arrival and what it changes.
 */
#include "migrator_internal.h"

/* STATE went first: D is staged and frozen; the others are frozen next, then the commit. */
static void freeze_rest(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    uint32_t others = all_others();
    m->answered = 1u << m->dest;
    if ((m->answered & others) == others) {
        cairn__mig_commit_or_drain();
        return;
    }
    m->phase = PH_FREEZING_REST;
    m->tries = 0;
    cairn__mig_freeze_silent();
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
            if (m->commit_out && f[3] != MIG_DESER_FAILED)
                cairn__mig_activated(m, false);
            else
                cairn__mig_resume();
            return;
        }
        if (m->dest_epoch)
            freeze_rest();
        else
            cairn__mig_commit_or_drain();
    } else if (kind == F_FREEZE_ACK &&
               (m->phase == PH_FREEZING || m->phase == PH_FREEZING_REST) && len >= 4) {
        if (f[3]) {
            cairn__mig_resume(); /* the participant is in another migration */
            return;
        }
        m->answered |= 1u << src;
        /* FREEZE went first: D's epoch, for the parts to name (the commit on staging). */
        if (src == m->dest && !m->dest_epoch && m->phase == PH_FREEZING)
            m->state_epoch = len >= 5 ? f[4] : 0;
        if (m->phase == PH_FREEZING)
            cairn__mig_try_transfer();
        else if ((m->answered & all_others()) == all_others())
            cairn__mig_commit_or_drain();
    } else if (kind == F_STATE_ACK && m->phase == PH_TRANSFER && src == m->dest && len >= 4 &&
               f[3] > m->acked && f[3] < m->count) {
        /* Cumulative: the destination has parts 0 .. f[3] - 1. */
        m->acked = f[3];
        if (m->sent < m->acked)
            m->sent = m->acked;
        m->tries = 0;
        cairn__mig_send_parts();
    } else if (kind == F_ACTIVATED && src == m->dest && len >= 4 &&
               (m->phase == PH_COMMITTING || (m->phase == PH_TRANSFER && m->commit_out))) {
        cairn__mig_activated(m, f[3] != 0);
    } else if (kind == F_RESULT_ACK && m->phase == PH_RESULTING) {
        m->answered |= 1u << src;
        if ((m->answered & all_others()) == all_others())
            cairn__mig_source_done();
    } else if (kind == F_QUERY) {
        if (m->phase == PH_RESULTING || m->phase == PH_DONE)
            cairn__mig_result_to(src); /* nothing before there is an outcome */
    }
}

static void apply(uint8_t src, uint8_t outcome)
{
    bool settled = MIG.phase == PH_SETTLED;
    bool dest = MIG.dest == cairn_net.address;
    if (!settled) {
        MIG.outcome = outcome;
        if (outcome == CAIRN_MIG_MOVED && !dest)
            cairn__mig_route(MIG.task, MIG.dest);
        cairn__mig_unfreeze();
    }
    if (!dest || outcome != CAIRN_MIG_MOVED)
        cairn__mig_frame_to(src, F_RESULT_ACK, -1, -1);
}

/* The first STATE part of a migration this module has no record of: it is frozen by it,
 * as by FREEZE, when the part names this module's present epoch and the task is not live
 * here; else the part is refused (DESERIALIZED(failed)): it was sent before this module's
 * reset, or FREEZE went first and was lost. */
static void join_on_state(uint8_t src, const uint8_t *f)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    bool busy = in_migration(m);
    cairn_task_id_t task = f[6];
    if (this_mig(m, f) || busy || f[3] != 0 || !f[5] || f[5] != cairn_net.rel->epoch ||
        (f[7] & MIG_PART_NO_JOIN) || task < 1 || task > CAIRN_MAX_TASKS ||
        (cairn__tcb_inline(task) && !cairn__remote_is(task)) || cairn__mig_is_shut(m, f[1], f[2]))
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
        cairn__mig_send(src, (const uint8_t[]){F_RESULT, f[1], f[2], CAIRN_MIG_MOVED, task,
                                    cairn_net.address}, 6);
        return;
    }
    if (busy || cairn__mig_is_shut(cairn_net.mig, f[1], f[2]))
        return; /* one migration at a time (the asker asks again), or one left already */
    cairn__mig_join(f[1], f[2], task, f[4], f[1]);
    cairn__mig_frame_to(MIG.source, F_QUERY, MIG.task, MIG.dest);
}

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
                    cairn__mig_commit_here(m, src);
                    return;
                }
            } else {
                m->stats.stage_failed++;
                cairn__mig_trace(CAIRN_EV_MIG_STAGE_FAILED);
            }
        }
    }
    /* Every part once the answer is known gets it; a part in order is acknowledged every
     * MIG_ACK_EVERY parts (the source's window is wider), a repeated or out-of-order one
     * at once with what this module has (cumulative), and changes nothing. */
    if (m->answer != 0xFF) {
        if (m->answer && (f[7] & MIG_PART_COMMIT)) {
            cairn__mig_commit_here(m, src); /* staged on a part without it: the commit comes now */
            return;
        }
        cairn__mig_answer(src, F_DESERIALIZED, m->answer);
        /* The query timer, once the answer is on its way: the commit is a round trip
         * away, and the timer's cost goes in it. Not on the first part, where the next
         * one comes while this module still handles it: there it waits for the first
         * STATE_ACK (below), or for this module to go idle (cairn__mig_idle). */
        if (m->query_unarmed) {
            m->query_unarmed = false;
            cairn__mig_arm(query_period(m));
        }
    } else if (!accepted || m->parts % MIG_ACK_EVERY == 0) {
        cairn__mig_answer(src, F_STATE_ACK, m->parts);
        /* A part the source's window has room behind (or a repeated one): the timer's
         * cost is hidden there better than on the first part or at an idle moment
         * between parts, where the next part waited for it. */
        if (m->query_unarmed) {
            m->query_unarmed = false;
            cairn__mig_arm(query_period(m));
        }
    }
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
        cairn__mig_send(src, a, 4);
        return;
    }
    /* The task named too: a source reset since numbers its migrations from 1 again. */
    if (this_mig(m, f) && dest_here && f[6] == m->task) {
        if (!m->outcome) {
            state_part(m, src, f, len);
        } else if (m->outcome == CAIRN_MIG_MOVED) {
            /* Committed: every part of it is answered so, for a source whose ACTIVATED was
             * lost. */
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], cairn__tcb(m->task) != 0};
            cairn__mig_send(src, a, 4);
        } else if (m->outcome == CAIRN_MIG_KILLED) {
            uint8_t a[4] = {F_ACTIVATED, f[1], f[2], 0};
            cairn__mig_send(src, a, 4);
        } else {
            uint8_t a[4] = {F_DESERIALIZED, f[1], f[2], MIG_DESER_FAILED};
            cairn__mig_send(src, a, 4);
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
            cairn__mig_send(src, a, 4);
            return;
        }
        /* Not in it in this life (busy, FREEZE missed, or left it): never will be. */
        shut(m, f[1], f[2]);
        answer = MIG_DESER_FAILED;
    }
    uint8_t a[4] = {F_DESERIALIZED, f[1], f[2], answer};
    cairn__mig_send(src, a, 4);
}

static void participant_rx(uint8_t src, const uint8_t *f, unsigned len)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    uint8_t kind = f[0];
    bool dest_here = false;
    if (kind == F_FREEZE && len >= 5) {
        bool busy = in_migration(m);
        if (this_mig(m, f)) {
            if (m->phase != PH_SETTLED)
                cairn__mig_frame_to(src, F_FREEZE_ACK, 0, cairn_net.rel->epoch);
            return; /* a FREEZE for a migration whose result is known is ignored */
        }
        if (busy || (f[4] == cairn_net.address && cairn__mig_is_shut(m, f[1], f[2]))) {
            uint8_t a[4] = {F_FREEZE_ACK, f[1], f[2], 1};
            cairn__mig_send(src, a, 4);
            return;
        }
        if (cairn__tcb(f[3]) && !cairn__remote_is(f[3]))
            return; /* the task lives here: this module is the source of another story */
        cairn__mig_join(f[1], f[2], f[3], f[4], src);
        /* with this module's epoch, which the STATE parts then name (the commit on staging) */
        cairn__mig_frame_to(src, F_FREEZE_ACK, 0, cairn_net.rel->epoch);
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
                cairn__mig_commit_here(m, src); /* taken by cairn__mig_rx first, usually */
            } else if (m->phase == PH_SETTLED && m->outcome == CAIRN_MIG_MOVED &&
                       cairn__tcb(m->task)) {
                cairn__mig_answer(src, F_ACTIVATED, 1); /* a repeated commit */
            } else {
                /* No staged copy: never stages this migration again. */
                m->outcome = CAIRN_MIG_KILLED;
                if (m->phase != PH_SETTLED)
                    cairn__mig_unfreeze();
                cairn__mig_answer(src, F_ACTIVATED, 0);
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
            cairn__mig_send(src, a, 4);
        }
        return;
    }
    if (kind == F_NOMIG && this_mig(m, f) && src == m->source && dest_here && m->phase != PH_SETTLED) {
        /* S was reset before it committed: it never will; T, if anywhere, is there. The
         * outcome is recorded so that the others' QUERY gets it from here. */
        m->outcome = CAIRN_MIG_RESUMED;
        cairn__mig_unfreeze();
        return;
    }
    if (kind == F_QUERY && this_mig(m, f)) {
        if (m->outcome)
            cairn__mig_result_to(src);
    } else if (kind == F_QUERY && len >= 5 && f[4] == cairn_net.address) {
        /* Read here, not at the entry: only FREEZE and this QUERY need it, and every branch
         * before this one returns, so the phase is the one the frame found. */
        query_as_destination(src, f, in_migration(m));
    }
}

static void mig_dispatch(uint8_t src, const uint8_t *f, unsigned len);

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
            cairn__mig_free_blob();
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
        cairn__mig_commit_here(m, src);
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
            (void)cairn__mig_take_or_forward(f[1], f[2], len >= 4 ? f[3] : 1u);
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
        cairn__mig_send(src, a, 3);
    } else if (!mine) {
        participant_rx(src, f, len);
    }
}
