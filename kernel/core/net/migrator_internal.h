/*
 * The task migrator (TM): CoMOS's seven steps (the CoMOS paper, V-D) as the state machines
 * of docs/migration.md, "State machines": the source decides, the destination commits,
 * the others hold and apply the result. It runs in the bus manager (its frames are a
 * frame kind of their own, CAIRN_NET_KIND_MIG, handled like TIMESYNC), one migration at a
 * time, on the bus manager's timer 2 for retransmission and queries.
 *
 * Its files: migrator_send.c (the frames out), migrator_rx.c (the frames in, every role's
 * handling of them), migrator_source.c and migrator_participant.c (each role's steps),
 * migrator_timer.c (the timer), migrator_hooks.c (the reliable layer's questions),
 * migrator_blob.c (the serialised task freed), migrate_api.c (cairn/migrate.h); serialize.c
 * and staging.c build and stage the serialised task, migrator_record.c keeps the commits
 * across a reset. This header is what they share: the state's macro, the helpers that are
 * used in line, and the functions one file calls in another.
 *
 * The helpers are always_inline because the one file they lived in inlined them: each call
 * site keeps the code, and the cycles, it had. The functions below were out of line in that
 * file already, so a call between the files is a call that was there before; where gcc knew
 * more of a callee in one file (a length every caller keeps small, a function that writes no
 * memory) the declaration or a wrapper here says so, and the code is the same.
 */
#ifndef CAIRN_CORE_NET_MIGRATOR_INTERNAL_H
#define CAIRN_CORE_NET_MIGRATOR_INTERNAL_H

#include "migrator.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

#define MIG (*cairn_net.mig)

/* ---- migrator_blob.c ------------------------------------------------------------------------ */

/* The serialised task's blob freed (and on the source a split state's block). */
void cairn__mig_free_blob(void);

/* ---- migrator_send.c: the frames out -------------------------------------------------------- */

/* A TX token for the outbox slot (or STATE part) `token` to module; false: not queued. */
bool cairn__mig_submit(uint8_t module, uint8_t token);
/* A small frame to module, at once or through the outbox: cairn__mig_send, whose length check
 * every caller's constant length settles where it is called (as gcc settled it for the one
 * file they were in). */
void cairn__mig_send_small(uint8_t module, const uint8_t *data, unsigned len);
static inline __attribute__((always_inline)) void cairn__mig_send(uint8_t module,
                                                                  const uint8_t *data, unsigned len)
{
    if (len <= MIG_SMALL_MAX)
        cairn__mig_send_small(module, data, len);
}
/* STATE part `index` written to the idle controller, interrupts masked. */
void cairn__mig_part_put(cairn_mig_state_t *m, unsigned index, uint8_t module, uint32_t seq);
/* A frame of this migration: kind, mig, then a and b unless negative. */
void cairn__mig_frame_to(uint8_t module, uint8_t kind, int a, int b);
/* An answer of this migration: kind, mig, a (STATE_ACK, DESERIALIZED, FREEZE_ACK, ACTIVATED). */
void cairn__mig_answer(uint8_t module, uint8_t kind, uint8_t a);
/* RESULT, with this migration's outcome, task and destination. */
void cairn__mig_result_to(uint8_t module);

/* ---- migrator_timer.c: the migrator's timer ------------------------------------------------- */

void cairn__mig_arm(uint32_t ticks);
void cairn__mig_timer_end(void);

/* ---- migrator_source.c: the source's steps -------------------------------------------------- */

/* The trace word of this migration (ev, the task, the migration); nothing at all, no call,
 * in a build without tracing. */
#if CAIRN_TRACE_ENABLED
void cairn__mig_trace(uint8_t ev);
#else
static inline __attribute__((always_inline)) void cairn__mig_trace(uint8_t ev)
{
    (void)ev;
}
#endif

void cairn__mig_serialise_tcb(cairn_mig_state_t *m, cairn_tcb_t *t);
void cairn__mig_send_parts(void);
void cairn__mig_try_transfer(void);
void cairn__mig_freeze_silent(void);
void cairn__mig_commit_or_drain(void);
void cairn__mig_activated(cairn_mig_state_t *m, bool live);
void cairn__mig_resume(void);
void cairn__mig_source_done(void);
cairn_ret_t cairn__mig_take_or_forward(cairn_task_id_t task, uint8_t module, unsigned hops);

