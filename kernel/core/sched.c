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
 *
 * A dispatch never nests above a dispatch loop that is between handlers: from a
 * handler's end (cairn__end marks cairn_k.gap with the level below it, before it
 * pops) to the loop's next dequeue, the loop will dequeue again before it runs
 * anything else, so an interrupt that returns to that level leaves its messages to
 * that dequeue instead of pending another dispatch (cairn_isr_exit). The dequeue
 * clears the mark with interrupts off whether or not it finds a message: a loop
 * that found the queue empty and returns has no mark, and an interrupt after it
 * dispatches its own messages. Every cairn__end is followed by a dispatch at the
 * level below (the loop, a send's, a fast path's), or clears the mark itself
 * (cairn__gap_close). The end of an interrupt that requests a dispatch marks its
 * level the same way: until that dispatch's first dequeue, another interrupt adds
 * its message to the same dequeue. Without this a task whose queue never empties nested one
 * dispatch (a level of stack) per interrupt that came between two of its
 * handlers, without bound.
 */
#include "kernel.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

cairn_ret_t cairn_sched_init(void)
{
    /* All but the heap's state (cairn_heap_init's), the first member. */
    __builtin_memset(&cairn_k.top, 0, sizeof cairn_k - __builtin_offsetof(cairn_kernel_t, top));
    cairn__irq_bindings_forget();
    return cairn__pool_init();
}

cairn_task_id_t cairn_current_task(void)
{
    if (cairn_k.isr_depth || !cairn_k.top)
        return CAIRN_TASK_NONE;
    return cairn__frame_task(cairn_k.top);
}

void cairn__call(cairn_tcb_t *t, cairn_frame_t *f)
{
    CAIRN_TRACE(CAIRN_EV_START, t->id, f->msg.port);
    cairn__end(t->handler(t->state, &f->msg), f);
}

void cairn__end(cairn_ret_t r, cairn_frame_t *f)
{
    cairn_tcb_t *t = f->tcb;
    const cairn_msg_t *m = &f->msg;
    CAIRN_TRACE(CAIRN_EV_END, t->id, (uint16_t)r);
    uint8_t flags = t->flags & (uint8_t)~TCB_ON_STACK;
    if (m->port == CAIRN_PORT_INIT)
        flags |= TCB_READY;
    /* Ready again before the frame leaves the stack: an interrupt between the two stores
     * sees t's frame still on top, so nothing at or below t's level starts there and the
     * dispatch after this end runs t's own release first. The other order showed it a
     * stack without t's frame while t's messages were still held back: the dispatch
     * started lower levels above this unfinished end, and t's later messages waited for
     * all of them. The frame below is read before the window: an interrupt bound to t
     * that comes in it finds t ready alone and its binding's frame, f, still the top; an
     * interrupt path that wrote that frame's below before declining on the level (the
     * armv6m fast path once did) made f->below read after the window name f itself, and
     * f stayed the top for ever (t's level: nothing at or below it ran again). */
    cairn_frame_t *below = f->below;
    t->flags = flags;
    /* The mark before the pop, the window (a compiler barrier on a target) between them:
     * an interrupt after the pop and before the mark would nest a dispatch here. Seen
     * with f still on top, the mark holds back only what the dispatch after this end
     * runs first anyway. */
    cairn_k.gap = cairn__gap_level(below);
    ARCH_IRQ_WINDOW();
    /* Nothing of t is read from here on: a thread whose mailbox this is may run in the
     * window and exit, which frees t (thread.c points this frame elsewhere). */
    cairn_k.top = below;
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
        /* Where an interrupt finds the loop between handlers (a host test's seam). */
        ARCH_IRQ_WINDOW();
        cairn_frame_t f;
        uint32_t s = arch_irq_save();
        cairn_tcb_t *t = cairn__dequeue_above(cairn__policy_floor(), &f.msg);
        cairn_k.gap = 0;
        if (!t) {
            arch_irq_restore(s);
            return;
        }
        cairn__enter(t, &f, t->prio);
        arch_irq_restore(s);
        cairn__call(t, &f);
    }
}

