/*
 * Checkpoint migration: the messages between the master, the slaves and the runners
 * (docs/checkpoint.md, "Messages"), private to kernel/core/net/checkpoint_*.c.
 */
#ifndef CAIRN_CORE_CHECKPOINT_MSG_H
#define CAIRN_CORE_CHECKPOINT_MSG_H

#include "cairn/checkpoint.h"
#include "cairn/msg.h"

enum {
    CK_HELLO = 1, /* slave -> master: module, a = its clock */
    CK_LOAD,      /* runner -> master: id, module, size, a = done, b = total, c = cycles per unit */
    CK_START,     /* master -> slave: id (initial placement) */
    CK_MIGRATE,   /* master -> source slave: id, dst */
    CK_CHUNK,     /* source runner -> destination slave: struct ck_chunk + bytes */
    CK_RESTARTED, /* destination runner -> master: id, module, size, a = cost ns */
    CK_CONFIRM,   /* master -> source slave: id, dst: free the held copy */
    CK_RESUMED,   /* source runner -> master: id, module: timed out, runs here again */
    CK_DISCARD,   /* master -> slave: id: drop this module's copy */
    CK_DONE,      /* runner -> master: id, module */
    CK_RUN,       /* slave -> local runner: id, a = 1 when restarted from a checkpoint */
};

/* Every control message: 20 bytes, no padding. */
struct ck_msg {
    uint8_t type, id, module, dst;
    uint16_t size, reserved;
    uint32_t a, b, c;
};
_Static_assert(sizeof(struct ck_msg) == 20, "control messages have one layout");

/* A chunk's header; the chunk's bytes follow. */
struct ck_chunk {
    uint8_t type, id, src, seq;
    uint8_t count, reserved;
    uint16_t size;      /* the whole checkpoint's bytes */
    uint32_t suspend;   /* low 32 bits of the migration point's global time (ns): names the transfer */
};
_Static_assert(sizeof(struct ck_chunk) == CAIRN_CKPT_CHUNK_HEADER, "the chunk header is documented");

/* ctx.request: stop and drop this copy. */
#define CK_DISCARD_REQUEST 0xFFu

/* Chunks of a checkpoint of size bytes (an empty checkpoint is one chunk). */
static inline unsigned ck_chunks(unsigned size)
{
    return size ? (size + CAIRN_CKPT_CHUNK - 1u) / CAIRN_CKPT_CHUNK : 1u;
}

static inline cairn_task_id_t ck_slave(const cairn_ckpt_node_t *n, uint8_t module)
{
    return (cairn_task_id_t)(n->cfg.slave_base + module);
}

/* Sends a copy of m (a heap payload) to task dst's CAIRN_CKPT_PORT. */
cairn_ret_t cairn__ckpt_tell(cairn_task_id_t dst, const struct ck_msg *m);
/* A dropped message: counted and traced. */
void cairn__ckpt_bad(cairn_ckpt_node_t *n, unsigned kind, uint8_t id);
/* The computation a message names, or NULL (counted). */
cairn_ckpt_ctx_t *cairn__ckpt_find(cairn_ckpt_node_t *n, uint8_t id);

/* The tasks' handlers (their state is the node). */
cairn_ret_t cairn__ckpt_master(void *state, cairn_msg_t *msg);
cairn_ret_t cairn__ckpt_slave(void *state, cairn_msg_t *msg);
cairn_ret_t cairn__ckpt_runner(void *state, cairn_msg_t *msg);

/* Runner: sends the rest of ctx's checkpoint (chunks the bus refused are tried again). */
void cairn__ckpt_send_chunks(cairn_ckpt_node_t *n, cairn_ckpt_ctx_t *ctx);
/* A load report to the master. */
void cairn__ckpt_report(cairn_ckpt_ctx_t *ctx, uint32_t cycles_per_unit);

#endif /* CAIRN_CORE_CHECKPOINT_MSG_H */
