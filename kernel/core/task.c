/*
 * Cairn OS tasks: create, initialise (INIT), kill (FINAL, clean-up).
 */
#include "kernel.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

cairn_ret_t cairn_task_create(cairn_task_id_t id, cairn_handler_t handler, void *state,
                              cairn_prio_t prio, const cairn_route_t *routes, uint8_t num_out,
                              uint8_t flags)
{
    if (id < 1 || id > CAIRN_MAX_TASKS || !handler || prio > CAIRN_PRIO_MAX)
        return CAIRN_EINVAL;
    if (cairn__id_taken(id))
        return CAIRN_EBUSY;
    cairn_tcb_t *t = cairn_malloc(sizeof(cairn_tcb_t) + (size_t)num_out * sizeof(cairn_route_t));
    if (!t)
        return CAIRN_ENOMEM;
    cairn_heap_set_owner(t, CAIRN_TASK_NONE); /* the kernel's, not the caller's */
    t->state = state;
    t->handler = handler;
    t->prio = prio;
    t->id = id;
    t->flags = 0;
    if (flags & CAIRN_TASK_MOVABLE)
        cairn_k.movable |= 1u << id;
    else
        cairn_k.movable &= ~(1u << id);
    t->num_out = num_out;
    /* CAIRN_ROUTE_NONE is all zero. */
    if (routes)
        __builtin_memcpy(t->routes, routes, num_out * sizeof(cairn_route_t));
    else
        __builtin_memset(t->routes, 0, num_out * sizeof(cairn_route_t));
    cairn_k.tasks[id] = t;
    cairn__irq_bindings_refresh(id, t);
    CAIRN_TRACE(CAIRN_EV_CREATE, id, prio);
    return CAIRN_OK;
}

cairn_tcb_t *cairn__tcb(cairn_task_id_t id)
{
    /* Not cairn__tcb_inline: GCC would inline that into this file's callers too. */
    return id <= CAIRN_MAX_TASKS ? cairn_k.tasks[id] : (cairn_tcb_t *)0;
}

bool cairn__id_taken(cairn_task_id_t id)
{
    return cairn_k.tasks[id] || (cairn_k.net && cairn_k.net->is_remote(id));
}

cairn_task_id_t cairn_task_free_id(void)
{
    for (unsigned i = 1; i <= CAIRN_MAX_TASKS; i++)
        if (!cairn__id_taken((cairn_task_id_t)i))
            return (cairn_task_id_t)i;
    return CAIRN_TASK_NONE;
}

bool cairn_task_exists(cairn_task_id_t id)
{
    return cairn__tcb(id) != 0;
}

cairn_prio_t cairn_task_prio(cairn_task_id_t id)
{
    const cairn_tcb_t *t = cairn__tcb(id);
    return t ? t->prio : 0;
}

cairn_ret_t cairn_task_init(cairn_task_id_t id, const void *init, size_t len)
{
    cairn_frame_t f;
    cairn__msg_new(&f, cairn_current_task(), init, len);
    f.msg.dst = id;
    f.msg.port = CAIRN_PORT_INIT;
    cairn_tcb_t *t = cairn__tcb(id);
    cairn_ret_t r = CAIRN_EINVAL;
    if (t && !(t->flags & (TCB_INIT_SENT | TCB_READY | TCB_KILLING)) && len <= CAIRN_MSG_MAX_LEN) {
        t->flags |= TCB_INIT_SENT;
        r = cairn__deliver(&f);
        if (r != CAIRN_OK)
            t->flags &= (uint8_t)~TCB_INIT_SENT;
    }
    if (r != CAIRN_OK)
        cairn__release(&f.msg);
    return r;
}

void cairn__task_remove(cairn_tcb_t *t)
{
    cairn_task_id_t id = t->id;
    unsigned dropped = cairn__queue_drop(id);
    cairn__routes_forget(id);
    cairn__groups_forget(id);
    cairn__policy_forget(id);
    cairn_timer_cancel_all(id);
    cairn_k.tasks[id] = 0;
    cairn_k.movable &= ~(1u << id);
    cairn__irq_bindings_refresh(id, 0);
    cairn_heap_free_all(id);
    cairn_free(t);
    CAIRN_TRACE(CAIRN_EV_KILL, id, dropped);
}

void cairn__task_finish(cairn_tcb_t *t, bool final_done)
{
    if (final_done || !(t->flags & TCB_READY)) {
        cairn__task_remove(t);
        return;
    }
    /* FINAL runs at once, never below the current level; cairn__end calls us
     * again afterwards, with final_done, because the task is marked. */
    cairn_frame_t f;
    cairn__msg_new(&f, CAIRN_TASK_NONE, 0, 0);
    f.msg.port = CAIRN_PORT_FINAL;
    f.msg.prio = t->prio;
    f.msg.dst = t->id;
    int cur = cairn__cur_prio();
    uint32_t s = arch_irq_save();
    /* Called from an end's tail too: FINAL may run at the marked level (sched.c), whose
     * mark would hold back what outranks it. Its own end marks that level again. */
    cairn_k.gap = 0;
    cairn__enter(t, &f, cur > (int)t->prio ? (unsigned)cur : t->prio);
    arch_irq_restore(s);
    cairn__call(t, &f);
}

cairn_ret_t cairn_task_kill(cairn_task_id_t id)
{
    /* A thread would run FINAL on its own stack. */
    if (cairn_k.isr_depth || cairn_k.in_thread)
        return CAIRN_EBUSY;
    cairn_tcb_t *t = cairn__tcb(id);
    if (!t)
        return CAIRN_EINVAL;
    if (t->flags & TCB_KILLING)
        return CAIRN_OK; /* already being killed */
    t->flags |= TCB_KILLING;
    if (t->flags & TCB_ON_STACK)
        return CAIRN_OK; /* finished when its handler returns (cairn__end) */
    cairn__task_finish(t, false);
    cairn_dispatch();
    return CAIRN_OK;
}