cairn_ret_t cairn__deliver(cairn_frame_t *f)
{
    cairn_msg_t *m = &f->msg;
    cairn_tcb_t *t = cairn__tcb_inline(m->dst);
    if (!t || (t->flags & TCB_KILLING)) {
        if (!t && cairn_k.net) {
            cairn_ret_t r = cairn_k.net->forward(f);
            if (r != CAIRN__NOT_REMOTE)
                return r;
        }
        cairn_k.stats.no_route++;
        CAIRN_TRACE(CAIRN_EV_DROP, m->src, m->port);
        return CAIRN_ENOROUTE;
    }
    CAIRN_TRACE(CAIRN_EV_SEND, m->dst, m->port);
    cairn__policy_stamp(m, t);
    uint32_t s = arch_irq_save();
    if (!cairn_k.isr_depth && cairn__ready(t, m->port) && cairn__policy_send_preempts(cairn_k.top, t, m)) {
        cairn__enter(t, f, t->prio);
        arch_irq_restore(s);
        cairn__call(t, f);
        cairn_dispatch();
        /* The handler's end may let a thread run: a thread's mailbox frame that counted
         * while its thread waited (thread.c) is gone. */
        if (cairn_k.nthreads)
            cairn__thread_resched();
        return CAIRN_OK;
    }
    cairn_ret_t r = cairn__enqueue(m);
    arch_irq_restore(s);
    return r;
}

cairn_ret_t cairn__signal(cairn_task_id_t dst, cairn_port_t port)
{
    cairn_frame_t f;
    cairn__msg_new(&f, CAIRN_TASK_NONE, 0, 0);
    f.msg.dst = dst;
    f.msg.port = port;
    return cairn__deliver(&f);
}

void cairn__gap_close(void)
{
    uint32_t s = arch_irq_save();
    bool dispatch = cairn_k.gap == cairn__gap_level(cairn_k.top) && cairn__pending_for(cairn__policy_floor());
    cairn_k.gap = 0;
    arch_irq_restore(s);
    /* What an interrupt that came after the end would have asked for, had it not left
     * its message to a loop that is not coming. */
    if (dispatch)
        arch_request_dispatch();
}

/* ---- interrupts ------------------------------------------------------------------ */

/* Inside interrupt handlers the execution stack reads as empty (top = NULL): no
 * handler is running there, and the send fast path needs no other test. */
void cairn_isr_enter(uint16_t irq)
{
    uint32_t s = arch_irq_save();
    if (cairn_k.isr_depth++ == 0) {
        cairn_k.isr_top = cairn_k.top;
        cairn_k.top = 0;
    }
    arch_irq_restore(s);
    CAIRN_TRACE(CAIRN_EV_IRQ_ENTER, cairn_k.isr_depth, irq);
}

void cairn_isr_exit(void)
{
    uint32_t s = arch_irq_save();
    uint8_t depth = cairn_k.isr_depth;
    if (depth == 0) {
        arch_irq_restore(s);
        return;
    }
    cairn_k.isr_depth = --depth;
    bool dispatch = false;
    if (depth == 0) {
        cairn_k.top = cairn_k.isr_top;
        /* A loop between handlers at this level dequeues next: nesting another would
         * grow the stack by one dispatch per interrupt while its task stays saturated.
         * The dispatch requested here is such a loop too, until its first dequeue (a
         * thread's is a switch instead: no dequeue would clear the mark). */
        uint8_t level = cairn__gap_level(cairn_k.top);
        dispatch = cairn_k.gap != level && cairn__pending_for(cairn__policy_floor());
        if (dispatch && !cairn_k.in_thread)
            cairn_k.gap = level;
    }
    arch_irq_restore(s);
    CAIRN_TRACE(CAIRN_EV_IRQ_EXIT, depth, 0);
    if (dispatch)
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
    (void)cairn__signal(task, CAIRN_PORT_TIMEOUT(n));
    if (outer)
        cairn_isr_exit();
}

void cairn_sched_stats(cairn_sched_stats_t *st)
{
    uint32_t s = arch_irq_save();
    *st = cairn_k.stats;
    arch_irq_restore(s);
}
