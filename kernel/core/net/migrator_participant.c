/*
 * The steps of a module that takes part in another module's migration, the destination among
 * them, that its frames and its timer share (migrator_rx.c, migrator_timer.c): joining it
 * frozen, the destination's commit point, leaving it (unfrozen), and the refusal record of
 * the migrations a destination left uncommitted.
 */
#include "migrator_internal.h"

/* shut() of a source module that has a record (migrator_internal.h). */
void cairn__mig_shut_record(cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr)
{
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

bool cairn__mig_is_shut(const cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr)
{
    /* Recorded before this module knew the source's epoch (0): whatever it knows now, the
     * record may be of the present life. */
    uint8_t epoch = mig_src < CAIRN_NET_MODULES ? m->shut_epoch[mig_src] : 0;
    return mig_src < CAIRN_NET_MODULES && ((m->shut_set >> mig_src) & 1u) &&
           (!epoch || epoch == cairn_net.rel->peer_epoch[mig_src]) &&
           (uint8_t)(m->shut_ctr[mig_src] - mig_ctr) < MIG_SHUT_SPAN;
}

void cairn__mig_unfreeze(void)
{
    if (MIG.dest == cairn_net.address)
        shut(cairn_net.mig, MIG.mig_src, MIG.mig_ctr);
    if (MIG.staged || MIG.stage.state) /* a split state's block before its staging */
        cairn__mig_unstage();
    cairn__mig_free_blob();
    MIG.phase = PH_SETTLED;
    cairn__mig_timer_end();
    cairn__mig_trace(CAIRN_EV_MIG_UNFROZEN);
    cairn__rel_resume(MIG.task);
}

void cairn__mig_join(uint8_t mig_src, uint8_t mig_ctr, cairn_task_id_t task, uint8_t dest,
                     uint8_t source)
{
    join_in_line(cairn_net.mig, mig_src, mig_ctr, task, dest, source, true);
}

/* The commit, RESULT(MOVED) from the source, at a destination that has staged T: T made live
 * (the commit point), then answered. */
void cairn__mig_commit_here(cairn_mig_state_t *m, uint8_t src)
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
    cairn__mig_free_blob();
    m->phase = PH_SETTLED;
    /* Committed on staging, the query timer was never armed: nothing to cancel, unless a
     * REQUEST waits for this migration's end. */
    bool armed = !m->query_unarmed;
    m->query_unarmed = false;
    if (armed || m->deferred_task)
        cairn__mig_timer_end();
    cairn__mig_answer(src, F_ACTIVATED, ok);
    cairn__mig_trace(CAIRN_EV_MIG_UNFROZEN);
    cairn__rel_resume(m->task);
    cairn__mig_spare(); /* for the next staging, now that this one is answered */
}
