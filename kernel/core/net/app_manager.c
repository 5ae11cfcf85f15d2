/*
 * Cairn OS application manager task (cairn/appmgr.h, CoMOS V-A.3): a load's stages on
 * this module, whichever module loaded it. Instantiation creates the local tasks
 * (uninitialised), the remote TCBs and the local memberships from the patched
 * description; initialisation sends each local task INIT with its init string. A module
 * that is not the loading one takes a DESC, answers, and waits for INIT or DROP.
 */
#include "app_manager.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

static bool group_used(uint8_t g)
{
    return (cairn_k.groups_used >> (g - 1u)) & 1u;
}

/* Task i of the held load lives here. */
static bool local(const cairn_appmgr_t *s, const cairn_task_desc_t *d)
{
    return d->module == s->self;
}

/* Creates task i as its global ID, its routes patched; elsewhere a remote TCB. */
static cairn_ret_t create(cairn_appmgr_t *s, unsigned i)
{
    const cairn_app_wire_t *w = &s->w;
    cairn_task_desc_t d;
    cairn_app_wire_task(w, i, &d);
    cairn_task_id_t id = cairn_app_wire_task_id(w, i);
    if (!local(s, &d))
        return cairn_k.net && d.module < s->modules
                   ? cairn_k.net->create_remote(id, d.prio, d.module)
                   : CAIRN_EINVAL;
    const cairn_program_t *prog = &s->images[d.prog];
    if (!prog->handler)
        return CAIRN_EINVAL;
    uint8_t *state = 0;
    if (prog->state_size) {
        state = cairn_malloc(prog->state_size);
        if (!state)
            return CAIRN_ENOMEM;
        __builtin_memset(state, 0, prog->state_size);
    }
    cairn_ret_t r = cairn_task_create(id, prog->handler, state, d.prio, 0, d.num_out, d.flags);
    if (r != CAIRN_OK) {
        cairn_free(state);
        return r;
    }
    if (state)
        cairn_heap_set_owner(state, id); /* freed with the task */
    cairn_route_t *rt = cairn_k.tasks[id]->routes;
    for (const cairn_app_route_t *o = d.out; o < d.out + d.num_out; o++, rt++) {
        switch (o->kind) {
        case CAIRN_DST_TASK:
            *rt = CAIRN_ROUTE(cairn_app_wire_task_id(w, o->target), o->port);
            break;
        case CAIRN_DST_GROUP: *rt = CAIRN_ROUTE_GROUP(cairn_app_wire_group_id(w, o->target)); break;
        case CAIRN_DST_GLOBAL: *rt = CAIRN_ROUTE(o->target, o->port); break;
        default: *rt = CAIRN_ROUTE_NONE; break;
        }
    }
    return CAIRN_OK;
}

void cairn__appmgr_remove(cairn_appmgr_t *s)
{
    const cairn_app_wire_t *w = &s->w;
    for (unsigned i = 0; i < w->num_tasks; i++) {
        cairn_task_id_t id = cairn_app_wire_task_id(w, i);
        cairn_task_desc_t d;
        cairn_app_wire_task(w, i, &d);
        const cairn_tcb_t *t = cairn_k.tasks[id];
        if (local(s, &d) && t && t->handler == s->images[d.prog].handler)
            (void)cairn_task_kill(id);
        else if (!local(s, &d) && cairn_k.net && cairn_k.net->is_remote(id))
            (void)cairn_k.net->remove_remote(id);
    }
    for (unsigned j = 0; j < w->num_groups; j++)
        cairn_group_free(cairn_app_wire_group_id(w, j));
    s->stage = APP_NONE;
}

cairn_ret_t cairn__appmgr_instantiate(cairn_appmgr_t *s)
{
    const cairn_app_wire_t *w = &s->w;
    for (unsigned i = 0; i < w->num_tasks; i++)
        if (cairn__id_taken(cairn_app_wire_task_id(w, i)))
            return CAIRN_EBUSY;
    for (unsigned j = 0; j < w->num_groups; j++)
        if (group_used(cairn_app_wire_group_id(w, j)))
            return CAIRN_EBUSY;
    for (unsigned j = 0; j < w->num_groups; j++)
        cairn_k.groups_used |= 1u << (cairn_app_wire_group_id(w, j) - 1u);
    s->stage = APP_CREATED; /* from here a failure removes what was made */
    cairn_ret_t r = CAIRN_OK;
    for (unsigned i = 0; i < w->num_tasks && r == CAIRN_OK; i++)
        r = create(s, i);
    for (unsigned j = 0; j < w->num_members && r == CAIRN_OK; j++) {
        const cairn_member_desc_t *m = cairn_app_wire_member(w, j);
        cairn_task_desc_t d;
        cairn_app_wire_task(w, m->task, &d);
        if (local(s, &d))
            r = cairn_group_join(cairn_app_wire_group_id(w, m->group),
                                 cairn_app_wire_task_id(w, m->task), m->port);
    }
    if (r != CAIRN_OK)
        cairn__appmgr_remove(s);
    return r;
}

cairn_ret_t cairn__appmgr_initialise(cairn_appmgr_t *s)
{
    if (s->stage == APP_RUNNING)
        return CAIRN_OK;
    if (s->stage != APP_CREATED)
        return CAIRN_EINVAL;
    /* A kernel level: no INIT runs before every local task has been sent its own. */
    cairn_frame_t f;
    cairn__msg_new(&f, CAIRN_TASK_NONE, 0, 0);
    f.tcb = 0;
    f.prio = PRIO_KERNEL;
    cairn__push(&f);
    cairn_ret_t r = CAIRN_OK;
    const cairn_app_wire_t *w = &s->w;
    for (unsigned i = 0; i < w->num_tasks; i++) {
        cairn_task_desc_t d;
        cairn_app_wire_task(w, i, &d);
        if (!local(s, &d))
            continue;
        /* The init string in a block of its own: the held description may go first. */
        void *init = 0;
        if (d.init_len && !(init = cairn_malloc(d.init_len))) {
            r = CAIRN_ENOMEM;
            continue;
        }
        if (init)
            __builtin_memcpy(init, d.init, d.init_len);
        cairn_ret_t t = cairn_task_init(cairn_app_wire_task_id(w, i), init, d.init_len);
        if (t != CAIRN_OK && r == CAIRN_OK)
            r = t;
    }
    s->stage = APP_RUNNING;
    cairn__pop(&f);
    return r;
}