/* ---- migrator_participant.c: the participant's and the destination's steps ------------------ */

void cairn__mig_join(uint8_t mig_src, uint8_t mig_ctr, cairn_task_id_t task, uint8_t dest,
                     uint8_t source);
void cairn__mig_commit_here(cairn_mig_state_t *m, uint8_t src);
void cairn__mig_unfreeze(void);
void cairn__mig_shut_record(cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr);
/* Pure, as gcc found it in one file: its callers keep what they read across it. */
__attribute__((pure)) bool cairn__mig_is_shut(const cairn_mig_state_t *m, uint8_t mig_src,
                                              uint8_t mig_ctr);

/* ---- in line --------------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) bool on(void)
{
    return cairn_k.net && cairn_net.mig;
}

/* The trace word in line, for the destination's words on its way from the STATE to its answer. */
static inline __attribute__((always_inline)) void trace_of(const cairn_mig_state_t *m, uint8_t ev)
{
    CAIRN_TRACE(ev, m->task, (uint32_t)m->mig_src << 8 | m->mig_ctr);
}

/* Every module but this one (computed once, by cairn_migrate_start). */
static inline __attribute__((always_inline)) uint32_t all_others(void)
{
    return MIG.others;
}

/* This module takes part in a migration now (a source or a participant whose migration has
 * not ended): one at a time. */
static inline __attribute__((always_inline)) bool in_migration(const cairn_mig_state_t *m)
{
    return m->role != MIG_NONE && !(m->phase == PH_DONE || m->phase == PH_SETTLED);
}

static inline __attribute__((always_inline)) bool this_mig(const cairn_mig_state_t *m,
                                                          const uint8_t *f)
{
    return m->role == MIG_PARTICIPANT && f[1] == m->mig_src && f[2] == m->mig_ctr;
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

/* A serialised task of one part lives in the STATE frame buffer itself, after the part's
 * head, at both ends: the source builds its one frame there and the destination reads it
 * there, with no blob allocated (and none copied on the source). A module takes part in one
 * migration at a time, so the buffer is free for it (a stale part token finds the phase
 * over). */
static inline __attribute__((always_inline)) uint8_t *inline_blob(void)
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

static inline __attribute__((always_inline)) uint32_t query_period(const cairn_mig_state_t *m)
{
    return m->cfg.retransmit_ticks * (m->cfg.tries + 2u);
}

/* A new migration's stage holds no blocks: the fields that own them cleared (an
 * unstage frees and clears them; a commit hands them on). Not the whole stage: the parsed
 * fields are the staging's to fill before anything reads them, and a memset of the stage
 * cost a word loop on both ends' way to the first STATE. */
static inline __attribute__((always_inline)) void stage_clear(cairn_mig_state_t *m)
{
    m->stage.state = 0;
    m->stage.tcb_reserve = 0;
    m->stage.payloads = 0;
    m->stage.messages = 0;
    m->stage.state_at = 0;
}

/* Migration (mig_src, mig_ctr) is one this module, its destination, left or refused without
 * committing it: it never joins it, nor an older one of that source's present life, again
 * (a source numbers its migrations in order and runs one at a time, so an older one is
 * decided). Per source, with the source's epoch as this module knows it, so that a source's
 * new life, whose counter starts again, is not refused. The check in line, the record out of
 * line (cairn__mig_shut_record), as gcc split it when both were in one file. */
static inline __attribute__((always_inline)) void shut(cairn_mig_state_t *m, uint8_t mig_src,
                                                       uint8_t mig_ctr)
{
    if (mig_src < CAIRN_NET_MODULES)
        cairn__mig_shut_record(m, mig_src, mig_ctr);
}

/* This module takes part in migration (mig_src, mig_ctr) of task to dest: frozen. The
 * query timer is armed now, or (arm_now false) by the caller once it has answered. In line
 * where the first STATE part joins (the destination's way to the staging); out of line,
 * cairn__mig_join, for FREEZE and QUERY. */
static inline __attribute__((always_inline)) void
join_in_line(cairn_mig_state_t *m, uint8_t mig_src, uint8_t mig_ctr, cairn_task_id_t task,
             uint8_t dest, uint8_t source, bool arm_now)
{
    if (m->blob) /* none, usually */
        cairn__mig_free_blob();
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
        cairn__mig_arm(query_period(m));
}

#endif
