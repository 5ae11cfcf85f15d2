/*
 * The task migrator's private state (migrator_*.c, serialize.c, staging.c): one kernel-owned
 * heap block, part of the bus manager's state (net.h) so that the host port's simulated
 * bus swaps it with the rest.
 */
#ifndef CAIRN_CORE_NET_MIGRATOR_STATE_H
#define CAIRN_CORE_NET_MIGRATOR_STATE_H

#include "cairn/migrate.h"
#include "cairn/reliable.h"

/* Roles and phases (docs/migration.md, "State machines"). */
enum { MIG_NONE, MIG_SOURCE, MIG_PARTICIPANT };
enum {
    /* source; PH_FREEZING_REST: D staged, the others being frozen (the STATE went first);
     * PH_DRAINING: all frozen and D staged, the commit waits for T's sent messages */
    PH_FREEZING = 1, PH_TRANSFER, PH_FREEZING_REST, PH_DRAINING, PH_COMMITTING, PH_RESULTING,
    PH_DONE,
    PH_FROZEN, PH_STAGED, PH_SETTLED                                     /* participant */
};

/* Frames (the first payload byte). */
enum {
    F_REQUEST = 1, F_FREEZE, F_FREEZE_ACK, F_STATE, F_STATE_ACK, F_DESERIALIZED, F_RESULT,
    F_ACTIVATED, F_RESULT_ACK, F_QUERY, F_NOMIG
};

#define MIG_OUTBOX 8u
/* Every frame but STATE: kind, mig and up to three bytes. */
#define MIG_SMALL_MAX 6u
/* A STATE frame: kind, mig, index, count, the destination's epoch as the source knows it
 * (0: not known), the task, a zero byte, then the part. */
#define MIG_PART_HEAD 8u
#define MIG_PART ((CAIRN_MIG_FRAME_MAX - MIG_PART_HEAD) & ~3u)
/* STATE parts in flight: the source sends up to MIG_WINDOW parts beyond the last one the
 * destination acknowledged; the destination acknowledges every MIG_ACK_EVERY parts. */
#define MIG_WINDOW 6u
#define MIG_ACK_EVERY 3u
/* A STATE part's last head byte (f[7]). COMMIT: the destination makes the task live as soon
 * as it has staged it, if the part names its present epoch, and answers ACTIVATED instead of
 * DESERIALIZED (the last part, sent when every other module is frozen and the drain rule
 * holds). NO_JOIN: FREEZE went first, the part names the epoch the destination's FREEZE_ACK
 * said, and a destination with no FREEZE on record does not join on it. */
#define MIG_PART_COMMIT 1u
#define MIG_PART_NO_JOIN 2u
/* DESERIALIZED's answers: failed (and this module never stages that migration in this
 * life), staged, and no record in this life (reset since the epoch the part names, or that
 * epoch not known: it cannot say whether it committed before). */
#define MIG_DESER_FAILED 0u
#define MIG_DESER_OK 1u
#define MIG_DESER_NO_RECORD 2u
/* A destination refuses the migration it left uncommitted and the MIG_SHUT_SPAN - 1 before it
 * from the same source: a part delayed past that many of the source's later migrations is
 * not met on a bus, and a counter out of step (a source's new life whose epoch this module
 * has not heard yet) holds back that few. */
#define MIG_SHUT_SPAN 16u
/* A TX token whose task byte has this bit names a STATE part (its index below it), built
 * from the blob when the bus takes it; any other names an outbox slot. */
#define MIG_TOKEN_PART 0x80u
/* The output ports a spare TCB room holds (MIG.spare). */
#define MIG_SPARE_ROUTES 4u

/* A small frame waiting for the bus (a TX token names its slot). */
struct cairn_mig_out {
    uint8_t len; /* 0: a free slot */
    uint8_t data[MIG_SMALL_MAX];
};

/* The serialised task's fields as the destination parsed them (pointers into the blob). */
struct cairn_mig_parsed {
    cairn_task_id_t id;
    cairn_prio_t prio;
    uint8_t flags, num_out, members, modules, timers, messages;
    const uint8_t *routes, *member, *seq, *epoch, *timer;
    unsigned messages_at;
    const uint8_t *state;
    unsigned state_len;
};

/* What a staged copy holds beyond the serialised bytes: the blocks its commit needs,
 * allocated at staging so that the commit cannot run out of memory. */
struct cairn_mig_stage {
    void *state;       /* the task's state block (owned by the task's ID) */
    void *tcb_reserve; /* the TCB's block: the commit fills it in */
    void **payloads;   /* one per queued message (NULL for an empty one) */
    cairn_handler_t handler; /* the task's, from the configuration */
    uint8_t messages;
    bool reserve_spare; /* tcb_reserve is the migrator's spare (given back if unstaged) */
    /* Destination: where the state starts in the blob when the parts after the first are
     * read straight into `state` (cairn__mig_split); 0: the blob holds the state. */
    uint16_t state_at;
    struct cairn_mig_parsed parsed; /* the blob, parsed at staging */
};

