/*
 * Cairn OS atomic task migration (docs/migration.md): CoMOS's seven steps (REQUEST,
 * FREEZE, replies, transfer, de-serialisation, result) over the reliable remote messages
 * (cairn/reliable.h). Every module runs a task migrator in its bus manager; the source
 * alone decides, the destination alone commits, the commit comes only from the source.
 *
 * A movable task (CAIRN_TASK_MOVABLE) gets a message on CAIRN_PORT_SERIALIZE when it is
 * frozen: its handler calls cairn_migrate_state() with one heap block holding its state
 * (pointer-free, or its pointers its own business). On the destination the block becomes
 * the task's state pointer and the task gets CAIRN_PORT_DESERIALIZE (payload: the block)
 * before any other message; a task that hands no bytes gets a NULL state and no payload. The kernel moves the rest: timers, routes, multicast
 * memberships, queued messages, the sequence table.
 */
#ifndef CAIRN_MIGRATE_H
#define CAIRN_MIGRATE_H

#include "cairn/msg.h"
#include "cairn/types.h"

/* The bus frame kind of the task migrators' frames (payload: the migration frame). */
#define CAIRN_NET_KIND_MIG 0x17u
/* The longest migration frame's payload: the bus's largest frame less the bus header
 * (CAIRN_NET_MAX_PAYLOAD). A STATE part carries 8 bytes of header and a multiple of 4
 * bytes of the serialised task, so that its bytes stay word-aligned end to end. */
#define CAIRN_MIG_FRAME_MAX 246u
/* The longest serialised task (the kernel's part and the handler's block together). The
 * blobs are allocated at the size a migration needs, so a larger limit costs no memory. */
#ifndef CAIRN_MIG_STATE_MAX
#define CAIRN_MIG_STATE_MAX 8192u
#endif

/* Outcomes. */
#define CAIRN_MIG_MOVED 1u
#define CAIRN_MIG_RESUMED 2u
#define CAIRN_MIG_KILLED 3u

/* A movable task's handler, which every module must know to run it. */
typedef struct cairn_migrate_task {
    cairn_task_id_t id;
    cairn_handler_t handler;
} cairn_migrate_task_t;

typedef struct cairn_migrate_config {
    const cairn_migrate_task_t *tasks; /* the same on every module */
    uint8_t count;
    uint32_t retransmit_ticks; /* from the bus: two TDMA rounds and the receiver's handling */
    uint8_t tries;             /* K: firings before the source gives FREEZING, TRANSFER, RESULTING up */
    uint32_t hw_hz;            /* the hardware counter's rate (timer deadlines) */
    /* On the source, when a migration ends (may be NULL); called from the bus manager. */
    void (*done)(cairn_task_id_t task, uint8_t module, uint8_t outcome);
} cairn_migrate_config_t;

/* Starts this module's task migrator (and the reliable layer with the same period).
 * CAIRN_ENOROUTE without a bus manager; CAIRN_EINVAL; CAIRN_ENOMEM. */
cairn_ret_t cairn_migrate_start(const cairn_migrate_config_t *cfg);

/* REQUEST: moves task to module. From any module (a migration policy): a task that is not
 * here is asked of the module its route names. The answer comes through cfg.done on the
 * source and cairn_migrate_stats. CAIRN_EINVAL: unknown task or module, or no migrator. */
cairn_ret_t cairn_migrate(cairn_task_id_t task, uint8_t module);

/* In a SERIALIZE handler: block (a heap block of the running task's, len bytes) is the
 * task's state; the kernel copies it. CAIRN_EINVAL outside a SERIALIZE handler. */
cairn_ret_t cairn_migrate_state(void *block, size_t len);

typedef struct cairn_migrate_stats {
    uint32_t requests;   /* REQUESTs accepted here (source) */
    uint32_t refused;    /* REQUESTs refused here */
    uint32_t moved, resumed, killed; /* outcomes decided here (source) */
    uint32_t staged, stage_failed, committed; /* destination */
    uint32_t frozen;     /* times a task was frozen here */
    uint32_t frames_rx, frames_bad, retransmits;
    uint8_t last_outcome;
    bool busy;           /* in a migration now, or a REQUEST waits here to be taken */
} cairn_migrate_stats_t;

void cairn_migrate_stats(cairn_migrate_stats_t *st);

#endif /* CAIRN_MIGRATE_H */
