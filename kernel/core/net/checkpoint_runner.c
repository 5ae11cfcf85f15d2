/*
 * Checkpoint migration: the runner, the task a module's computations run in (the paper's
 * migrating process; docs/checkpoint.md, "The runner"). It runs a computation to its end
 * or to a migration point that stops it; then it sends the checkpoint to the destination's
 * slave in chunks and holds its own copy (the state block, untouched from then on) until
 * the master confirms the restart. Without that confirmation within resume_ticks it
 * resumes the computation here: a lost chunk costs time, never the computation.
 *
 * Timers: 0 the resume timeout, 1 the retry of chunks a busy bus refused.
 */

#include "checkpoint_msg.h"

#include "cairn/mem.h"
#include "cairn/task.h"
#include "cairn/timer.h"
#include "cairn/trace.h"

static void tell_master(cairn_ckpt_node_t *n, uint8_t type, cairn_ckpt_ctx_t *ctx, uint32_t a)
{
    struct ck_msg m = {.type = type, .id = ctx->id, .module = n->address, .size = ctx->size, .a = a};
    (void)cairn__ckpt_tell(n->cfg.master_id, &m);
}

void cairn__ckpt_send_chunks(cairn_ckpt_node_t *n, cairn_ckpt_ctx_t *ctx)
{
    unsigned count = ck_chunks(ctx->size);
    while (ctx->tx_next < count) {
        unsigned off = ctx->tx_next * CAIRN_CKPT_CHUNK;
        unsigned len = ctx->size - off < CAIRN_CKPT_CHUNK ? ctx->size - off : CAIRN_CKPT_CHUNK;
        if (!ctx->size)
            len = 0;
        uint8_t *p = cairn_malloc(CAIRN_CKPT_CHUNK_HEADER + len);
        cairn_ret_t r = CAIRN_ENOMEM;
        if (p) {
            struct ck_chunk h = {.type = CK_CHUNK, .id = ctx->id, .src = n->address,
                                 .seq = (uint8_t)ctx->tx_next, .count = (uint8_t)count,
                                 .size = ctx->size, .suspend = (uint32_t)ctx->suspend_ns};
            __builtin_memcpy(p, &h, sizeof h);
            if (len)
                __builtin_memcpy(p + sizeof h, (const uint8_t *)ctx->state + off, len);
            if (ctx->tx_next + 1u == count) {
                /* Before the post: a bus idle sends at once, and the frames that come back
                 * (the restart's confirmation) would run before this line otherwise. */
                ctx->shutdown_ns = (uint32_t)(n->cfg.now_ns() - ctx->suspend_ns);
                CAIRN_TRACE(CAIRN_EV_CKPT_SENT, ctx->id, ctx->size);
            }
            r = cairn_post(ck_slave(n, ctx->to), CAIRN_CKPT_PORT, p, CAIRN_CKPT_CHUNK_HEADER + len);
        }
        if (r == CAIRN_EFULL || r == CAIRN_ENOMEM) {
            /* The bus manager's buffer (or the heap) is full: the bus drains it meanwhile. */
            n->stats.chunks_retried++;
            if (n->cfg.retry_ticks)
                (void)cairn_timer_set(n->cfg.runner_id, 1, n->cfg.retry_ticks, false);
            return;
        }
        /* Any other refusal loses the chunk like a lost frame: the resume timeout covers it. */
        ctx->tx_next++;
        n->stats.chunks_sent++;
    }
    if (n->cfg.resume_ticks)
        (void)cairn_timer_set(n->cfg.runner_id, 0, n->cfg.resume_ticks, false);
}

static void run(cairn_ckpt_node_t *n, cairn_ckpt_ctx_t *ctx, bool restarted)
{
    ctx->request = 0;
    ctx->report_done = ctx->done;
    ctx->report_ns = n->cfg.now_ns();
    cairn__ckpt_report(ctx, 0);
    cairn_ret_t r = ctx->run(ctx, ctx->state, restarted);
    if (r != CAIRN_CKPT_STOP) {
        ctx->phase = CAIRN_CKPT_DONE;
        tell_master(n, CK_DONE, ctx, (uint32_t)r);
        return;
    }
    if (ctx->request == CK_DISCARD_REQUEST) {
        ctx->phase = CAIRN_CKPT_IDLE;
        n->stats.discarded++;
        return;
    }
    ctx->phase = CAIRN_CKPT_HELD;
    ctx->tx_next = 0;
    cairn__ckpt_send_chunks(n, ctx);
}

static void start(cairn_ckpt_node_t *n, const struct ck_msg *m)
{
    cairn_ckpt_ctx_t *ctx = cairn__ckpt_find(n, m->id);
    if (!ctx)
        return;
    if (ctx->phase != CAIRN_CKPT_RUNNING) {
        /* Discarded while the RUN message waited. */
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_UNEXPECTED, m->id);
        return;
    }
    if (m->a) {
        uint64_t now = n->cfg.now_ns();
        ctx->cost_ns = (uint32_t)((uint32_t)now - (uint32_t)ctx->suspend_ns);
        ctx->reboot_ns = (uint32_t)(now - ctx->received_ns);
        CAIRN_TRACE(CAIRN_EV_CKPT_RESTART, ctx->id, ctx->from);
        tell_master(n, CK_RESTARTED, ctx, ctx->cost_ns);
    }
    run(n, ctx, m->a != 0);
}

/* The resume timeout: every copy still held was not confirmed in time. */
static void resume_held(cairn_ckpt_node_t *n)
{
    for (uint8_t i = 0; i < n->count; i++) {
        cairn_ckpt_ctx_t *ctx = n->comps[i];
        if (ctx->phase != CAIRN_CKPT_HELD)
            continue;
        n->stats.resumed++;
        CAIRN_TRACE(CAIRN_EV_CKPT_RESUME, ctx->id, ctx->to);
        ctx->phase = CAIRN_CKPT_RUNNING;
        tell_master(n, CK_RESUMED, ctx, 0);
        run(n, ctx, true);
    }
}

cairn_ret_t cairn__ckpt_runner(void *state, cairn_msg_t *msg)
{
    cairn_ckpt_node_t *n = state;
    if (msg->port == CAIRN_PORT_TIMEOUT0) {
        resume_held(n);
    } else if (msg->port == CAIRN_PORT_TIMEOUT1) {
        for (uint8_t i = 0; i < n->count; i++)
            if (n->comps[i]->phase == CAIRN_CKPT_HELD && n->comps[i]->tx_next < ck_chunks(n->comps[i]->size))
                cairn__ckpt_send_chunks(n, n->comps[i]);
    } else if (msg->port == CAIRN_CKPT_PORT) {
        const struct ck_msg *m = msg->payload;
        if (msg->len != sizeof *m || m->type != CK_RUN)
            cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, msg->len >= 2 ? m->id : 0);
        else
            start(n, m);
    }
    return CAIRN_OK;
}