typedef struct cairn_mig_state {
    cairn_migrate_config_t cfg;
    uint8_t role, phase, outcome;
    uint8_t mig_src, mig_ctr; /* the migration: its source and counter */
    uint8_t counter;          /* this module's migration counter */
    /* A REQUEST that came while its task was on the stack (taken at a timer tick once the
     * task's handler has ended) or while this module was in another migration (taken, or
     * sent on, once that one has ended); its hops so far. */
    cairn_task_id_t deferred_task;
    uint8_t deferred_dest, deferred_hops;
    /* The task a deferred REQUEST stopped taking messages while its handler ran (0: none),
     * and its READY flag before: it stops at the end of that handler, not at a gap between
     * two of its messages that a backlog never leaves. */
    cairn_task_id_t prefrozen;
    uint8_t prefrozen_flags;
    cairn_task_id_t task;
    uint8_t dest, source;
    uint8_t tries;
    /* Source: the destination's epoch, which lets STATE go first (0: FREEZE goes first);
     * per destination, the epoch a STATE that went first was refused with (the source's
     * knowledge may be older than the destination's restart: FREEZE first until it changes). */
    uint8_t dest_epoch;
    uint8_t refused_epoch[CAIRN_NET_MODULES];
    uint32_t answered; /* bit m: module m answered (FREEZE_ACK, RESULT_ACK) */
    /* Source: T's flags before the freeze, its serialisation, the messages it took. */
    uint8_t saved_flags;
    bool serialised;
    uint8_t queued;    /* T's queued messages the serialisation holds */
    void *handed;      /* the block T's SERIALIZE handler gave */
    uint16_t handed_len;
    bool in_serialize;
    uint8_t acked;     /* TRANSFER: parts the destination has, in order */
    uint8_t sent;      /* TRANSFER: the next part to send */
    uint8_t count;     /* TRANSFER: the blob's parts (a division, computed once) */
    /* Source: the destination's epoch the STATE parts name (dest_epoch when the STATE went
     * first, the one D's FREEZE_ACK said when FREEZE did; 0: not known). */
    uint8_t state_epoch;
    /* Source: the last part went with MIG_PART_COMMIT (sticky): from then on D may have
     * committed, so S no longer resumes T on a timeout (as in PH_COMMITTING). */
    bool fast;
    /* Source: a part with the commit has been written to the controller: from then on D may
     * have committed, and S no longer gives T up on a timeout (`fast` alone only says the
     * last part will carry it). */
    bool commit_out;
    bool placed;       /* destination: the frame being handled put its part in the blob */
    bool query_unarmed; /* destination: joined on a STATE part, its query timer not yet armed */
    /* Both: the serialised task (source: built; destination: received). */
    uint8_t *blob;
    uint16_t blob_len;
    uint16_t blob_cap; /* destination: the bytes the parts announced may fill */
    uint8_t parts;     /* destination: parts received */
    uint8_t answer;    /* destination: its DESERIALIZED answer (1 ok, 0 failed, 0xFF none yet) */
    struct cairn_mig_stage stage;
    bool staged;
    /* Destination: the next staged task's TCB room, allocated ahead (at the start, and after
     * each commit) so that the staging between a STATE and its DESERIALIZED allocates none
     * for a task of up to MIG_SPARE_ROUTES output ports. */
    void *spare;
    struct cairn_mig_out out[MIG_OUTBOX];
    uint32_t part_frame[(CAIRN_MIG_FRAME_MAX + 3u) / 4u]; /* the STATE frame being sent */
    cairn_migrate_stats_t stats;
    /* bit m: module m is on the bus and not this one. Last: a field placed before the
     * others moved them past the short loads' reach. */
    uint32_t others;
    /* Destination: per source module, the newest migration (its counter, in the source's
     * epoch then) that this module left or refused without committing it: it never joins
     * that one nor an older one of that source's life again, so that a part with
     * MIG_PART_COMMIT that comes late cannot make T live after the source resumed it. */
    uint8_t shut_ctr[CAIRN_NET_MODULES];
    uint8_t shut_epoch[CAIRN_NET_MODULES];
    uint32_t shut_set; /* bit m: shut_ctr[m] holds one */
    /* Destination: the words of the record kept across a reset, one per source
     * (migrator_record.c; 0: the board keeps none), which the commit point writes. */
    uint32_t *commits;
} cairn_mig_state_t;

#endif
