/*
 * Checkpoint migration across modules: user-managed migration points, a master daemon
 * that keeps the migration table and decides, slave daemons that obey, and the
 * break-even policy (docs/checkpoint.md; after Bertozzi et al., "Supporting Task
 * Migration in Multi-Processor Systems-on-Chip: A Feasibility Study").
 *
 * A long computation is a function that runs from the start or from its checkpoint: a
 * state block of known size that it keeps all its progress in. It calls
 * cairn_ckpt_point() at its migration points; when that returns true the state block is
 * the checkpoint and the function must return CAIRN_CKPT_STOP at once. The middleware
 * sends the block to the destination module as ordinary remote messages, and the same
 * function (every module runs the same code) restarts there with restarted = true.
 *
 *     static cairn_ret_t sum(cairn_ckpt_ctx_t *ctx, void *state, bool restarted)
 *     {
 *         struct st *s = state;
 *         if (!restarted) { s->i = 0; s->acc = 1; }
 *         for (; s->i < N; ) {
 *             s->acc = step(s->acc, s->i++);
 *             if (s->i % 1000 == 0 && cairn_ckpt_point(ctx, s->i))
 *                 return CAIRN_CKPT_STOP;
 *         }
 *         return CAIRN_OK;
 *     }
 *
 * Every module starts the middleware with the same computations and its own node:
 *
 *     cairn_ckpt_start(&node, &cfg, comps, n);   // after cairn_net_init, before cairn_run
 *     cairn_ckpt_launch(&node, id, module);      // on the master module: initial placement
 */
#ifndef CAIRN_CHECKPOINT_H
#define CAIRN_CHECKPOINT_H

#include "cairn/net.h"
#include "cairn/types.h"

/* What a computation returns when a migration point told it to stop (its state block is
 * the checkpoint). */
#define CAIRN_CKPT_STOP 1

/* Computations one device knows at most (their IDs are 0..CAIRN_CKPT_MAX-1). */
#ifndef CAIRN_CKPT_MAX
#define CAIRN_CKPT_MAX 4
#endif
/* Modules the master keeps in its table at most. */
#ifndef CAIRN_CKPT_MODULES
#define CAIRN_CKPT_MODULES 8
#endif

/* The one input port of the master, the slaves and the runner. */
#define CAIRN_CKPT_PORT CAIRN_PORT(0)

/* A checkpoint travels in chunks of at most CAIRN_CKPT_CHUNK bytes, one remote message
 * each (a 12-byte chunk header, then the bytes); at most 255 chunks. */
#define CAIRN_CKPT_CHUNK_HEADER 12u
#define CAIRN_CKPT_CHUNK (CAIRN_NET_MAX_PAYLOAD - CAIRN_CKPT_CHUNK_HEADER)
#define CAIRN_CKPT_MAX_STATE (255u * CAIRN_CKPT_CHUNK)

struct cairn_ckpt_ctx;
struct cairn_ckpt_node;

/* Runs the computation from its start (restarted = false) or from the checkpoint in
 * state. CAIRN_OK: finished; CAIRN_CKPT_STOP: a migration point said stop. */
typedef cairn_ret_t (*cairn_ckpt_fn_t)(struct cairn_ckpt_ctx *ctx, void *state, bool restarted);

/* Phases of a computation on one module (ctx.phase). */
enum {
    CAIRN_CKPT_IDLE = 0, /* not here */
    CAIRN_CKPT_RUNNING,  /* started or restarted here, not finished */
    CAIRN_CKPT_HELD,     /* suspended here, its checkpoint sent: kept until the master confirms */
    CAIRN_CKPT_RECEIVING, /* chunks of its checkpoint are arriving here */
    CAIRN_CKPT_DONE,     /* finished here */
};

/* One computation on one module. The application fills the first four fields, the same
 * on every module; the rest belongs to the middleware. */
