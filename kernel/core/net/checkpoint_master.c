/*
 * Checkpoint migration: the master daemon (the paper's M_daemon; docs/checkpoint.md, "The
 * master daemon"). It admits computations and places them, keeps the migration table
 * (computation -> module, progress, speed, size) and the modules' clocks and loads, and
 * decides: at each load report it asks the break-even policy whether a module would finish
 * the computation sooner, cost included. It is the one place that says where a computation
 * lives: it confirms a restart to the source (which then frees its copy) and drops the
 * extra copy when a restart and a source's timeout cross.
 */
#include "checkpoint_msg.h"

#include "cairn/trace.h"

#define NS_PER_S 1000000000ull

static void tell(cairn_ckpt_node_t *n, uint8_t module, uint8_t type, uint8_t id, uint8_t dst)
{
    struct ck_msg m = {.type = type, .id = id, .dst = dst};
    (void)cairn__ckpt_tell(ck_slave(n, module), &m);
}

/* Computations running on (or moving to) module m. */
static unsigned load(const cairn_ckpt_node_t *n, uint8_t m)
{
    unsigned k = 0;
    for (uint8_t i = 0; i < n->count; i++) {
        const cairn_ckpt_entry_t *e = &n->table[i];
        if ((e->state == CAIRN_CKPT_E_RUNNING && e->module == m) ||
            (e->state == CAIRN_CKPT_E_MIGRATING && (e->module == m || e->dst == m)))
            k++;
    }
    return k;
}

/* The case for moving e to module m: each module's clock shared by its computations. */
static cairn_ckpt_case_t case_for(const cairn_ckpt_node_t *n, const cairn_ckpt_entry_t *e, uint8_t m)
{
    unsigned here = load(n, e->module);
    return (cairn_ckpt_case_t){
        .remaining_units = e->total > e->done ? e->total - e->done : 0,
        .cycles_per_unit = e->cycles_per_unit,
        .src_hz = n->clock_hz[e->module] / (here ? here : 1u),
        .dst_hz = n->clock_hz[m] / (load(n, m) + 1u),
        .size = e->size,
        .cost_base_ns = n->cfg.cost_base_ns,
        .cost_per_byte_ps = n->cfg.cost_per_byte_ps,
    };
}

static void decide(cairn_ckpt_node_t *n, uint8_t id)
{
    cairn_ckpt_entry_t *e = &n->table[id];
    if (e->state != CAIRN_CKPT_E_RUNNING || !e->cycles_per_unit || e->done < e->frozen_until ||
        !n->clock_hz[e->module])
        return;
    cairn_ckpt_verdict_t best = {.migrate = false};
    uint8_t to = e->module;
    for (uint8_t m = 0; m < n->cfg.modules; m++) {
        if (m == e->module || !n->clock_hz[m])
            continue;
        cairn_ckpt_case_t c = case_for(n, e, m);
        if (c.dst_hz <= c.src_hz)
            continue; /* no faster: nothing to weigh */
        cairn_ckpt_verdict_t v;
        cairn_ckpt_decide(&c, &v);
        if (to == e->module || v.go_ns < best.go_ns) {
            best = v;
            to = m;
        }
    }
    if (to == e->module)
        return; /* nowhere faster to go */
    e->predicted_stay_ns = best.stay_ns;
    e->predicted_go_ns = best.go_ns;
    if (!best.migrate) {
        if (e->stays < UINT8_MAX)
            e->stays++;
        CAIRN_TRACE(CAIRN_EV_CKPT_STAY, id, to);
        return;
    }
    e->state = CAIRN_CKPT_E_MIGRATING;
    e->dst = to;
    CAIRN_TRACE(CAIRN_EV_CKPT_REQUEST, id, (unsigned)e->module << 8 | to);
    tell(n, e->module, CK_MIGRATE, id, to);
}

/* A restart confirmed: the migration's measured cost gives its freezing time, during
 * which the master moves the computation no further (the paper's use of it). */
