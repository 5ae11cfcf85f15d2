/*
 * Application descriptions on the wire (cairn/app_wire.h): written from a C description,
 * checked byte by byte before anything reads them, patched in place.
 */
#include "../kernel.h"

#include "cairn/app_wire.h"

static unsigned ids_bytes(unsigned nt, unsigned ng)
{
    return CAIRN_APP_WIRE_HEADER + nt + ng;
}

int cairn_app_wire_write(const cairn_app_desc_t *app, uint8_t *buf, size_t cap)
{
    if (!app || !app->tasks || app->num_tasks == 0 || app->num_tasks > CAIRN_MAX_TASKS ||
        app->num_groups > CAIRN_MAX_GROUPS || (app->num_members && !app->members))
        return CAIRN_EINVAL;
    size_t at = ids_bytes(app->num_tasks, app->num_groups);
    if (at > cap)
        return CAIRN_EFULL;
    buf[0] = CAIRN_APP_WIRE_RELATIVE;
    buf[1] = app->num_tasks;
    buf[2] = app->num_groups;
    buf[3] = app->num_members;
    __builtin_memset(buf + CAIRN_APP_WIRE_HEADER, 0, at - CAIRN_APP_WIRE_HEADER);
    for (const cairn_task_desc_t *d = app->tasks; d < app->tasks + app->num_tasks; d++) {
        if (d->init_len > 0xFFu || (d->num_out && !d->out) || (d->init_len && !d->init))
            return CAIRN_EINVAL;
        size_t routes = (size_t)d->num_out * CAIRN_APP_WIRE_ROUTE;
        if (at + CAIRN_APP_WIRE_TASK + routes + d->init_len > cap)
            return CAIRN_EFULL;
        uint8_t *t = buf + at;
        t[0] = d->prog;
        t[1] = d->prio;
        t[2] = d->flags;
        t[3] = d->module;
        t[4] = d->num_out;
        t[5] = (uint8_t)d->init_len;
        at += CAIRN_APP_WIRE_TASK;
        if (routes)
            __builtin_memcpy(buf + at, d->out, routes);
        at += routes;
        if (d->init_len)
            __builtin_memcpy(buf + at, d->init, d->init_len);
        at += d->init_len;
    }
    size_t members = (size_t)app->num_members * CAIRN_APP_WIRE_MEMBER;
    if (at + members > cap)
        return CAIRN_EFULL;
    if (members)
        __builtin_memcpy(buf + at, app->members, members);
    at += members;
    if (at > 0xFFFFu)
        return CAIRN_EINVAL;
    return (int)at;
}

/* A route of a description with nt tasks and ng groups (as cairn_app_start checks it). */
static bool route_ok(unsigned nt, unsigned ng, const uint8_t *r)
{
    unsigned kind = r[0], target = r[1];
    switch (kind) {
    case CAIRN_DST_NONE: return true;
    case CAIRN_DST_GROUP: return target < ng;
    case CAIRN_DST_TASK: return target < nt && cairn__in_port_ok(r[2]);
    case CAIRN_DST_GLOBAL: return target - 1u < CAIRN_MAX_TASKS && cairn__in_port_ok(r[2]);
    }
    return false;
}

/* Each of n IDs in 1..max, no two alike. */
static bool ids_ok(const uint8_t *id, unsigned n, unsigned max)
{
    uint32_t seen = 0;
    for (unsigned i = 0; i < n; i++) {
        if (id[i] - 1u >= max || ((seen >> id[i]) & 1u))
            return false;
        seen |= 1u << id[i];
    }
    return true;
}

_Static_assert(CAIRN_MAX_TASKS < 32 && CAIRN_MAX_GROUPS < 32, "ids_ok keeps a bit per ID");