void cairn__appmgr_forget(cairn_appmgr_t *s)
{
    if (s->stage == APP_CREATED)
        cairn__appmgr_remove(s);
    cairn_free(s->peer);
    s->peer = 0;
    s->stage = APP_NONE;
}

/* This module's answer to step p[0] of the load whose head is p. */
static void answer(cairn_appmgr_t *s, const uint8_t *p, cairn_ret_t r)
{
    s->status = (int8_t)r;
    if (cairn__appmgr_queued(s->ack))
        return; /* the last answer still waits for the bus: the loader's resend gets this one */
    s->ack[0] = p[0];
    s->ack[1] = p[1];
    s->ack[2] = s->self;
    s->ack[3] = (uint8_t)(int8_t)r;
    s->ack[4] = p[3];
    (void)cairn__appmgr_to(p[2], CAIRN_APPMGR_PORT_ACK, s->ack, sizeof s->ack);
}

/* A PEER message from another module's manager. */
static void peer(cairn_appmgr_t *s, cairn_msg_t *msg)
{
    const uint8_t *p = msg->payload;
    if (!p || msg->len < CAIRN_APPMGR_PEER_HEAD || p[2] >= s->modules || p[2] == s->self)
        return;
    uint8_t kind = p[0], number = p[1], origin = p[2], epoch = p[3];
    bool same = s->peer && s->origin == origin && s->origin_epoch == epoch && s->number == number;
    if (kind == CAIRN_APPMGR_DROP) {
        if (same)
            cairn__appmgr_forget(s);
        return;
    }
    if (kind == CAIRN_APPMGR_INIT) {
        answer(s, p, same ? cairn__appmgr_initialise(s) : CAIRN_EINVAL);
        return;
    }
    if (kind != CAIRN_APPMGR_DESC)
        return;
    if (same) { /* sent again: our answer was lost */
        answer(s, p, s->status);
        return;
    }
    if (s->step || cairn__appmgr_queued(s->peer)) { /* its own load is still going out */
        answer(s, p, CAIRN_EBUSY);
        return;
    }
    if (s->peer && s->stage == APP_CREATED)
        cairn__appmgr_remove(s); /* an earlier load never initialised */
    cairn_free(s->peer);
    s->peer = 0;
    s->stage = APP_NONE;
    uint8_t *kept = cairn_take_msg(msg);
    cairn_ret_t r = kept ? CAIRN_OK : CAIRN_ENOMEM;
    if (kept) {
        s->peer = kept;
        s->peer_len = msg->len;
        s->origin = origin;
        s->origin_epoch = epoch;
        s->number = number;
        r = cairn_app_wire_parse(kept + CAIRN_APPMGR_PEER_HEAD, msg->len - CAIRN_APPMGR_PEER_HEAD,
                                 s->num_images, &s->w);
        if (r == CAIRN_OK && !s->w.patched)
            r = CAIRN_EINVAL;
        if (r == CAIRN_OK)
            r = cairn__appmgr_instantiate(s);
    }
    answer(s, p, r);
}

static cairn_ret_t appmgr_task(void *state, cairn_msg_t *msg)
{
    cairn_appmgr_t *s = state;
    switch (msg->port) {
    case CAIRN_APPMGR_PORT_LOAD: return cairn__appmgr_load(s, msg);
    case CAIRN_APPMGR_PORT_PEER: peer(s, msg); break;
    case CAIRN_APPMGR_PORT_ACK: cairn__appmgr_ack(s, msg); break;
    case CAIRN_PORT_TIMEOUT(CAIRN_APPMGR_TIMER): cairn__appmgr_timer(s); break;
    }
    return CAIRN_OK;
}

cairn_ret_t cairn_appmgr_start(const cairn_program_t *images, uint8_t num_images,
                               uint32_t retry_ticks, uint8_t tries)
{
    if (!images || !num_images || !retry_ticks || !tries)
        return CAIRN_EINVAL;
    uint8_t modules = cairn_k.net ? cairn_bus_modules() : 1u;
    if (modules == 0 || modules > CAIRN_APPMGR_MODULES)
        return CAIRN_EINVAL;
    cairn_appmgr_t *s = cairn_malloc(sizeof *s);
    if (!s)
        return CAIRN_ENOMEM;
    __builtin_memset(s, 0, sizeof *s);
    s->images = images;
    s->num_images = num_images;
    s->retry_ticks = retry_ticks;
    s->tries = tries;
    s->self = cairn_k.net ? cairn_k.net->address() : 0u;
    s->epoch = cairn_k.net ? cairn_bus_boot_epoch() : 0u;
    s->modules = modules;
    cairn_ret_t r =
        cairn_task_create(CAIRN_TASK_APPMGR, appmgr_task, s, CAIRN_APPMGR_PRIO, 0, 0, 0);
    if (r != CAIRN_OK) {
        cairn_free(s);
        return r;
    }
    cairn_heap_set_owner(s, CAIRN_TASK_NONE); /* the kernel's: kept across loads */
    return cairn_task_init(CAIRN_TASK_APPMGR, 0, 0);
}
