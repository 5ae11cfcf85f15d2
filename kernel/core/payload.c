/*
 * Cairn OS payload ownership: the send-side claim of heap payloads (building the
 * message that carries them), their release after the last receiver, and
 * cairn_take_msg (CoMOS sched_take_msg).
 *
 * A heap payload belongs to the message (owner 0, the kernel) from the send on.
 * Several messages share one payload only after a multicast; a payload is freed
 * when the message that holds it is done with it and no other queued message or
 * execution-stack frame holds it (a scan of the short queue and stack).
 */
#include "kernel.h"

#include "cairn/mem.h"

void cairn__msg_new(cairn_frame_t *f, cairn_task_id_t src, const void *payload, size_t len)
{
    /* Field by field: a compound literal costs a memset call. */
    cairn_msg_t *m = &f->msg;
    uint8_t flags = 0;
    /* Inside the heap at all (a quick test that passes static payloads by)? */
    if (payload && (uintptr_t)payload - (uintptr_t)cairn_k.heap.base < cairn_k.heap.size &&
        cairn_alloc_size(payload) != 0) {
        const cairn_tcb_t *t = cairn__tcb(src);
        if (!t || t->state != payload) { /* a task's own state is never given away */
            cairn_heap_set_owner((void *)(uintptr_t)payload, CAIRN_TASK_NONE);
            flags = CAIRN_MSG_HEAP;
        }
    }
    m->next = 0;
    m->payload = payload;
    m->len = (uint16_t)len;
    m->port = 0;
    m->src = src;
    m->prio = 0;
    m->dst = 0;
    m->flags = flags;
    m->reserved = 0;
    cairn__policy_msg_init(m);
}

void cairn__release(const cairn_msg_t *m)
{
    if ((m->flags & (CAIRN_MSG_HEAP | CAIRN_MSG_TAKEN)) != CAIRN_MSG_HEAP)
        return;
    if (!cairn__payload_shared(m->payload, m))
        cairn_free((void *)(uintptr_t)m->payload);
}

void *cairn_take_msg(cairn_msg_t *msg)
{
    if (!msg || !msg->payload)
        return 0;
    if (msg->flags & CAIRN_MSG_TAKEN)
        return (void *)(uintptr_t)msg->payload;
    if ((msg->flags & CAIRN_MSG_HEAP) && !cairn__payload_shared(msg->payload, msg)) {
        cairn_heap_set_owner((void *)(uintptr_t)msg->payload, cairn_current_task());
        msg->flags |= CAIRN_MSG_TAKEN;
        return (void *)(uintptr_t)msg->payload;
    }
    if (msg->len == 0)
        return 0;
    uint8_t *copy = cairn_malloc(msg->len); /* owned by the running task */
    if (!copy) {
        cairn_k.stats.take_nomem++;
        return 0;
    }
    __builtin_memcpy(copy, msg->payload, msg->len);
    /* A shared heap payload stays with the other messages that hold it. */
    msg->payload = copy;
    msg->flags = (uint8_t)((msg->flags & ~CAIRN_MSG_HEAP) | CAIRN_MSG_TAKEN);
    return copy;
}