cairn_ret_t cairn_app_wire_parse(const uint8_t *bytes, size_t len, uint8_t num_images,
                                 cairn_app_wire_t *w)
{
    if (!bytes || !w || len < CAIRN_APP_WIRE_HEADER || len > 0xFFFFu)
        return CAIRN_EINVAL;
    unsigned state = bytes[0], nt = bytes[1], ng = bytes[2], nm = bytes[3];
    if ((state != CAIRN_APP_WIRE_RELATIVE && state != CAIRN_APP_WIRE_PATCHED) || nt == 0 ||
        nt > CAIRN_MAX_TASKS || ng > CAIRN_MAX_GROUPS)
        return CAIRN_EINVAL;
    size_t at = ids_bytes(nt, ng);
    if (at > len)
        return CAIRN_EINVAL;
    bool patched = state == CAIRN_APP_WIRE_PATCHED;
    if (patched && (!ids_ok(bytes + CAIRN_APP_WIRE_HEADER, nt, CAIRN_MAX_TASKS) ||
                    !ids_ok(bytes + CAIRN_APP_WIRE_HEADER + nt, ng, CAIRN_MAX_GROUPS)))
        return CAIRN_EINVAL;
    for (unsigned i = 0; i < nt; i++) {
        if (at + CAIRN_APP_WIRE_TASK > len)
            return CAIRN_EINVAL;
        const uint8_t *t = bytes + at;
        w->task_at[i] = (uint16_t)at;
        if (t[0] >= num_images || t[1] > CAIRN_PRIO_MAX)
            return CAIRN_EINVAL;
        at += CAIRN_APP_WIRE_TASK;
        if (at + (size_t)t[4] * CAIRN_APP_WIRE_ROUTE + t[5] > len)
            return CAIRN_EINVAL;
        for (unsigned k = 0; k < t[4]; k++, at += CAIRN_APP_WIRE_ROUTE)
            if (!route_ok(nt, ng, bytes + at))
                return CAIRN_EINVAL;
        at += t[5];
    }
    if (at + (size_t)nm * CAIRN_APP_WIRE_MEMBER != len)
        return CAIRN_EINVAL;
    w->members_at = (uint16_t)at;
    for (const uint8_t *m = bytes + at; m < bytes + len; m += CAIRN_APP_WIRE_MEMBER)
        if (m[0] >= ng || m[1] >= nt || !cairn__in_port_ok(m[2]))
            return CAIRN_EINVAL;
    w->bytes = bytes;
    w->len = (uint16_t)len;
    w->num_tasks = (uint8_t)nt;
    w->num_groups = (uint8_t)ng;
    w->num_members = (uint8_t)nm;
    w->patched = patched;
    return CAIRN_OK;
}

void cairn_app_wire_task(const cairn_app_wire_t *w, unsigned i, cairn_task_desc_t *d)
{
    const uint8_t *t = w->bytes + w->task_at[i];
    d->prog = t[0];
    d->prio = t[1];
    d->flags = t[2];
    d->module = t[3];
    d->num_out = t[4];
    d->init_len = t[5];
    d->out = t[4] ? (const cairn_app_route_t *)(const void *)(t + CAIRN_APP_WIRE_TASK) : 0;
    d->init = t[5] ? t + CAIRN_APP_WIRE_TASK + (size_t)t[4] * CAIRN_APP_WIRE_ROUTE : 0;
}

const cairn_member_desc_t *cairn_app_wire_member(const cairn_app_wire_t *w, unsigned j)
{
    return (const cairn_member_desc_t *)(const void *)(w->bytes + w->members_at +
                                                        (size_t)j * CAIRN_APP_WIRE_MEMBER);
}

cairn_task_id_t cairn_app_wire_task_id(const cairn_app_wire_t *w, unsigned i)
{
    return w->bytes[CAIRN_APP_WIRE_HEADER + i];
}

uint8_t cairn_app_wire_group_id(const cairn_app_wire_t *w, unsigned j)
{
    return w->bytes[CAIRN_APP_WIRE_HEADER + w->num_tasks + j];
}

void cairn_app_wire_patch(uint8_t *bytes, cairn_app_wire_t *w, const cairn_task_id_t *ids,
                          const uint8_t *gids)
{
    __builtin_memcpy(bytes + CAIRN_APP_WIRE_HEADER, ids, w->num_tasks);
    if (w->num_groups)
        __builtin_memcpy(bytes + CAIRN_APP_WIRE_HEADER + w->num_tasks, gids, w->num_groups);
    bytes[0] = CAIRN_APP_WIRE_PATCHED;
    w->bytes = bytes;
    w->patched = true;
}
