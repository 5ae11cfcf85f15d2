/*
 * Cairn OS application manager (CoMOS V-A.3): instantiation, then initialisation.
 *
 * The manager runs as a kernel level above every task priority, so nothing it
 * sends runs before it is done: first every task is created (IDs patched from
 * relative to global), routes and groups are connected, then INIT is sent to
 * each task in description order. The INITs (and any message a task's INIT
 * handler sends to a task that has not handled its own INIT yet, which is
 * buffered) run when the manager's level is popped.
 */
#include "kernel.h"

#include "cairn/app.h"
#include "cairn/mem.h"

/* A route of a description with nt tasks and ng groups. */
static bool route_ok(unsigned nt, unsigned ng, const cairn_app_route_t *r)
{
    unsigned k = r->kind, t = r->target;
    if (k == CAIRN_DST_NONE)
        return true;
    if (k == CAIRN_DST_GROUP)
        return t < ng;
    if (k == CAIRN_DST_GLOBAL) { /* a global ID, 1..CAIRN_MAX_TASKS */
        t--;
        nt = CAIRN_MAX_TASKS;
    } else if (k != CAIRN_DST_TASK) {
        return false;
    }
    return t < nt && cairn__in_port_ok(r->port);
}

static bool app_ok(const cairn_app_desc_t *app)
{
    if (!app || !app->tasks || app->num_tasks == 0 || !app->programs ||
        (app->num_members && !app->members))
        return false;
    unsigned nt = app->num_tasks, ng = app->num_groups;
    for (const cairn_task_desc_t *d = app->tasks; d < app->tasks + nt; d++) {
        if ((!cairn_k.net && d->module != 0) || d->prog >= app->num_programs ||
            !app->programs[d->prog].handler ||
            d->prio > CAIRN_PRIO_MAX || (d->num_out && !d->out) || (d->init_len && !d->init))
            return false;
        for (const cairn_app_route_t *r = d->out; r < d->out + d->num_out; r++)
            if (!route_ok(nt, ng, r))
                return false;
    }
    for (const cairn_member_desc_t *m = app->members; m < app->members + app->num_members; m++)
        if (m->group >= ng || m->task >= nt || !cairn__in_port_ok(m->port))
            return false;
    return true;
}

/* Whether a task of a description lives on this module. */
static bool local(const cairn_task_desc_t *d)
{
    return !cairn_k.net || d->module == cairn_k.net->address();
}

/* Creates task i of app as global ID id[i], its routes patched to global IDs; a task of
 * another module as a remote TCB. */
static cairn_ret_t create(const cairn_app_desc_t *app, unsigned i, const cairn_task_id_t *id,
                          const uint8_t *gid)
{
    const cairn_task_desc_t *d = &app->tasks[i];
    if (!local(d))
        return cairn_k.net->create_remote(id[i], d->prio, d->module);
    const cairn_program_t *prog = &app->programs[d->prog];
    uint8_t *state = 0;
    if (prog->state_size) {
        state = cairn_malloc(prog->state_size);
        if (!state)
            return CAIRN_ENOMEM;
        __builtin_memset(state, 0, prog->state_size);
    }
    cairn_ret_t r =
        cairn_task_create(id[i], prog->handler, state, d->prio, 0, d->num_out, d->flags);
    if (r != CAIRN_OK) {
        cairn_free(state);
        return r;
    }
    if (state)
        cairn_heap_set_owner(state, id[i]); /* freed with the task */
    cairn_route_t *rt = cairn_k.tasks[id[i]]->routes;
    for (const cairn_app_route_t *o = d->out; o < d->out + d->num_out; o++, rt++) {
        uint8_t t = o->target;
        if (o->kind == CAIRN_DST_TASK)
            t = id[t];
        else if (o->kind == CAIRN_DST_GROUP)
            t = CAIRN_TASK_MCAST;
        uint8_t port = o->kind == CAIRN_DST_GROUP ? gid[o->target] : o->port;
        *rt = o->kind == CAIRN_DST_NONE ? CAIRN_ROUTE_NONE : CAIRN_ROUTE(t, port);
    }
    return CAIRN_OK;
}

cairn_ret_t cairn_app_start(const cairn_app_desc_t *app, cairn_task_id_t *ids)
{
    if (cairn_k.isr_depth)
        return CAIRN_EBUSY;
    if (!app_ok(app))
        return CAIRN_EINVAL;
    unsigned n = app->num_tasks, ng = app->num_groups;
    if (n > CAIRN_MAX_TASKS || ng > CAIRN_MAX_GROUPS)
        return CAIRN_EFULL;

    cairn_task_id_t id[CAIRN_MAX_TASKS];
    uint8_t gid[CAIRN_MAX_GROUPS];
    unsigned tasks = 0, groups = 0, created = 0;
    cairn_ret_t r = CAIRN_EFULL;

    cairn_frame_t f; /* the manager's level; its message is empty */
    cairn__msg_new(&f, CAIRN_TASK_NONE, 0, 0);
    f.tcb = 0;
    f.prio = PRIO_KERNEL;
    cairn__push(&f);

    /* Patch relative IDs to free global ones. */
    for (unsigned g = 1; g <= CAIRN_MAX_TASKS && tasks < n; g++)
        if (!cairn__id_taken((cairn_task_id_t)g))
            id[tasks++] = (cairn_task_id_t)g;
    while (groups < ng && (gid[groups] = cairn_group_alloc()) != 0)
        groups++;
    if (tasks < n || groups < ng)
        goto fail;

    /* Instantiation. */
    for (; created < n; created++)
        if ((r = create(app, created, id, gid)) != CAIRN_OK)
            goto fail;
    for (const cairn_member_desc_t *m = app->members; m < app->members + app->num_members; m++)
        if (local(&app->tasks[m->task]) &&
            (r = cairn_group_join(gid[m->group], id[m->task], m->port)) != CAIRN_OK)
            goto fail;

    /* Initialisation: queued behind the manager's level. */
    for (unsigned i = 0; i < n; i++)
        if (local(&app->tasks[i]) &&
            (r = cairn_task_init(id[i], app->tasks[i].init, app->tasks[i].init_len)) != CAIRN_OK)
            goto fail;

    cairn__pop(&f);
    for (unsigned i = 0; ids && i < n; i++)
        ids[i] = id[i];
    cairn_dispatch();
    return CAIRN_OK;

fail:
    for (unsigned i = 0; i < created; i++) {
        if (local(&app->tasks[i]))
            (void)cairn_task_kill(id[i]); /* not initialised: no FINAL */
        else
            (void)cairn_k.net->remove_remote(id[i]);
    }
    for (unsigned g = 0; g < groups; g++)
        cairn_group_free(gid[g]);
    cairn__pop(&f);
    return r;
}
