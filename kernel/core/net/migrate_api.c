/*
 * The task migrator's API (cairn/migrate.h): its start, a REQUEST made by a task, the block a
 * SERIALIZE handler hands over, the statistics.
 */
#include "migrator_internal.h"

/* Every module but this one, computed once (cairn_migrate_start): each check that every
 * module answered read the controller's module count again, the source's answer to
 * DESERIALIZED among them. */
static uint32_t others_of(unsigned n, uint8_t address)
{
    uint32_t m = (n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1u);
    return m & ~(1u << address);
}

cairn_ret_t cairn_migrate_start(const cairn_migrate_config_t *cfg)
{
    if (!cairn_k.net)
        return CAIRN_ENOROUTE;
    if (!cfg || !cfg->retransmit_ticks || !cfg->tries || (cfg->count && !cfg->tasks))
        return CAIRN_EINVAL;
    cairn_ret_t r = cairn_net_reliable_start(cfg->retransmit_ticks);
    if (r != CAIRN_OK)
        return r;
    if (!cairn_net.mig) {
        cairn_mig_state_t *m = cairn_malloc(sizeof *m);
        if (!m)
            return CAIRN_ENOMEM;
        cairn_heap_set_owner(m, CAIRN_TASK_NONE);
        __builtin_memset(m, 0, sizeof *m);
        cairn_net.mig = m;
    }
    MIG.cfg = *cfg;
    cairn__mig_spare();
    MIG.others = others_of(cairn_bus_modules(), cairn_net.address);
    MIG.commits = cairn__mig_record_open(cairn_net.rel->epoch);
    return CAIRN_OK;
}

/* The migrator's state changes in the bus manager only (it preempts every task): a
 * REQUEST made by a task reaches it as a message (payload: task, module). */
cairn_ret_t cairn_migrate(cairn_task_id_t task, uint8_t module)
{
    if (!on() || task < 1 || task > CAIRN_MAX_TASKS || module >= cairn_bus_modules())
        return CAIRN_EINVAL;
    uint8_t *req = cairn_malloc(2);
    if (!req)
        return CAIRN_ENOMEM;
    req[0] = task;
    req[1] = module;
    return cairn_post(CAIRN_TASK_NET, CAIRN_MIG_PORT_REQUEST, req, 2);
}

cairn_ret_t cairn__mig_request_msg(const cairn_msg_t *msg)
{
    if (!on() || msg->len != 2)
        return CAIRN_EINVAL;
    const uint8_t *req = msg->payload;
    return cairn__mig_take_or_forward(req[0], req[1], 0);
}

cairn_ret_t cairn_migrate_state(void *block, size_t len)
{
    if (!on() || !MIG.in_serialize || cairn_current_task() != MIG.task || len > 0xFFFFu)
        return CAIRN_EINVAL;
    MIG.handed = block;
    MIG.handed_len = (uint16_t)len;
    return CAIRN_OK;
}

void cairn_migrate_stats(cairn_migrate_stats_t *st)
{
    if (!on()) {
        __builtin_memset(st, 0, sizeof *st);
        return;
    }
    *st = MIG.stats;
    st->busy = in_migration(cairn_net.mig) ||
               MIG.deferred_task;
}
