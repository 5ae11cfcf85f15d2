/* The task migrator's hooks for the reliable layer and the bus manager (migrator_*.c,
 * migrate_api.c). */
#ifndef CAIRN_CORE_NET_MIGRATOR_H
#define CAIRN_CORE_NET_MIGRATOR_H

#include "net.h"

/* What a destination remembers of its commits across a reset (migrator_record.c), `life`
 * being this module's epoch: the record checked (started afresh when it is not valid), its
 * words per source returned (0: none kept); the word that records a commit of migration
 * counter ctr in life `life`, stored in words[src] before the task goes live; whether the
 * record proves that the life `named` did not commit migration (src, ctr). */
uint32_t *cairn__mig_record_open(uint8_t life);
static inline uint32_t cairn__mig_record_word(uint8_t life, uint8_t ctr)
{
    return life | (uint32_t)ctr << 8 | (uint32_t)(uint8_t)~life << 16 |
           (uint32_t)(uint8_t)~ctr << 24;
}
bool cairn__mig_record_never_committed(uint8_t life, uint8_t named, uint8_t src, uint8_t ctr);

/* Whether messages for task must stay with this module's senders (task frozen). */
bool cairn__mig_holds(cairn_task_id_t task);
/* A DATA frame for task from module src: true when this module refuses it (the task is
 * frozen here: src is told FREEZE). */
bool cairn__mig_refuse(cairn_task_id_t task, uint8_t src);
/* The frame a migrator token stands for (see cairn__rel_frame); a STATE part's token is
 * written by cairn__mig_part_write instead: part `index` to module, as frame number seq, with
 * interrupts masked and the controller idle (false: a stale token, nothing written). */
bool cairn__mig_frame(const cairn_msg_t *token, uint32_t *h, const void **payload, unsigned *len);
bool cairn__mig_part_write(unsigned index, uint8_t module, uint32_t seq);
/* The bytes of a migration frame the bus manager reads before it asks where the rest goes
 * (a STATE part's head); a multiple of 4. */
#define CAIRN_MIG_HEAD_MAX 8u
/* A migration frame of len bytes from module src whose head (the first CAIRN_MIG_HEAD_MAX)
 * is read: where its other bytes go (a STATE part in order: into the blob), or NULL when
 * they are not needed (they stay unread) or it read them itself (the first STATE part of
 * several). */
uint8_t *cairn__mig_rx_place(uint8_t src, const uint8_t *head, unsigned len);
/* A migration frame from module src; only its head is in payload when it is longer than
 * CAIRN_MIG_HEAD_MAX (the rest went where cairn__mig_rx_place said). */
void cairn__mig_rx(uint8_t src, const uint8_t *payload, unsigned len);
/* The reliable layer's messages kept for task, delivered here in order (the task moved in). */
void cairn__rel_deliver_local(cairn_task_id_t task);
/* The messages kept for task may go again (unfrozen). */
void cairn__rel_resume(cairn_task_id_t task);
/* The last numbers task accepted, one per module, and those modules' epochs then. */
uint8_t *cairn__rel_table(cairn_task_id_t task);
uint8_t *cairn__rel_epochs(cairn_task_id_t task);

/* Whether a DATA message task sent from here is still unacknowledged (kept to be sent
 * again): a migrating task's must all be before it may run elsewhere. */
bool cairn__rel_sent_by(cairn_task_id_t task);
/* Messages were acknowledged while a migration from here waits for its task's to be. */
void cairn__mig_drained(void);
/* The kernel is about to sleep (interrupts masked): a query timer left to arm is armed. */
void cairn__mig_idle(void);

/* The migrator's timer: the bus manager's timer 2. */
#define CAIRN_MIG_TIMER 2u
void cairn__mig_timer(void);
/* The bus manager's port for a REQUEST made on this module (cairn_migrate). */
#define CAIRN_MIG_PORT_REQUEST CAIRN_PORT(2)
cairn_ret_t cairn__mig_request_msg(const cairn_msg_t *msg);

/* staging.c: the destination's staged copy (allocated from the received state), freed,
 * made live; the source's copy detached (its routes then name module to, the messages
 * queued after the first `serialised` leave for it); a participant's routes to module to. */
bool cairn__mig_stage(void);
/* Destination: after the first of several STATE parts, its state block taken apart from the
 * blob (false: no memory); where a later part's bytes go then. */
bool cairn__mig_split(void);
uint8_t *cairn__mig_split_place(cairn_mig_state_t *m, unsigned len);
/* Destination: the first of several STATE parts read from the controller (its `len` bytes
 * after its head), its state block's share straight into the block when it can be taken
 * apart at once (cairn__mig_split then has nothing to do), else into the STATE frame buffer. */
void cairn__mig_split_rx(unsigned len);
void cairn__mig_unstage(void);
bool cairn__mig_commit(void);
/* The spare TCB room allocated if there is none (the start, after a commit). */
void cairn__mig_spare(void);
void cairn__mig_detach(cairn_task_id_t id, uint8_t to, unsigned serialised);
void cairn__mig_route(cairn_task_id_t id, uint8_t to);
/* Source: the timers the serialisation stopped, set again from it (T resumes). */
void cairn__mig_restore_timers(void);

#endif
