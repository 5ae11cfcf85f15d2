/*
 * Cairn OS sending: output port -> route -> delivery (or multicast).
 * Payload ownership rules: cairn/msg.h.
 */
#include "kernel.h"

/* Delivers f's message unless a check failed (r); a failed send still gives a
 * heap payload away: it is freed. */
static cairn_ret_t send(cairn_frame_t *f, cairn_ret_t r)
{
    if (r == CAIRN_OK)
        r = cairn__deliver(f);
    if (r != CAIRN_OK)
        cairn__release(&f->msg);
    return r;
}

/* The rest of a send on output port out_port of task from, f's message made. */
static inline cairn_ret_t route_send(cairn_frame_t *f, cairn_task_id_t from, cairn_port_t out_port,
                                     size_t len)
{
    cairn_tcb_t *t = cairn__tcb(from);
    if (!t || out_port >= t->num_out || len > CAIRN_MSG_MAX_LEN)
        return send(f, CAIRN_EINVAL);
    cairn_route_t r = t->routes[out_port];
    f->msg.dst = r.task;
    f->msg.port = r.port;
    if (r.task == CAIRN_TASK_MCAST)
        return cairn__mcast_send(f);
    /* An unconnected port (task 0, which never exists) is dropped by the delivery,
     * logged with the output port. */
    if (r.task == CAIRN_TASK_NONE)
        f->msg.port = out_port;
    return send(f, CAIRN_OK);
}

cairn_ret_t cairn_send_from(cairn_task_id_t from, cairn_port_t out_port, const void *payload,
                            size_t len)
{
    cairn_frame_t f;
    cairn__msg_new(&f, from, payload, len);
    return route_send(&f, from, out_port, len);
}

cairn_ret_t cairn__send_general(cairn_port_t out_port, const void *payload, size_t len)
{
    /* A thread's frame has a TCB without output ports: its sends all come here. */
    if (cairn_k.in_thread && !cairn_k.isr_depth)
        return cairn__thread_send(CAIRN_TASK_NONE, out_port, payload, len);
    return cairn_send_from(cairn_current_task(), out_port, payload, len);
}

#if CAIRN_POLICY != CAIRN_POLICY_FP
/* The deadline policies, on every port (the assembly hard-codes fixed priority's test): the
 * common case — a handler's send, not of a heap block, on a port routed to a local task —
 * skips the general path's layers and goes straight to the delivery, which stamps the
 * deadline, tests, and runs or queues. Anything else takes the general path; the result is
 * the same. */
cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len)
{
    const cairn_frame_t *top = cairn_k.top; /* NULL in an interrupt handler */
    const cairn_tcb_t *from = top ? top->tcb : 0;
    if (!from || cairn_k.in_thread || out_port >= from->num_out || len > CAIRN_MSG_MAX_LEN ||
        (uintptr_t)payload - (uintptr_t)cairn_k.heap.base < cairn_k.heap.size)
        return cairn__send_general(out_port, payload, len);
    cairn_route_t r = from->routes[out_port];
    if (!cairn__tcb_inline(r.task)) /* remote, unconnected, a group, or gone */
        return cairn__send_general(out_port, payload, len);
    cairn_frame_t f;
    cairn_msg_t *m = &f.msg;
    m->next = 0;
    m->payload = payload;
    m->len = (uint16_t)len;
    m->port = r.port;
    m->src = from->id;
    m->prio = 0;
    m->dst = r.task;
    m->flags = 0; /* no deadline of its own: the delivery's stamp gives the task's */
    m->reserved = 0;
    return cairn__deliver(&f);
}
#elif !defined(CAIRN_PORT_FAST_SEND)
/* Ports without an assembly fast path (the host): the general path, which has the same
 * result as arch/armv6m/fast.c's. */
cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len)
{
    return cairn__send_general(out_port, payload, len);
}
#endif

cairn_ret_t cairn_post(cairn_task_id_t dst, cairn_port_t in_port, const void *payload, size_t len)
{
    if (cairn_k.in_thread && !cairn_k.isr_depth)
        return cairn__thread_send(dst, in_port, payload, len);
    return cairn__post(dst, in_port, payload, len);
}

cairn_ret_t cairn__post(cairn_task_id_t dst, cairn_port_t in_port, const void *payload, size_t len)
{
    cairn_frame_t f;
    cairn__msg_new(&f, cairn_current_task(), payload, len);
    f.msg.dst = dst;
    f.msg.port = in_port;
    bool ok = cairn__in_port_ok(in_port) && len <= CAIRN_MSG_MAX_LEN;
    return send(&f, ok ? CAIRN_OK : CAIRN_EINVAL);
}

#if CAIRN_POLICY != CAIRN_POLICY_FP
/* The message's own deadline, rel ticks from now (cairn/policy.h): it wins over the
 * receiver's relative deadline. */
static bool give_deadline(cairn_frame_t *f, uint32_t rel)
{
    f->msg.deadline = arch_timer_now() + rel;
    f->msg.flags |= CAIRN_MSG_DEADLINE;
    return rel - 1u < CAIRN_DEADLINE_MAX;
}

cairn_ret_t cairn_send_deadline(cairn_port_t out_port, const void *payload, size_t len, uint32_t rel)
{
    cairn_frame_t f;
    cairn__msg_new(&f, cairn_current_task(), payload, len);
    if (!give_deadline(&f, rel))
        return send(&f, CAIRN_EINVAL);
    if (cairn_k.in_thread && !cairn_k.isr_depth)
        return send(&f, CAIRN_EBUSY); /* a thread's sends are queued without a deadline */
    return route_send(&f, cairn_current_task(), out_port, len);
}

cairn_ret_t cairn_post_deadline(cairn_task_id_t dst, cairn_port_t in_port, const void *payload,
                                size_t len, uint32_t rel)
{
    cairn_frame_t f;
    cairn__msg_new(&f, cairn_current_task(), payload, len);
    f.msg.dst = dst;
    f.msg.port = in_port;
    bool ok = give_deadline(&f, rel) && cairn__in_port_ok(in_port) && len <= CAIRN_MSG_MAX_LEN;
    return send(&f, ok ? CAIRN_OK : CAIRN_EINVAL);
}
#endif
