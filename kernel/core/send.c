/*
 * Cairn OS sending: output port -> route -> delivery (or multicast).
 * Payload ownership rules: cairn/msg.h.
 */
#include "kernel.h"

/* A failed send still gives a heap payload away: free it. */
static cairn_ret_t fail(cairn_ret_t r, const void *payload, uint8_t flags)
{
    cairn_msg_t m = {.payload = payload, .flags = flags};
    cairn__release(&m);
    return r;
}

cairn_ret_t cairn_send_from(cairn_task_id_t from, cairn_port_t out_port, const void *payload,
                            size_t len)
{
    uint8_t flags = cairn__claim_payload(payload, from);
    cairn_tcb_t *t = cairn__tcb(from);
    if (!t || out_port >= t->num_out || len > CAIRN_MSG_MAX_LEN)
        return fail(CAIRN_EINVAL, payload, flags);
    cairn_route_t r = t->routes[out_port];
    if (r.task == CAIRN_TASK_MCAST)
        return cairn__mcast_send(from, r.port, payload, (uint16_t)len, flags);
    if (r.task == CAIRN_TASK_NONE) {
        cairn_k.stats.no_route++;
        CAIRN_TRACE(CAIRN_EV_DROP, from, out_port);
        return fail(CAIRN_ENOROUTE, payload, flags);
    }
    cairn_ret_t ret = cairn__deliver(from, r.task, r.port, payload, (uint16_t)len, flags);
    return ret == CAIRN_OK ? ret : fail(ret, payload, flags);
}

cairn_ret_t cairn__send_general(cairn_port_t out_port, const void *payload, size_t len)
{
    return cairn_send_from(cairn_current_task(), out_port, payload, len);
}

#ifndef CAIRN_PORT_FAST_SEND
/* Ports without an assembly fast path (the host): the general path, which has the
 * same result as arch/armv6m/fast.c's. */
cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len)
{
    return cairn__send_general(out_port, payload, len);
}
#endif

cairn_ret_t cairn_post(cairn_task_id_t dst, cairn_port_t in_port, const void *payload, size_t len)
{
    cairn_task_id_t src = cairn_current_task();
    uint8_t flags = cairn__claim_payload(payload, src);
    if (in_port == CAIRN_PORT_INIT || in_port >= CAIRN_PORT_LIMIT || len > CAIRN_MSG_MAX_LEN)
        return fail(CAIRN_EINVAL, payload, flags);
    cairn_ret_t ret = cairn__deliver(src, dst, in_port, payload, (uint16_t)len, flags);
    return ret == CAIRN_OK ? ret : fail(ret, payload, flags);
}
