/*
 * Cairn OS message pool and queue.
 *
 * The pool is CAIRN_MSG_POOL messages carved from the heap at start-up, on a
 * free list. The queue is one singly-linked list in the policy's order (policy.h:
 * fixed priority by destination priority, high first; EDF by deadline; CSD by queue,
 * then deadline or priority); a new
 * message goes after every message it does not outrank, so creation order holds
 * among equals (a queued message's key changes only by policy.c's re-key, which
 * takes the message out and puts it back by this rule). Messages whose task
 * cannot run yet (on the stack, or not initialised) stay in place and are
 * skipped, so they keep their order. Interrupt handlers queue too, hence the
 * arch_irq_save sections.
 */
#include "kernel.h"

#include "cairn/mem.h"

_Static_assert(CAIRN_MSG_POOL >= 1 && CAIRN_MSG_POOL <= 4096, "message pool size");

cairn_ret_t cairn__pool_init(void)
{
    cairn_msg_t *pool = cairn_malloc(CAIRN_MSG_POOL * sizeof(cairn_msg_t));
    if (!pool)
        return CAIRN_ENOMEM;
    cairn_heap_set_owner(pool, CAIRN_TASK_NONE); /* the kernel's */
    for (unsigned i = CAIRN_MSG_POOL; i-- > 0;) {
        pool[i].next = cairn_k.free;
        cairn_k.free = &pool[i];
    }
    return CAIRN_OK;
}

cairn_ret_t cairn__enqueue(const cairn_msg_t *m)
{
    cairn_msg_t *q = cairn_k.free;
    if (!q) {
        cairn_k.stats.pool_full++;
        CAIRN_TRACE(CAIRN_EV_FULL, m->dst, m->port);
        return CAIRN_EFULL;
    }
    cairn_k.free = q->next;
    *q = *m;

    cairn_msg_t **link = &cairn_k.queue;
    while (*link && cairn__policy_stays_ahead(*link, q))
        link = &(*link)->next;
    q->next = *link;
    *link = q;

    if (++cairn_k.stats.queued > cairn_k.stats.queued_peak)
        cairn_k.stats.queued_peak = cairn_k.stats.queued;
    return CAIRN_OK;
}

/* The link that points to the first message whose task can run now, or NULL. */
static cairn_msg_t **first_ready(void)
{
    for (cairn_msg_t **link = &cairn_k.queue; *link; link = &(*link)->next) {
        const cairn_tcb_t *t = cairn_k.tasks[(*link)->dst]; /* checked by the send */
        if (t && cairn__ready(t, (*link)->port))
            return link;
    }
    return 0;
}

bool cairn__pending_above(int min_prio)
{
    cairn_msg_t **link = first_ready();
    return link && (int)(*link)->prio > min_prio;
}

#if CAIRN_POLICY != CAIRN_POLICY_FP
bool cairn__pending_for(cairn_floor_t floor)
{
    cairn_msg_t **link = first_ready();
    return link && cairn__policy_starts(*link, floor);
}
#endif

/* With interrupts off: takes the message *link points to out of the queue and
 * back to the pool, and returns it (its contents stay intact until the next
 * enqueue, which interrupts cannot run meanwhile). */
static cairn_msg_t *unqueue(cairn_msg_t **link)
{
    cairn_msg_t *m = *link;
    *link = m->next;
    m->next = cairn_k.free;
    cairn_k.free = m;
    cairn_k.stats.queued--;
    return m;
}

cairn_tcb_t *cairn__dequeue_above(cairn_floor_t floor, cairn_msg_t *out)
{
    cairn_msg_t **link = first_ready();
    if (!link || !cairn__policy_starts(*link, floor))
        return 0;
    *out = *unqueue(link);
    out->next = 0;
    return cairn_k.tasks[out->dst];
}

unsigned cairn__queue_drop(cairn_task_id_t id)
{
    unsigned n = 0;
    uint32_t s = arch_irq_save();
    cairn_msg_t **link = &cairn_k.queue;
    while (*link) {
        if ((*link)->dst != id) {
            link = &(*link)->next;
            continue;
        }
        cairn__release(unqueue(link));
        n++;
    }
    cairn_k.stats.dropped += n;
    arch_irq_restore(s);
    return n;
}

static bool holds(const cairn_msg_t *m, const void *p, const cairn_msg_t *self)
{
    return m != self && m->payload == p &&
           (m->flags & (CAIRN_MSG_HEAP | CAIRN_MSG_TAKEN)) == CAIRN_MSG_HEAP;
}

/* Whether a frame of the stack from f down holds p (other than self). */
static bool stack_holds(const cairn_frame_t *f, const void *p, const cairn_msg_t *self)
{
    for (; f; f = f->below)
        if (holds(&f->msg, p, self))
            return true;
    return false;
}

bool cairn__payload_shared(const void *p, const cairn_msg_t *self)
{
    uint32_t s = arch_irq_save();
    const cairn_msg_t *m = cairn_k.queue;
    while (m && !holds(m, p, self))
        m = m->next;
    /* In an interrupt handler, the interrupted code's stack too. */
    bool shared = m || stack_holds(cairn_k.top, p, self) ||
                  (cairn_k.isr_depth && stack_holds(cairn_k.isr_top, p, self)) ||
                  (cairn_k.net && cairn_k.net->holds(p, self));
    arch_irq_restore(s);
    return shared;
}