static void commit(cairn_ckpt_node_t *n, uint8_t id, uint32_t cost_ns)
{
    cairn_ckpt_entry_t *e = &n->table[id];
    uint8_t src = e->module;
    cairn_ckpt_case_t c = case_for(n, e, e->dst);
    c.cost_base_ns = cost_ns;
    c.cost_per_byte_ps = 0;
    cairn_ckpt_verdict_t v;
    cairn_ckpt_decide(&c, &v);
    e->cost_ns = cost_ns;
    e->freeze_ns = v.freeze_ns;
    e->module = e->dst;
    e->state = CAIRN_CKPT_E_RUNNING;
    e->migrations++;
    uint64_t freeze_units = UINT32_MAX;
    if (v.freeze_ns != UINT64_MAX && e->cycles_per_unit)
        freeze_units = v.freeze_ns * c.dst_hz / NS_PER_S / e->cycles_per_unit;
    e->frozen_until = freeze_units >= UINT32_MAX - e->done ? UINT32_MAX : e->done + (uint32_t)freeze_units;
    tell(n, src, CK_CONFIRM, id, e->module);
}

static void handle(cairn_ckpt_node_t *n, const struct ck_msg *m)
{
    if (m->type == CK_HELLO) {
        if (m->module < CAIRN_CKPT_MODULES)
            n->clock_hz[m->module] = m->a;
        return;
    }
    if (m->id >= n->count || m->module >= n->cfg.modules) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, m->id);
        return;
    }
    cairn_ckpt_entry_t *e = &n->table[m->id];
    switch (m->type) {
    case CK_LOAD:
        if (e->state == CAIRN_CKPT_E_FREE || e->state == CAIRN_CKPT_E_DONE || m->module != e->module)
            break; /* a stale copy's report */
        e->done = m->a;
        e->total = m->b;
        e->size = m->size;
        if (m->c)
            e->cycles_per_unit = m->c;
        decide(n, m->id);
        return;
    case CK_RESTARTED:
        if (e->state == CAIRN_CKPT_E_MIGRATING && m->module == e->dst) {
            commit(n, m->id, m->a);
            return;
        }
        /* The source resumed first and kept it: the late copy goes. */
        if (m->module != e->module) {
            tell(n, m->module, CK_DISCARD, m->id, 0);
            return;
        }
        break;
    case CK_RESUMED:
        if (e->state == CAIRN_CKPT_E_MIGRATING && m->module == e->module) {
            e->state = CAIRN_CKPT_E_RUNNING;
            e->resumes++;
            return;
        }
        /* Committed elsewhere meanwhile: the resumed copy goes. */
        if (m->module != e->module) {
            tell(n, m->module, CK_DISCARD, m->id, 0);
            return;
        }
        break;
    case CK_DONE:
        if (m->module != e->module)
            break;
        e->state = CAIRN_CKPT_E_DONE;
        if (n->cfg.on_done)
            n->cfg.on_done(n, m->id, m->module);
        return;
    default:
        break;
    }
    cairn__ckpt_bad(n, CAIRN_CKPT_ERR_UNEXPECTED, m->id);
}

cairn_ret_t cairn__ckpt_master(void *state, cairn_msg_t *msg)
{
    cairn_ckpt_node_t *n = state;
    if (msg->port != CAIRN_CKPT_PORT)
        return CAIRN_OK;
    if (msg->len != sizeof(struct ck_msg)) {
        cairn__ckpt_bad(n, CAIRN_CKPT_ERR_BAD, 0);
        return CAIRN_OK;
    }
    handle(n, msg->payload);
    return CAIRN_OK;
}

cairn_ret_t cairn_ckpt_launch(cairn_ckpt_node_t *node, uint8_t id, uint8_t module)
{
    if (!node || node->address != node->cfg.master_module || id >= node->count ||
        module >= node->cfg.modules)
        return CAIRN_EINVAL;
    cairn_ckpt_entry_t *e = &node->table[id];
    if (e->state == CAIRN_CKPT_E_RUNNING || e->state == CAIRN_CKPT_E_MIGRATING)
        return CAIRN_EBUSY;
    *e = (cairn_ckpt_entry_t){.state = CAIRN_CKPT_E_RUNNING, .module = module,
                              .size = node->comps[id]->size, .total = node->comps[id]->total};
    struct ck_msg m = {.type = CK_START, .id = id};
    return cairn__ckpt_tell(ck_slave(node, module), &m);
}
