/*
 * The task migrator's timer (the bus manager's timer 2): armed for retransmissions and
 * queries, stopped at a migration's end, and what each role does when it fires: the source
 * sends again or gives up, a participant asks where the task went; a deferred REQUEST is taken
 * at its tick. The idle hook arms a destination's query timer late (docs/migration.md,
 * "Timers").
 */
#include "migrator_internal.h"

void cairn__mig_arm(uint32_t ticks)
{
    (void)cairn_timer_set(CAIRN_TASK_NET, CAIRN_MIG_TIMER, ticks ? ticks : 1u, true);
}

/* This module's migration has ended: the timer stops, unless a REQUEST waits for that end,
 * which it takes once, at the next tick (a periodic tick would keep a slow module in the
 * timer's interrupt for ever). */
void cairn__mig_timer_end(void)
{
    if (MIG.deferred_task)
        (void)cairn_timer_set(CAIRN_TASK_NET, CAIRN_MIG_TIMER, 1u, false);
    else
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
}

static void serialise(void)
{
    cairn__mig_serialise_tcb(cairn_net.mig, cairn__tcb(MIG.task));
}

static void source_timer(void)
{
    uint32_t silent = all_others() & ~MIG.answered;
    switch (MIG.phase) {
    case PH_FREEZING:
        serialise();
        if (++MIG.tries > MIG.cfg.tries) {
            cairn__mig_resume();
            return;
        }
        cairn__mig_freeze_silent();
        cairn__mig_try_transfer();
        break;
    case PH_FREEZING_REST:
        if (++MIG.tries > MIG.cfg.tries)
            cairn__mig_resume();
        else
            cairn__mig_freeze_silent();
        break;
    case PH_DRAINING:
        if (!cairn__rel_sent_by(MIG.task))
            cairn__mig_commit_or_drain();
        else if (++MIG.tries > MIG.cfg.tries)
            cairn__mig_resume();
        break;
    case PH_TRANSFER:
        /* After a part with the commit: never gives up, as in PH_COMMITTING. */
        if (!MIG.commit_out && ++MIG.tries > MIG.cfg.tries) {
            cairn__mig_resume();
        } else {
            MIG.sent = MIG.acked; /* again from the first part not acknowledged */
            cairn__mig_send_parts();
        }
        break;
    case PH_COMMITTING:
        cairn__mig_result_to(MIG.dest); /* never gives up: D alone knows whether T runs there */
        break;
    case PH_RESULTING:
        if (++MIG.tries > MIG.cfg.tries || !silent) {
            cairn__mig_source_done();
            return;
        }
        for (uint8_t m = 0; m < 32; m++)
            if (silent & 1u << m)
                cairn__mig_result_to(m);
        break;
    default:
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
    }
    MIG.stats.retransmits++;
}

static void participant_timer(void)
{
    if (MIG.phase == PH_SETTLED) {
        (void)cairn_timer_cancel(CAIRN_TASK_NET, CAIRN_MIG_TIMER);
        return;
    }
    cairn__mig_frame_to(MIG.source, F_QUERY, MIG.task, MIG.dest);
    if (MIG.dest != cairn_net.address)
        cairn__mig_frame_to(MIG.dest, F_QUERY, MIG.task, MIG.dest);
    MIG.stats.retransmits++;
}

void cairn__mig_timer(void)
{
    if (!on())
        return;
    bool busy = in_migration(cairn_net.mig);
    if (MIG.deferred_task && !busy) {
        cairn_task_id_t task = MIG.deferred_task;
        uint32_t taken = MIG.stats.requests;
        MIG.deferred_task = 0;
        if (MIG.prefrozen == task && !cairn__tcb(task))
            MIG.prefrozen = 0; /* killed while it waited */
        (void)cairn__mig_take_or_forward(task, MIG.deferred_dest, MIG.deferred_hops);
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
        cairn__mig_arm(query_period(m));
}
