/*
 * Checkpoint migration: the slave daemon (the paper's S_daemon; docs/checkpoint.md, "The
 * slave daemon"), one per module. It obeys the master: it starts computations placed
 * here, raises the migration request a computation's next migration point sees, frees or
 * drops copies; and it rebuilds checkpoints that arrive in chunks, then has the runner
 * restart the computation from them.
 */

#include "checkpoint_msg.h"

#include "cairn/trace.h"

static void run_here(cairn_ckpt_node_t *n, cairn_ckpt_ctx_t *ctx, bool restarted)
{
    ctx->phase = CAIRN_CKPT_RUNNING;
    struct ck_msg m = {.type = CK_RUN, .id = ctx->id, .a = restarted};
    (void)cairn__ckpt_tell(n->cfg.runner_id, &m);
}

static void chunk(cairn_ckpt_node_t *n, const uint8_t *p, uint16_t len)
{
    struct ck_chunk h;
    if (len < sizeof h) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, 0);
        return;
    }
    __builtin_memcpy(&h, p, sizeof h);
    cairn_ckpt_ctx_t *ctx = cairn__ckpt_find(n, h.id);
    if (!ctx)
        return;
    unsigned count = ck_chunks(ctx->size);
    unsigned off = (unsigned)h.seq * CAIRN_CKPT_CHUNK;
    unsigned want = ctx->size ? (ctx->size - off < CAIRN_CKPT_CHUNK ? ctx->size - off : CAIRN_CKPT_CHUNK) : 0;
    if (h.size != ctx->size || h.count != count || h.seq >= count || len - sizeof h != want ||
        h.src == n->address) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, h.id);
        return;
    }
    if (ctx->phase == CAIRN_CKPT_RECEIVING && (uint32_t)ctx->suspend_ns != h.suspend) {
        /* A newer transfer: the older one lost a chunk and its source resumed. */
        ctx->phase = CAIRN_CKPT_IDLE;
    }
    if (ctx->phase == CAIRN_CKPT_IDLE || ctx->phase == CAIRN_CKPT_DONE) {
        ctx->phase = CAIRN_CKPT_RECEIVING;
        ctx->suspend_ns = h.suspend;
        ctx->from = h.src;
        ctx->rx_count = 0;
        __builtin_memset(ctx->rx_seen, 0, sizeof ctx->rx_seen);
    } else if (ctx->phase != CAIRN_CKPT_RECEIVING) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_UNEXPECTED, h.id);
        return;
    }
    uint32_t bit = 1u << (h.seq % 32u);
    if (ctx->rx_seen[h.seq / 32u] & bit) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_DUPLICATE, h.id);
        return;
    }
    ctx->rx_seen[h.seq / 32u] |= bit;
    if (want)
        __builtin_memcpy((uint8_t *)ctx->state + off, p + sizeof h, want);
    n->stats.chunks_received++;
    if (++ctx->rx_count < count)
        return;
    ctx->received_ns = n->cfg.now_ns();
    CAIRN_TRACE(CAIRN_EV_CKPT_RECEIVED, ctx->id, ctx->size);
    run_here(n, ctx, true);
}

static void obey(cairn_ckpt_node_t *n, const struct ck_msg *m)
{
    cairn_ckpt_ctx_t *ctx = cairn__ckpt_find(n, m->id);
    if (!ctx)
        return;
    switch (m->type) {
    case CK_START:
        if (ctx->phase == CAIRN_CKPT_RUNNING || ctx->phase == CAIRN_CKPT_HELD)
            break;
        ctx->done = 0;
        run_here(n, ctx, false);
        return;
    case CK_MIGRATE:
        if (ctx->phase != CAIRN_CKPT_RUNNING || m->dst >= n->cfg.modules || m->dst == n->address)
            break;
        ctx->request = (uint8_t)(m->dst + 1u);
        return;
    case CK_CONFIRM:
        if (ctx->phase != CAIRN_CKPT_HELD)
            break;
        ctx->phase = CAIRN_CKPT_IDLE;
        CAIRN_TRACE(CAIRN_EV_CKPT_CONFIRM, ctx->id, ctx->to);
        return;
    case CK_DISCARD:
        n->stats.discarded++;
        if (ctx->phase == CAIRN_CKPT_RUNNING)
            ctx->request = CK_DISCARD_REQUEST; /* its next migration point stops it */
        else if (ctx->phase == CAIRN_CKPT_HELD || ctx->phase == CAIRN_CKPT_RECEIVING)
            ctx->phase = CAIRN_CKPT_IDLE;
        return;
    default:
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, m->id);
        return;
    }
    cairn__ckpt_bad(n, CAIRN_CKPT_ERR_UNEXPECTED, m->id);
}

cairn_ret_t cairn__ckpt_slave(void *state, cairn_msg_t *msg)
{
    cairn_ckpt_node_t *n = state;
    if (msg->port == CAIRN_PORT_INIT) {
        struct ck_msg m = {.type = CK_HELLO, .module = n->address, .a = n->cfg.clock_hz};
        return cairn__ckpt_tell(n->cfg.master_id, &m);
    }
    if (msg->port != CAIRN_CKPT_PORT || !msg->len)
        return CAIRN_OK;
    const uint8_t *p = msg->payload;
    if (p[0] == CK_CHUNK)
        chunk(n, p, msg->len);
    else if (msg->len == sizeof(struct ck_msg))
        obey(n, msg->payload);
    else
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, 0);
    return CAIRN_OK;
}
