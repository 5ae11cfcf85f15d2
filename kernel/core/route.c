/*
 * Cairn OS output-port routing: each task's table maps an output port to
 * (destination task, input port) or to a local multicast group. The tables are
 * in RAM, so connections can change at run time; a change takes effect for the
 * next send (messages already queued keep their destination).
 */
#include "kernel.h"

static cairn_route_t *route_of(cairn_task_id_t task, cairn_port_t out_port)
{
    cairn_tcb_t *t = cairn__tcb(task);
    return (t && out_port < t->num_out) ? &t->routes[out_port] : 0;
}

cairn_ret_t cairn_route_set(cairn_task_id_t task, cairn_port_t out_port, cairn_task_id_t dst,
                            cairn_port_t in_port)
{
    cairn_route_t *r = route_of(task, out_port);
    if (!r)
        return CAIRN_EINVAL;
    if (dst == CAIRN_TASK_MCAST) {
        if (in_port < 1 || in_port > CAIRN_MAX_GROUPS)
            return CAIRN_EINVAL;
    } else if (dst == CAIRN_TASK_NONE) {
        in_port = 0;
    } else if (dst > CAIRN_MAX_TASKS || in_port >= CAIRN_PORT_LIMIT || in_port == CAIRN_PORT_INIT) {
        return CAIRN_EINVAL;
    }
    *r = CAIRN_ROUTE(dst, in_port);
    return CAIRN_OK;
}

cairn_ret_t cairn_route_get(cairn_task_id_t task, cairn_port_t out_port, cairn_route_t *route)
{
    const cairn_route_t *r = route_of(task, out_port);
    if (!r || !route)
        return CAIRN_EINVAL;
    route->task = r->task; /* not a struct copy: that is a memcpy call */
    route->port = r->port;
    return CAIRN_OK;
}

void cairn__routes_forget(cairn_task_id_t id)
{
    for (unsigned i = 1; i <= CAIRN_MAX_TASKS; i++) {
        cairn_tcb_t *t = cairn_k.tasks[i];
        if (!t)
            continue;
        for (unsigned o = 0; o < t->num_out; o++)
            if (t->routes[o].task == id)
                t->routes[o] = CAIRN_ROUTE_NONE;
    }
}
