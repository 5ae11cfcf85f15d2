/*
 * Cairn OS: the per-task data of the deadline policies (EDF, CSD; cairn/policy.h):
 * each task's relative deadline and, under CSD, its queue. One kernel-owned heap
 * block made at the first cairn_task_deadline / cairn_task_queue, so a module that
 * never sets one spends only the pointer in cairn_k. Empty under fixed priority.
 */
#include "kernel.h"

#if CAIRN_POLICY != CAIRN_POLICY_FP

#include "cairn/mem.h"

struct cairn_policy_state {
    uint32_t rel[CAIRN_MAX_TASKS + 1]; /* 0: none set (CAIRN_DEADLINE_MAX) */
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    uint8_t queue[CAIRN_MAX_TASKS + 1]; /* stored as CAIRN_CSD_FP_QUEUE - queue: 0 is the FP queue */
#endif
};

/* Inline: every send's stamp asks. */
static inline uint32_t rel_of(cairn_task_id_t id)
{
    const struct cairn_policy_state *p = cairn_k.policy;
    uint32_t rel = p && id <= CAIRN_MAX_TASKS ? p->rel[id] : 0;
    return rel ? rel : CAIRN_DEADLINE_MAX;
}

static struct cairn_policy_state *state(void)
{
    if (!cairn_k.policy) {
        struct cairn_policy_state *p = cairn_malloc(sizeof *p);
        if (!p)
            return 0;
        cairn_heap_set_owner(p, CAIRN_TASK_NONE); /* the kernel's */
        __builtin_memset(p, 0, sizeof *p);
        cairn_k.policy = p;
    }
    return cairn_k.policy;
}

static bool task_ok(cairn_task_id_t id)
{
    return id != CAIRN_TASK_NONE && cairn__tcb(id) != 0;
}

/* The queue's order (msgq.c) holds only while no queued message's key changes, so a
 * change of task id's queue or relative deadline takes its queued messages out, gives
 * them the key a send would give them now (a deadline the sender gave stays; a deadline
 * from the task's relative one moves by the change) and puts them back as the enqueue
 * does, in their old order: behind every message they do not outrank, so among equals
 * they are as if sent at the change. */
static void rekey_queued(cairn_task_id_t id, uint32_t old_rel)
{
    uint32_t s = arch_irq_save();
    cairn_msg_t *moved = 0, **tail = &moved;
    for (cairn_msg_t **link = &cairn_k.queue; *link;) {
        cairn_msg_t *m = *link;
        if (m->dst != id) {
            link = &m->next;
            continue;
        }
        *link = m->next;
        *tail = m;
        tail = &m->next;
    }
    *tail = 0;
    while (moved) {
        cairn_msg_t *m = moved;
        moved = m->next;
        if (!(m->flags & CAIRN_MSG_DEADLINE))
            m->deadline += rel_of(id) - old_rel;
#if CAIRN_POLICY == CAIRN_POLICY_CSD
        m->queue = cairn_task_queue_get(id);
#endif
        cairn_msg_t **link = &cairn_k.queue;
        while (*link && cairn__policy_stays_ahead(*link, m))
            link = &(*link)->next;
        m->next = *link;
        *link = m;
    }
    arch_irq_restore(s);
}

cairn_ret_t cairn_task_deadline(cairn_task_id_t id, uint32_t rel)
{
    if (!task_ok(id) || rel - 1u >= CAIRN_DEADLINE_MAX)
        return CAIRN_EINVAL;
    struct cairn_policy_state *p = state();
    if (!p)
        return CAIRN_ENOMEM;
    uint32_t old_rel = rel_of(id);
    p->rel[id] = rel;
    rekey_queued(id, old_rel);
    return CAIRN_OK;
}


uint32_t cairn_task_deadline_get(cairn_task_id_t id)
{
    return rel_of(id);
}

#if CAIRN_POLICY == CAIRN_POLICY_CSD
cairn_ret_t cairn_task_queue(cairn_task_id_t id, uint8_t q)
{
    if (!task_ok(id) || q > CAIRN_CSD_FP_QUEUE)
        return CAIRN_EINVAL;
    struct cairn_policy_state *p = state();
    if (!p)
        return CAIRN_ENOMEM;
    p->queue[id] = (uint8_t)(CAIRN_CSD_FP_QUEUE - q);
    rekey_queued(id, rel_of(id));
    return CAIRN_OK;
}

uint8_t cairn_task_queue_get(cairn_task_id_t id)
{
    const struct cairn_policy_state *p = cairn_k.policy;
    return (uint8_t)(CAIRN_CSD_FP_QUEUE - (p && id <= CAIRN_MAX_TASKS ? p->queue[id] : 0));
}
#endif

void cairn__policy_msg_init(cairn_msg_t *m)
{
    const cairn_frame_t *top = cairn_k.top;
    /* In an interrupt handler nothing runs above a message it makes before the delivery's
     * stamp: the counter is not worth reading there. */
    m->deadline = top ? top->msg.deadline
                      : cairn_k.isr_depth ? 0 : arch_timer_now() + CAIRN_DEADLINE_MAX;
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    m->queue = top ? top->msg.queue : CAIRN_CSD_FP_QUEUE;
#endif
}

void cairn__policy_stamp(cairn_msg_t *m, const cairn_tcb_t *t)
{
    m->prio = t->prio;
    if (!(m->flags & CAIRN_MSG_DEADLINE))
        m->deadline = arch_timer_now() + rel_of(t->id);
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    m->queue = cairn_task_queue_get(t->id);
#endif
}

void cairn__policy_forget(cairn_task_id_t id)
{
    struct cairn_policy_state *p = cairn_k.policy;
    if (!p)
        return;
    p->rel[id] = 0;
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    p->queue[id] = 0;
#endif
}

#endif /* CAIRN_POLICY != CAIRN_POLICY_FP */
