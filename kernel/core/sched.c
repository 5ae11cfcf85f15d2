/*
 * Cairn OS message scheduler: stack-based preemption.
 *
 * Every send is a preemption point. A send from a handler (or from main/idle)
 * runs the destination's handler at once, by a plain function call on the same
 * stack, when the destination is ready (not already on the stack, initialised)
 * and its priority is >= the sender's level; otherwise the message is queued.
 * Sends from interrupt handlers are queued (or, for an interrupt bound to a
 * message, started directly: cairn/irq.h); when the outermost interrupt exits,
 * queued messages that STRICTLY outrank the interrupted level run. When a
 * handler returns, queued messages that strictly outrank the level below it run
 * (cairn_dispatch). The rules and a worked example: docs/kernel.md.
 *
 * Going on the stack (the readiness check, TCB_ON_STACK, the new top) happens
 * with interrupts off: the interrupt fast path reads exactly that state.
 */
#include "kernel.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

cairn_kernel_t cairn_k;

cairn_ret_t cairn_sched_init(void)
{
    cairn_k = (cairn_kernel_t){0};
    cairn__groups_init();
    return cairn__pool_init();
}

cairn_task_id_t cairn_current_task(void)
{
    if (cairn_k.isr_depth || !cairn_k.top)
        return CAIRN_TASK_NONE;
    return cairn_k.top->task;
}

void cairn__call(cairn_tcb_t *t, cairn_frame_t *f)
{
    cairn_msg_t *m = f->msg;
    CAIRN_TRACE(CAIRN_EV_START, t->id, m->port);
    cairn__end(t->handler(t->state, m), f);
}

void cairn__end(cairn_ret_t r, cairn_frame_t *f)
{
    cairn_tcb_t *t = cairn_k.tasks[f->task];
    const cairn_msg_t *m = f->msg;
    CAIRN_TRACE(CAIRN_EV_END, t->id, (uint16_t)r);
    cairn__pop(f);
    uint8_t flags = t->flags & (uint8_t)~TCB_ON_STACK;
    if (m->port == CAIRN_PORT_INIT)
        flags |= TCB_READY;
    t->flags = flags;
    cairn__release(m);
    if (flags & TCB_KILLING)
        cairn__task_finish(t, m->port == CAIRN_PORT_FINAL);
    CAIRN_TRACE(CAIRN_EV_CURRENT, cairn_current_task(), 0);
}

void cairn_dispatch(void)
{
    if (cairn_k.isr_depth)
        return;
    for (;;) {
        cairn_frame_t f;
        uint32_t s = arch_irq_save();
        cairn_msg_t *m = cairn__dequeue_above(cairn__cur_prio());
        if (!m) {
            arch_irq_restore(s);
            return;
        }
        cairn_tcb_t *t = cairn_k.tasks[m->dst];
        cairn__enter(t, &f, m, t->prio);
        arch_irq_restore(s);
        cairn__call(t, &f);
        cairn__pool_put(m);
    }
}

cairn_ret_t cairn__deliver(cairn_task_id_t src, cairn_task_id_t dst, cairn_port_t port,
                           const void *payload, uint16_t len, uint8_t flags)
{
    cairn_tcb_t *t = cairn__tcb(dst);
    if (!t || (t->flags & TCB_KILLING)) {
        cairn_k.stats.no_route++;
        CAIRN_TRACE(CAIRN_EV_DROP, src, port);
        return CAIRN_ENOROUTE;
    }
    CAIRN_TRACE(CAIRN_EV_SEND, dst, port);
    if (!cairn_k.isr_depth) {
        uint32_t s = arch_irq_save();
        if (cairn__ready(t, port) && cairn__preempts(cairn_k.top, t->prio, false)) {
            cairn_msg_t m = {.payload = payload,
                             .len = len,
                             .port = port,
                             .src = src,
                             .prio = t->prio,
                             .dst = dst,
                             .flags = flags};
            cairn_frame_t f;
            cairn__enter(t, &f, &m, t->prio);
            arch_irq_restore(s);
            cairn__call(t, &f);
            cairn_dispatch();
            return CAIRN_OK;
        }
        arch_irq_restore(s);
    }
    return cairn__enqueue(src, t, port, payload, len, flags);
}

/* ---- interrupts ------------------------------------------------------------------ */

void cairn_isr_enter(uint16_t irq)
{
    cairn_k.isr_depth++;
    CAIRN_TRACE(CAIRN_EV_IRQ_ENTER, cairn_k.isr_depth, irq);
}

void cairn_isr_exit(void)
{
    if (cairn_k.isr_depth == 0)
        return;
    cairn_k.isr_depth--;
    CAIRN_TRACE(CAIRN_EV_IRQ_EXIT, cairn_k.isr_depth, 0);
    if (cairn_k.isr_depth == 0 && cairn__pending_above(cairn__cur_prio()))
        arch_request_dispatch();
}

bool cairn_in_isr(void)
{
    return cairn_k.isr_depth != 0;
}

/* Called by the virtual timers from the timer interrupt (vtimer.c logs the
 * TIMER event). */
void cairn_timer_fired(cairn_task_id_t task, uint8_t n)
{
    if (n >= CAIRN_TIMERS_PER_TASK)
        return;
    bool outer = cairn_k.isr_depth == 0; /* called outside an ISR: act as one */
    if (outer)
        cairn_isr_enter(0);
    (void)cairn__deliver(CAIRN_TASK_NONE, task, CAIRN_PORT_TIMEOUT(n), 0, 0, 0);
    if (outer)
        cairn_isr_exit();
}

void cairn_sched_stats(cairn_sched_stats_t *st)
{
    uint32_t s = arch_irq_save();
    *st = cairn_k.stats;
    arch_irq_restore(s);
}