typedef struct cairn_ckpt_ctx {
    cairn_ckpt_fn_t run;
    void *state;    /* the state block: the checkpoint */
    uint16_t size;  /* its bytes, at most CAIRN_CKPT_MAX_STATE */
    uint32_t total; /* work units the computation does in all (for the policy) */

    struct cairn_ckpt_node *node;
    uint8_t id;
    uint8_t phase;
    uint8_t request;   /* 0, or the destination module + 1 (CKPT_DISCARD: stop and drop) */
    uint8_t from;      /* the module a received checkpoint came from */
    uint8_t to;        /* source: the module its checkpoint goes to */
    uint32_t done;     /* units done at the latest migration point */
    uint32_t report_done; /* units at the latest load report */
    uint64_t report_ns; /* when the latest report was made */
    uint64_t suspend_ns; /* global time of the migration point that stopped it */
    uint64_t received_ns; /* destination: the last chunk arrived */
    uint16_t tx_next;  /* source: the next chunk to send */
    uint16_t rx_count; /* destination: chunks received */
    uint32_t rx_seen[8]; /* destination: bit k: chunk k received */
    /* The latest migration as this module measured it (docs/checkpoint.md, "Cost"). */
    uint32_t shutdown_ns; /* source: migration point -> last chunk handed to the bus */
    uint32_t cost_ns;     /* destination: migration point -> restart (T_migration) */
    uint32_t reboot_ns;   /* destination: last chunk received -> restart */
} cairn_ckpt_ctx_t;

/* A module's middleware settings. Time is global: now_ns gives the device's time in
 * nanoseconds (every module's cycle counter counts from the device's start). */
typedef struct cairn_ckpt_config {
    uint8_t modules;          /* modules on the bus (1 without a bus) */
    uint8_t master_module;    /* where the master daemon runs */
    cairn_task_id_t master_id;
    cairn_task_id_t slave_base; /* the slave daemon of module m is task slave_base + m */
    cairn_task_id_t runner_id;  /* this module's runner (local only: the same ID everywhere) */
    cairn_prio_t daemon_prio;   /* master and slaves: above the runner */
    cairn_prio_t runner_prio;
    uint32_t clock_hz;          /* this module's clock */
    uint64_t (*now_ns)(void);
    uint32_t resume_ticks; /* the source resumes when not confirmed within this; 0: no timer */
    uint32_t retry_ticks;  /* a chunk refused by a busy bus is tried again after this */
    uint32_t report_units; /* a load report to the master every this many units */
    /* The master's cost model before it measured one (docs/checkpoint.md, "Policy"). */
    uint32_t cost_base_ns;
    uint32_t cost_per_byte_ps;
    /* Master only: computation id finished on module m. */
    void (*on_done)(struct cairn_ckpt_node *node, uint8_t id, uint8_t module);
} cairn_ckpt_config_t;

/* The migration table's row of one computation (master). */
typedef struct cairn_ckpt_entry {
    uint8_t state;       /* CAIRN_CKPT_E_* */
    uint8_t module;      /* where it runs */
    uint8_t dst;         /* while migrating: where it goes */
    uint8_t migrations;  /* completed */
    uint8_t stays;       /* decisions to stay */
    uint8_t resumes;     /* migrations abandoned (the source timed out) */
    uint16_t size;
    uint32_t done, total, cycles_per_unit;
    uint32_t frozen_until; /* units: no new migration before the last one has paid off */
    uint32_t cost_ns;      /* the last migration's measured cost */
    uint64_t freeze_ns;    /* its freezing time (break-even after the migration point) */
    uint64_t predicted_stay_ns, predicted_go_ns; /* the last decision's figures */
} cairn_ckpt_entry_t;

enum { CAIRN_CKPT_E_FREE = 0, CAIRN_CKPT_E_RUNNING, CAIRN_CKPT_E_MIGRATING, CAIRN_CKPT_E_DONE };

/* Counters of one module's middleware. */
typedef struct cairn_ckpt_stats {
    uint32_t chunks_sent, chunks_received, chunks_retried;
    uint32_t bad;         /* malformed or unexpected messages: dropped */
    uint32_t duplicates;  /* chunks received twice: ignored */
    uint32_t resumed;     /* source timeouts */
    uint32_t discarded;   /* copies dropped on the master's word */
} cairn_ckpt_stats_t;

