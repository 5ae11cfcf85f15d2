/*
 * Checkpoint migration: bringing the middleware up on a module, and what its daemons
 * share (docs/checkpoint.md).
 */

#include "checkpoint_msg.h"

#include "cairn/mem.h"
#include "cairn/task.h"
#include "cairn/trace.h"

cairn_ret_t cairn__ckpt_tell(cairn_task_id_t dst, const struct ck_msg *m)
{
    struct ck_msg *p = cairn_malloc(sizeof *p);
    if (!p)
        return CAIRN_ENOMEM;
    *p = *m;
    return cairn_post(dst, CAIRN_CKPT_PORT, p, sizeof *p);
}

void cairn__ckpt_bad(cairn_ckpt_node_t *n, unsigned kind, uint8_t id)
{
    if (kind == CAIRN_CKPT_ERR_DUPLICATE)
        n->stats.duplicates++;
    else
        n->stats.bad++;
    CAIRN_TRACE(CAIRN_EV_CKPT_ERR, kind, id);
}

cairn_ckpt_ctx_t *cairn__ckpt_find(cairn_ckpt_node_t *n, uint8_t id)
{
    if (id < n->count)
        return n->comps[id];
    cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, id);
    return NULL;
}

static bool config_ok(const cairn_ckpt_config_t *c, uint8_t count)
{
    unsigned top = (unsigned)c->slave_base + c->modules - 1u;
    return c->modules >= 1 && c->modules <= CAIRN_CKPT_MODULES && c->master_module < c->modules &&
           c->slave_base >= 1 && top <= CAIRN_MAX_TASKS && c->master_id >= 1 && c->runner_id >= 1 &&
           c->now_ns && c->clock_hz && c->daemon_prio > c->runner_prio && count <= CAIRN_CKPT_MAX;
}

cairn_ret_t cairn_ckpt_start(cairn_ckpt_node_t *node, const cairn_ckpt_config_t *cfg,
                             cairn_ckpt_ctx_t *const *comps, uint8_t count)
{
    if (!node || !cfg || !config_ok(cfg, count))
        return CAIRN_EINVAL;
    for (uint8_t i = 0; i < count; i++)
        if (!comps[i] || !comps[i]->run || comps[i]->size > CAIRN_CKPT_MAX_STATE ||
            (comps[i]->size && !comps[i]->state))
            return CAIRN_EINVAL;
    __builtin_memset(node, 0, sizeof *node);
    node->cfg = *cfg;
    node->address = cairn_net_address();
    node->count = count;
    if (node->address >= cfg->modules)
        return CAIRN_EINVAL;
    for (uint8_t i = 0; i < count; i++) {
        cairn_ckpt_ctx_t *c = comps[i];
        cairn_ckpt_fn_t run = c->run;
        void *state = c->state;
        uint16_t size = c->size;
        uint32_t total = c->total;
        __builtin_memset(c, 0, sizeof *c);
        *c = (cairn_ckpt_ctx_t){.run = run, .state = state, .size = size, .total = total,
                                .node = node, .id = i};
        node->comps[i] = c;
    }
    bool master_here = node->address == cfg->master_module;
    cairn_ret_t r;
    /* The master first: the local slave says hello to it from its INIT. */
    if (master_here) {
        if ((r = cairn_task_create(cfg->master_id, cairn__ckpt_master, node, cfg->daemon_prio, NULL,
                                   0, 0)) != CAIRN_OK)
            return r;
    } else if ((r = cairn_task_create_remote(cfg->master_id, cfg->daemon_prio,
                                             cfg->master_module)) != CAIRN_OK) {
        return r;
    }
    for (uint8_t m = 0; m < cfg->modules; m++) {
        if (m == node->address)
            r = cairn_task_create(ck_slave(node, m), cairn__ckpt_slave, node, cfg->daemon_prio,
                                  NULL, 0, 0);
        else
            r = cairn_task_create_remote(ck_slave(node, m), cfg->daemon_prio, m);
        if (r != CAIRN_OK)
            return r;
    }
    if ((r = cairn_task_create(cfg->runner_id, cairn__ckpt_runner, node, cfg->runner_prio, NULL, 0,
                               0)) != CAIRN_OK)
        return r;
    if (master_here && (r = cairn_task_init(cfg->master_id, NULL, 0)) != CAIRN_OK)
        return r;
    if ((r = cairn_task_init(cfg->runner_id, NULL, 0)) != CAIRN_OK)
        return r;
    return cairn_task_init(ck_slave(node, node->address), NULL, 0);
}
