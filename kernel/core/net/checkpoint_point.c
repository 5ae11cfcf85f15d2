/*
 * Checkpoint migration: the migration point (docs/checkpoint.md, "Migration points"). As
 * in the paper, a point only looks at a flag the daemons set: no message is read here.
 * When a load report is due it also tells the master how far the computation has come
 * and how fast it goes; with the master on the same module that report runs the master's
 * decision at once, so the point that sent it may already be the one that stops.
 */
#include "checkpoint_msg.h"

#include "cairn/trace.h"

void cairn__ckpt_report(cairn_ckpt_ctx_t *ctx, uint32_t cycles_per_unit)
{
    cairn_ckpt_node_t *n = ctx->node;
    struct ck_msg m = {.type = CK_LOAD, .id = ctx->id, .module = n->address, .size = ctx->size,
                       .a = ctx->done, .b = ctx->total, .c = cycles_per_unit};
    (void)cairn__ckpt_tell(n->cfg.master_id, &m);
}

static void report(cairn_ckpt_ctx_t *ctx, uint32_t done)
{
    cairn_ckpt_node_t *n = ctx->node;
    uint64_t now = n->cfg.now_ns();
    uint32_t units = done - ctx->report_done;
    uint64_t cycles = (now - ctx->report_ns) * n->cfg.clock_hz / 1000000000ull;
    ctx->report_done = done;
    ctx->report_ns = now;
    cairn__ckpt_report(ctx, units ? (uint32_t)(cycles / units) : 0u);
}

bool cairn_ckpt_point(cairn_ckpt_ctx_t *ctx, uint32_t done)
{
    ctx->done = done;
    cairn_ckpt_node_t *n = ctx->node;
    if (!ctx->request && n->cfg.report_units && done - ctx->report_done >= n->cfg.report_units)
        report(ctx, done);
    if (!ctx->request)
        return false;
    if (ctx->request != CK_DISCARD_REQUEST) {
        ctx->to = (uint8_t)(ctx->request - 1u);
        ctx->suspend_ns = n->cfg.now_ns();
        CAIRN_TRACE(CAIRN_EV_CKPT_SUSPEND, ctx->id, ctx->to);
    }
    return true;
}