typedef struct cairn_ckpt_node {
    cairn_ckpt_config_t cfg;
    uint8_t address;
    uint8_t count;
    cairn_ckpt_ctx_t *comps[CAIRN_CKPT_MAX];
    cairn_ckpt_stats_t stats;
    /* Master: the modules' clocks and loads, and the migration table. */
    uint32_t clock_hz[CAIRN_CKPT_MODULES];
    cairn_ckpt_entry_t table[CAIRN_CKPT_MAX];
} cairn_ckpt_node_t;

/* Brings the middleware up on this module: the slave daemon and the runner, the master
 * when this is cfg->master_module, and remote TCBs for the other modules' daemons. The
 * same comps (by index: the computation ID) on every module. CAIRN_EINVAL: bad config
 * or a state block too large; CAIRN_EBUSY: a task ID is taken; CAIRN_ENOMEM. */
cairn_ret_t cairn_ckpt_start(cairn_ckpt_node_t *node, const cairn_ckpt_config_t *cfg,
                             cairn_ckpt_ctx_t *const *comps, uint8_t count);

/* Master: admits computation id and places it on module (initial placement). */
cairn_ret_t cairn_ckpt_launch(cairn_ckpt_node_t *node, uint8_t id, uint8_t module);

/* A migration point: done = work units done so far. True when the computation must
 * return CAIRN_CKPT_STOP now (its state block is the checkpoint). Cheap when no
 * migration is asked for and no load report is due. */
bool cairn_ckpt_point(cairn_ckpt_ctx_t *ctx, uint32_t done);

/* ---- the policy (checkpoint_policy.c): the break-even reasoning ---------------------- */

typedef struct cairn_ckpt_case {
    uint32_t remaining_units;
    uint32_t cycles_per_unit;
    uint32_t src_hz, dst_hz;     /* effective clocks: the module's clock shared by its load */
    uint32_t size;               /* checkpoint bytes */
    uint32_t cost_base_ns, cost_per_byte_ps;
} cairn_ckpt_case_t;

typedef struct cairn_ckpt_verdict {
    bool migrate;
    uint64_t stay_ns;   /* remaining run time where it is */
    uint64_t go_ns;     /* migration cost + remaining run time on the destination */
    uint64_t cost_ns;   /* the predicted migration cost */
    uint64_t freeze_ns; /* freezing time: after the migration point, the time the new
                         * placement needs to pay the cost back (UINT64_MAX: never) */
} cairn_ckpt_verdict_t;

void cairn_ckpt_decide(const cairn_ckpt_case_t *c, cairn_ckpt_verdict_t *v);

/* Trace words (docs/checkpoint.md, "Trace words"). */
#define CAIRN_EV_CKPT_REQUEST 0x30u /* master asked a migration: a = computation, b = src << 8 | dst */
#define CAIRN_EV_CKPT_SUSPEND 0x31u /* stopped at a migration point: a = computation, b = dst */
#define CAIRN_EV_CKPT_SENT 0x32u    /* last chunk handed to the bus: a = computation, b = size */
#define CAIRN_EV_CKPT_RECEIVED 0x33u /* checkpoint complete here: a = computation, b = size */
#define CAIRN_EV_CKPT_RESTART 0x34u /* restarted from the checkpoint: a = computation, b = source module */
#define CAIRN_EV_CKPT_CONFIRM 0x35u /* source freed its copy: a = computation, b = dst */
#define CAIRN_EV_CKPT_RESUME 0x36u  /* source timed out and resumed: a = computation, b = dst */
#define CAIRN_EV_CKPT_STAY 0x37u    /* master decided to stay: a = computation, b = best dst */
#define CAIRN_EV_CKPT_ERR 0x38u     /* dropped message: a = CAIRN_CKPT_ERR_*, b = computation */

#define CAIRN_CKPT_ERR_BAD 1       /* malformed, or an unknown computation */
#define CAIRN_CKPT_ERR_DUPLICATE 2 /* a chunk received twice */
#define CAIRN_CKPT_ERR_UNEXPECTED 3 /* not in the phase it is for */

#endif /* CAIRN_CHECKPOINT_H */
