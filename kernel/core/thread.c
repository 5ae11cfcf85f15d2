/*
 * Cairn OS thread tasks (cairn/thread.h; docs/kernel.md, "Threads").
 *
 * The message level (all message handlers, on the main stack) is one context;
 * each thread is another, on its own stack. The context with the highest
 * priority runs: a thread's is its own, the message level's is that of its top
 * frame while a handler runs, else that of its highest ready queued message.
 * The message level wins a tie, as a send runs a handler of equal priority at
 * once. Among ready threads of one priority the one that waited longest runs,
 * each for one time slice when others wait (round robin).
 *
 * A thread is also a task ID whose handler (mailbox) runs on the message level:
 * messages, the thread's timer expiries (wake-up, slice) and so every wake-up
 * pass through it. Its frame is not counted in the message level's priority: it
 * ends right after the wake-up, so the woken thread may preempt it at once.
 *
 * The ready threads are a list per priority level with a bitmap of the levels that have
 * one (below): the choice is O(1). It is made where it may have changed
 * (cairn__thread_resched), once; a thread-to-thread switch decided there is left to the
 * port as ts.next, which any later change withdraws.
 *
 * The ports switch contexts: a switch thread to thread that the running thread's own kernel
 * call decided is made at once, as a call (arch_thread_switch, when the other thread can be
 * resumed so); every other goes through arch_thread_reschedule (on armv6m PendSV, whose fast
 * path makes the decided switch without calling back).
 */
#include "thread.h"

#include "cairn/mem.h"
#include "cairn/sem.h"
#include "cairn/timer.h"


/* Every use below is reached only once a thread exists (cairn_k.nthreads or in_thread), or
 * checks `on()` first: the block is allocated by the first cairn_thread_create. */
#define ts (*cairn_k.threads)

static bool on(void)
{
    return cairn_k.threads != 0;
}

/* The slice is set before any thread exists, so it stays out of the block. */
static uint32_t slice = CAIRN_THREAD_SLICE_TICKS;

cairn_ctx_t cairn__thread_msg_ctx;

static cairn_ret_t mailbox(void *state, cairn_msg_t *msg);
static void make_ready(cairn_thread_t *t);
static cairn_thread_t *find(cairn_task_id_t id);

/* ---- choosing a context ---------------------------------------------------------- */

/* ---- the ready structure ------------------------------------------------------------
 *
 * A level per priority some thread has, in ascending order; per level a circular list of
 * its ready threads, the oldest (or the preempted running one) first; a bitmap of the
 * levels with a ready thread. The choice is the first ready thread of the highest set bit:
 * O(1), whatever the number of threads. A list may also hold a blocked thread standing in
 * a raised holder's place (Q_HOLD, EMERALDS's exchange, sem.c): it is passed over. */

/* The switch path's helpers are inlined: a call each costs more than their bodies. */
#define HOT static inline __attribute__((always_inline))

HOT void count_ready(unsigned lv, int d)
{
    cairn__thread_forget_next();
    ts.level_ready[lv] = (uint8_t)(ts.level_ready[lv] + d);
    if (ts.level_ready[lv])
        ts.ready_mask |= 1u << lv;
    else
        ts.ready_mask &= ~(1u << lv);
}

/* The highest set bit of m (not 0), without CLZ (ARMv6-M has none). */
HOT unsigned top_bit(uint32_t m)
{
    static const uint8_t log2_16[16] = {0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
    unsigned n = 0;
    if (m >> 16) {
        n = 16;
        m >>= 16;
    }
    if (m >> 8) {
        n += 8;
        m >>= 8;
    }
    if (m >> 4) {
        n += 4;
        m >>= 4;
    }
    return n + log2_16[m];
}

/* The level of priority p, made when no thread had it yet (the levels after it move up). */
static unsigned level_of(cairn_prio_t p)
{
    unsigned i = 0;
    while (i < ts.nlevels && ts.level_prio[i] < p)
        i++;
    if (i < ts.nlevels && ts.level_prio[i] == p)
        return i;
    /* A new level: at most one per thread (an inherited priority is another thread's own),
     * so there is room. Only cairn_thread_create and a raise can get here. */
    for (unsigned j = ts.nlevels; j > i; j--) {
        ts.level_prio[j] = ts.level_prio[j - 1];
        ts.level_ready[j] = ts.level_ready[j - 1];
        ts.level_head[j] = ts.level_head[j - 1];
    }
    ts.level_prio[i] = p;
    ts.level_ready[i] = 0;
    ts.level_head[i] = 0;
    ts.nlevels++;
    uint32_t low = ts.ready_mask & ((1u << i) - 1u);
    ts.ready_mask = low | ((ts.ready_mask & ~((1u << i) - 1u)) << 1);
    for (cairn_thread_t *t = ts.all; t; t = t->next) {
        if (t->queued != Q_NONE && t->qlevel >= i)
            t->qlevel++;
        if (t->plevel >= i)
            t->plevel++;
    }
    return i;
}

/* Links t into level lv's list before `at` (at NULL: last; the list may be empty). */
static void link_before(unsigned lv, cairn_thread_t *t, cairn_thread_t *at)
{
    cairn_thread_t *h = ts.level_head[lv];
    if (!h) {
        t->rnext = t->rprev = t;
        ts.level_head[lv] = t;
    } else {
        cairn_thread_t *n = at ? at : h;
        t->rnext = n;
        t->rprev = n->rprev;
        n->rprev->rnext = t;
        n->rprev = t;
        if (at == h)
            ts.level_head[lv] = t;
    }
    t->qlevel = (uint8_t)lv;
}

static void unlink(cairn_thread_t *t)
{
    unsigned lv = t->qlevel;
    if (t->rnext == t) {
        ts.level_head[lv] = 0;
    } else {
        t->rprev->rnext = t->rnext;
        t->rnext->rprev = t->rprev;
        if (ts.level_head[lv] == t)
            ts.level_head[lv] = t->rnext;
    }
    if (t->queued == Q_READY)
        count_ready(lv, -1);
    t->queued = Q_NONE;
}

/* n takes o's place in its list (o leaves it); n's and o's queued states are the caller's. */
static void replace(cairn_thread_t *o, cairn_thread_t *n)
{
    unsigned lv = o->qlevel;
    if (o->rnext == o) {
        n->rnext = n->rprev = n;
    } else {
        n->rnext = o->rnext;
        n->rprev = o->rprev;
        o->rprev->rnext = n;
        o->rnext->rprev = n;
    }
    if (ts.level_head[lv] == o)
        ts.level_head[lv] = n;
    n->qlevel = (uint8_t)lv;
}

/* a and b (in two different lists) exchange their places. */
static void swap_places(cairn_thread_t *a, cairn_thread_t *b)
{
    unsigned la = a->qlevel, lb = b->qlevel;
    cairn_thread_t *an = a->rnext, *ap = a->rprev, *bn = b->rnext, *bp = b->rprev;
    if (an == a) {
        b->rnext = b->rprev = b;
    } else {
        b->rnext = an;
        b->rprev = ap;
        ap->rnext = b;
        an->rprev = b;
    }
    if (bn == b) {
        a->rnext = a->rprev = a;
    } else {
        a->rnext = bn;
        a->rprev = bp;
        bp->rnext = a;
        bn->rprev = a;
    }
    if (ts.level_head[la] == a)
        ts.level_head[la] = b;
    if (ts.level_head[lb] == b)
        ts.level_head[lb] = a;
    a->qlevel = (uint8_t)lb;
    b->qlevel = (uint8_t)la;
}

/* first: ahead of the others of its level, but behind the running thread when that is one
 * of them (no equal priority preempts it). */
static void enqueue_ready(cairn_thread_t *t, bool first)
{
    unsigned lv = t->plevel;
    cairn_thread_t *at = first ? ts.level_head[lv] : 0, *cur = ts.cur;
    if (at && at == cur && cur != t)
        at = cur->rnext == cur ? 0 : cur->rnext;
    link_before(lv, t, at);
    t->queued = Q_READY;
    count_ready(lv, +1);
}

/* The place of a thread back at its priority: after the last ready thread that came
 * before it. The scan starts from the newest, so it passes the threads that became ready
 * at that priority while t was away (a holder standing in for another counts with the
 * other's arrival). */
static void enqueue_by_arrival(cairn_thread_t *t)
{
    unsigned lv = t->plevel;
    cairn_thread_t *h = ts.level_head[lv], *at = h;
    if (h) {
        cairn_thread_t *n = h->rprev;
        for (;;) {
            const cairn_thread_t *k = n->queued == Q_HOLD ? n->swapped : n;
            ts.sem_stats.requeue_steps++;
            if (k->seq < t->seq) {
                at = n->rnext == h ? 0 : n->rnext; /* after n: before its successor */
                break;
            }
            if (n == h)
                break; /* every one came later: t goes first */
            n = n->rprev;
        }
    }
    link_before(lv, t, at);
    t->queued = Q_READY;
    count_ready(lv, +1);
}

/* Levels that no thread has any more go (a joined thread's), the ones after them move down. */
static void drop_unused_levels(void)
{
    for (unsigned i = ts.nlevels; i-- > 0;) {
        bool used = ts.level_head[i] != 0;
        for (const cairn_thread_t *t = ts.all; t && !used; t = t->next)
            used = t->prio == ts.level_prio[i] || t->base == ts.level_prio[i];
        if (used)
            continue;
        for (unsigned j = i; j + 1u < ts.nlevels; j++) {
            ts.level_prio[j] = ts.level_prio[j + 1u];
            ts.level_ready[j] = ts.level_ready[j + 1u];
            ts.level_head[j] = ts.level_head[j + 1u];
        }
        ts.nlevels--;
        uint32_t low = ts.ready_mask & ((1u << i) - 1u);
        ts.ready_mask = low | ((ts.ready_mask >> 1) & ~((1u << i) - 1u));
        for (cairn_thread_t *t = ts.all; t; t = t->next) {
            if (t->queued != Q_NONE && t->qlevel > i)
                t->qlevel--;
            if (t->plevel > i)
                t->plevel--;
        }
    }
}

HOT cairn_thread_t *best_ready(void)
{
    if (!on() || !ts.ready_mask)
        return 0;
    cairn_thread_t *t = ts.level_head[top_bit(ts.ready_mask)];
    while (t->queued != Q_READY)
        t = t->rnext;
    return t;
}

/* The exchange (sem.c decides when). */
void cairn__thread_exchange(cairn_thread_t *h, cairn_thread_t *w)
{
    if (h->swapped)
        cairn__thread_unexchange(h, false); /* a third thread: the first waiter's place goes back */
    count_ready(h->qlevel, -1);
    if (w->queued == Q_READY) { /* w was running: first of its level, which keeps its count */
        swap_places(h, w);
        w->queued = Q_HOLD;
    } else {
        unsigned lv = w->plevel;
        replace(h, w);
        w->queued = Q_HOLD;
        link_before(lv, h, ts.level_head[lv]);
        count_ready(lv, +1);
    }
    h->swapped = w;
    w->swapped = h;
    ts.sem_stats.exchanges++;
}

void cairn__thread_unexchange(cairn_thread_t *h, bool w_ready)
{
    cairn_thread_t *w = h->swapped;
    h->swapped = 0;
    w->swapped = 0;
    if (h->queued != Q_READY) { /* h blocked meanwhile: its place is gone */
        unlink(w);
    } else if (w_ready) {
        swap_places(h, w);
        count_ready(h->qlevel, +1); /* w's level keeps its count */
        w->queued = Q_READY;
        w->state = TH_READY;
        return;
    } else {
        unlink(h);
        replace(w, h);
        h->queued = Q_READY;
        count_ready(h->qlevel, +1);
    }
    w->queued = Q_NONE;
    if (w_ready) {
        w->state = TH_READY;
        enqueue_ready(w, true);
    }
}

/* A ready t whose list is not its priority's moves there. */
static void place(cairn_thread_t *t)
{
    if (t->queued != Q_READY || t->qlevel == t->plevel)
        return;
    if (t->swapped)
        cairn__thread_unexchange(t, false);
    if (t->qlevel == t->plevel)
        return;
    bool raise = t->plevel > t->qlevel; /* levels ascend with priority */
    unlink(t);
    if (raise)
        enqueue_ready(t, true);
    else
        enqueue_by_arrival(t);
}

/* Whether the message level, whose top is f, runs rather than thread t.
 *
 * A mailbox frame left on the suspended message level (a wake-up switched away from it)
 * keeps its task on the stack, and a task on the stack has its messages held back: the
 * interrupt's exit and the dispatch skip them. That is sound only while the thread cannot
 * be woken by them, so the frame stands aside while its thread is ready or dead (or is t,
 * whose wake-up it was) and counts at the thread's priority while the thread waits: then no
 * context the thread's next wake-up would preempt, or tie, runs over the frame; the message
 * level resumes and ends it first. */
static bool msg_level_outranks(const cairn_thread_t *t, const cairn_frame_t *f)
{
    unsigned prio = t->prio;
    for (; f && f->tcb && f->tcb->handler == mailbox; f = f->below) {
        const cairn_thread_t *x = f->tcb->state;
        if (!(f->tcb->flags & TCB_KILLING) && x != t && x->state != TH_READY &&
            x->state != TH_DEAD && x->prio >= prio)
            return true;
    }
    if (f && f->prio >= prio)
        return true;
    /* Messages queued behind a mailbox frame left on the suspended message level count as
     * ready: they reach the mailbox before its thread runs on. */
    for (const cairn_msg_t *m = cairn_k.queue; m && m->prio >= prio; m = m->next) {
        const cairn_tcb_t *d = cairn__tcb(m->dst);
        if (d && d->handler == mailbox && (d->flags & TCB_ON_STACK))
            return true;
    }
    return cairn__pending_above((int)prio - 1);
}

HOT bool msg_level_wins(const cairn_thread_t *t)
{
    const cairn_frame_t *f = ts.cur ? ts.msg_top : cairn_k.top;
    if (!f && !cairn_k.queue) /* the usual case between threads: the message level is idle */
        return false;
    return msg_level_outranks(t, f);
}

HOT cairn_thread_t *choose(void)
{
    cairn_thread_t *best = best_ready();
    return best && !msg_level_wins(best) ? best : 0;
}

/* Another ready thread in t's list (t ready), or any in its priority's (t not). */
static bool peer_ready(const cairn_thread_t *t)
{
    if (t->queued == Q_READY)
        return ts.level_ready[t->qlevel] > 1;
    return ts.level_ready[t->plevel] != 0;
}

static void arm_slice(cairn_thread_t *t)
{
    if (slice && !t->slice_armed && peer_ready(t) &&
        cairn_timer_set(t->id, CAIRN_THREAD_TIMER_SLICE, slice, false) == CAIRN_OK)
        t->slice_armed = 1;
}

static void disarm_slice(cairn_thread_t *t)
{
    if (t->slice_armed) {
        (void)cairn_timer_cancel(t->id, CAIRN_THREAD_TIMER_SLICE);
        t->slice_armed = 0;
    }
}

bool cairn__thread_should_switch(void)
{
    return on() && choose() != ts.cur;
}

bool cairn__thread_pick(cairn_ctx_t **from, cairn_ctx_t **to)
{
    if (!on())
        return false;
    cairn__thread_forget_next();
    cairn_thread_t *cur = ts.cur;
    if (cur && *cur->guard != CAIRN_THREAD_GUARD && cur->state != TH_DEAD) {
        ts.stats.overflows++;
        arch_thread_overflow(cur->name);
        cairn__thread_unready(cur, TH_DEAD); /* the port let the module run on: never again */
        cur->code = CAIRN_THREAD_CODE_OVERFLOW;
        cairn_thread_t *j = cur->joiner ? find(cur->joiner) : 0;
        if (j && j->state == TH_JOIN)
            make_ready(j);
    }
    cairn_thread_t *next = choose();
    if (next == cur)
        return false;
    if (cur) {
        arch_thread_settle();
        disarm_slice(cur);
    } else {
        ts.msg_top = cairn_k.top;
    }
    if (next) {
        cairn_k.top = &next->frame;
        cairn_k.in_thread = 1;
        arm_slice(next);
    } else {
        cairn_k.top = ts.msg_top;
        cairn_k.in_thread = 0;
    }
    *from = cur ? &cur->ctx : &cairn__thread_msg_ctx;
    *to = next ? &next->ctx : &cairn__thread_msg_ctx;
    ts.cur = next;
    ts.stats.switches++;
    return true;
}

/* Called where the choice may have changed (a send, a wake-up, a block, an
 * interrupt's exit, the idle loop). */
/* With interrupts off, over a running thread or the message level (cur): requests the
 * switch when another context should run. by_call: cur's own kernel call asks, with
 * interrupts enabled before it, so a switch thread to thread can be made now, as a call. */
HOT void decide(cairn_thread_t *cur, bool by_call)
{
    cairn_thread_t *next = choose();
    if (next == cur)
        return;
    /* Thread to thread with nothing else to do on the way (the guard word, the slices):
     * decided now, the port need not choose again. */
    if (cur && next && *cur->guard == CAIRN_THREAD_GUARD && !cur->slice_armed &&
        (!slice || next->slice_armed || !peer_ready(next))) {
        if (by_call && arch_thread_resumes_by_call(next->ctx.sp)) {
            cairn__thread_forget_next();
            ts.stats.switches++;
            arch_thread_switch(cur, next); /* returns when cur runs again */
            return;
        }
        arch_thread_reschedule();
        ts.next = next;
        ts.stats.switches++;
    } else {
        arch_thread_reschedule();
    }
    if (by_call && cur)
        arch_thread_switch_pended(); /* so that the call switch can resume cur later */
}

void cairn__thread_resched(void)
{
    uint32_t s = arch_irq_save();
    /* Where interrupts were enabled, a pended PendSV would take over as they are restored:
     * the call switch takes over here instead. Where the caller masked them, the switch
     * waits for its unmasking, as before. */
    if (!cairn_k.isr_depth && on())
        decide(ts.cur, s == 0);
    arch_irq_restore(s);
}

void cairn__thread_resched_isr(void)
{
    uint32_t s = arch_irq_save();
    if (on() && ts.cur) {
        arch_thread_settle(); /* the fast path's switch does not call back */
        decide(ts.cur, false); /* the interrupted thread: the message level's top is ts.msg_top */
    } else {
        arch_thread_reschedule();
    }
    arch_irq_restore(s);
}

bool cairn__thread_any_ready(void)
{
    return best_ready() != 0;
}

static void make_ready(cairn_thread_t *t)
{
    t->state = TH_READY;
    t->seq = ++ts.seq;
    if (t->queued == Q_HOLD)
        cairn__thread_unexchange(t->swapped, false);
    if (t->queued == Q_READY)
        unlink(t);
    enqueue_ready(t, false);
    if (ts.cur && ts.cur != t && ts.cur->prio == t->prio)
        arm_slice(ts.cur);
}

/* A ready t goes last in its list (a yield, the end of its slice). */
HOT void to_back(cairn_thread_t *t)
{
    t->seq = ++ts.seq;
    if (t->queued == Q_READY && ts.level_head[t->qlevel] == t) {
        /* first of a circular list: the next one becomes first, t last */
        cairn__thread_forget_next();
        ts.level_head[t->qlevel] = t->rnext;
    } else if (t->queued == Q_READY && t->rnext != t) {
        unsigned lv = t->qlevel;
        unlink(t);
        link_before(lv, t, 0);
        t->queued = Q_READY;
        count_ready(lv, +1);
    }
}

void cairn__thread_ready_first(cairn_thread_t *t)
{
    t->state = TH_READY;
    if (t->queued == Q_HOLD)
        cairn__thread_unexchange(t->swapped, false);
    if (t->queued == Q_NONE)
        enqueue_ready(t, true);
    if (ts.cur && ts.cur != t && ts.cur->prio == t->prio)
        arm_slice(ts.cur);
}

void cairn__thread_unready(cairn_thread_t *t, uint8_t st)
{
    if (t->swapped && t->queued == Q_READY)
        cairn__thread_unexchange(t, false); /* a raised holder blocks: its place goes back */
    if (t->queued == Q_READY)
        unlink(t);
    t->state = st;
}

/* The running thread waits in state (already set) until it is ready again. */
static void block(cairn_thread_t *t)
{
    while (t->state != TH_READY)
        cairn__thread_resched();
}

HOT cairn_thread_t *self(void)
{
    return cairn_k.in_thread && !cairn_k.isr_depth ? ts.cur : 0;
}

cairn_thread_t *cairn__thread_current(void)
{
    return self();
}

void cairn__thread_ready(cairn_thread_t *t)
{
    make_ready(t);
}

void cairn__thread_block(cairn_thread_t *t)
{
    block(t);
}

void cairn__thread_place(cairn_thread_t *t)
{
    place(t);
}

void cairn__thread_set_prio(cairn_thread_t *t, cairn_prio_t p)
{
    t->prio = p;
    t->plevel = (uint8_t)level_of(p);
    place(t);
    t->shadow.prio = p;
    t->frame.prio = (cairn_prio_t)(p ? p - 1u : 0u);
    cairn_tcb_t *tcb = cairn__tcb(t->id);
    if (tcb && tcb->state == t)
        tcb->prio = p; /* its wake-ups are not held back behind the threads it outranks */
}

/* An event ends a receive or a sleep. */
static void wake(cairn_thread_t *t)
{
#if CAIRN_SEM_EMERALDS
    if (t->hint && cairn__sem_prewait(t))
        return;
#endif
    make_ready(t);
}

static cairn_thread_t *find(cairn_task_id_t id)
{
    if (!on())
        return 0;
    for (cairn_thread_t *t = ts.all; t; t = t->next)
        if (t->id == id)
            return t;
    return 0;
}

cairn_thread_t *cairn__thread_by_token(uint32_t tok)
{
    if (!on())
        return 0;
    for (cairn_thread_t *t = ts.all; t; t = t->next)
        if (t->token == tok)
            return t->state == TH_DEAD ? 0 : t;
    return 0;
}

/* ---- the mailbox (runs on the message level at the thread's priority) ------------ */

static cairn_ret_t mailbox(void *state, cairn_msg_t *msg)
{
    /* INIT and FINAL first: FINAL comes when the frame of an exited thread's mailbox ends,
     * and a joiner may have freed the thread by then. */
    if (msg->port == CAIRN_PORT_INIT || msg->port == CAIRN_PORT_FINAL)
        return CAIRN_OK;
    cairn_thread_t *t = state;
    if (t->state == TH_DEAD)
        return CAIRN_EINVAL;
    if (msg->port == CAIRN_PORT_TIMEOUT(CAIRN_THREAD_TIMER_WAKE)) {
        uint32_t rem, per;
        /* A stale expiry (the wait ended first, another began) has no running timer. */
        if ((t->state == TH_RECV || t->state == TH_SLEEP || t->state == TH_SEM) &&
            cairn__timer_query(t->id, CAIRN_THREAD_TIMER_WAKE, &rem, &per) != CAIRN_OK) {
            t->timed_out = 1;
            if (t->state == TH_SEM) {
                cairn__sem_cancel(t);
                make_ready(t);
            } else {
                wake(t);
            }
        }
    } else if (msg->port == CAIRN_PORT_TIMEOUT(CAIRN_THREAD_TIMER_SLICE)) {
        t->slice_armed = 0;
        if (t->state == TH_READY && peer_ready(t)) {
            ts.stats.slices++;
            to_back(t);
        }
    } else {
        if (t->count == CAIRN_THREAD_MAILBOX) {
            ts.stats.mailbox_full++;
            cairn__thread_resched();
            return CAIRN_EFULL;
        }
        cairn_msg_t m = *msg;
        if (msg->flags & CAIRN_MSG_HEAP) {
            if (cairn__payload_shared(msg->payload, msg)) {
                /* A multicast's payload: a copy, the thread's until it exits. */
                m.payload = cairn_take_msg(msg);
                m.flags = 0;
                if (!m.payload)
                    m.len = 0;
            } else {
                msg->flags |= CAIRN_MSG_TAKEN; /* kept: freed at the next receive */
                m.flags = CAIRN_MSG_HEAP;
            }
        }
        m.next = 0;
        t->box[(t->head + t->count) % CAIRN_THREAD_MAILBOX] = m;
        t->count++;
        if (t->state == TH_RECV) {
            (void)cairn_timer_cancel(t->id, CAIRN_THREAD_TIMER_WAKE);
            wake(t);
        }
    }
    cairn__thread_resched();
    return CAIRN_OK;
}

/* A heap payload the thread received and did not take (cairn_take_msg makes the
 * thread its owner). */
static void release(cairn_msg_t *m)
{
    if ((m->flags & CAIRN_MSG_HEAP) && cairn_heap_owner(m->payload) == CAIRN_TASK_NONE)
        cairn_free((void *)(uintptr_t)m->payload);
    m->flags = 0;
}

/* ---- the API ---------------------------------------------------------------------- */

cairn_ret_t cairn_thread_create(cairn_task_id_t id, const char *name, cairn_thread_fn_t fn,
                                void *arg, void *stack, size_t stack_size, cairn_prio_t prio,
                                const cairn_route_t *routes, uint8_t num_out)
{
    if (!fn || !stack || stack_size < CAIRN_THREAD_STACK_MIN || prio > CAIRN_PRIO_MAX ||
        cairn_k.isr_depth)
        return CAIRN_EINVAL;
    if (!on()) {
        /* The first thread since cairn_sched_init (which forgets every thread). */
        struct cairn_thread_state *st = cairn_malloc(sizeof *st);
        if (!st)
            return CAIRN_ENOMEM;
        cairn_heap_set_owner(st, CAIRN_TASK_NONE);
        cairn_k.threads = st;
    }
    if (!cairn_k.nthreads) { /* none left (or the first): the counters start again */
        uint32_t tokens = ts.tokens; /* not the tokens: a mutex may still hold an old one */
        __builtin_memset(&ts, 0, sizeof ts);
        ts.tokens = tokens;
    }
    uintptr_t lo = ((uintptr_t)stack + 3u) & ~(uintptr_t)3u;
    uintptr_t hi = ((uintptr_t)stack + stack_size) & ~(uintptr_t)7u;
    cairn_ret_t r = arch_thread_setup();
    if (r != CAIRN_OK)
        return r;
    cairn_thread_t *t = cairn_malloc(sizeof *t);
    if (!t)
        return CAIRN_ENOMEM;
    cairn_heap_set_owner(t, CAIRN_TASK_NONE);
    __builtin_memset(t, 0, sizeof *t);
    r = cairn_task_create(id, mailbox, t, prio, routes, num_out, 0);
    if (r == CAIRN_OK) {
        r = arch_thread_init(&t->ctx, (void *)(lo + 4u), (void *)hi);
        if (r != CAIRN_OK)
            cairn__task_remove(cairn__tcb(id));
    }
    if (r != CAIRN_OK) {
        cairn_free(t);
        return r;
    }
    cairn__tcb(id)->flags = TCB_READY; /* no INIT: the thread starts at fn */
    t->guard = (uint32_t *)lo;
    *t->guard = CAIRN_THREAD_GUARD;
    t->name = name ? name : "?";
    t->fn = fn;
    t->arg = arg;
    t->prio = prio;
    t->base = prio;
    t->id = id;
    ts.tokens += 2u;
    if (ts.tokens == 0) /* after 2^31 threads: 0 means a free mutex */
        ts.tokens = 2u;
    t->token = ts.tokens;
    t->shadow.prio = prio;
    t->shadow.id = id;
    t->frame.tcb = &t->shadow;
    t->frame.prio = (cairn_prio_t)(prio ? prio - 1u : 0u);
    uint32_t s = arch_irq_save();
    cairn_thread_t **p = &ts.all;
    while (*p)
        p = &(*p)->next;
    *p = t;
    cairn_k.nthreads++;
    t->plevel = (uint8_t)level_of(prio);
    make_ready(t);
    arch_irq_restore(s);
    cairn__thread_resched();
    return CAIRN_OK;
}

cairn_ret_t cairn__thread_send(cairn_task_id_t dst, cairn_port_t port, const void *payload,
                               size_t len)
{
    /* The kernel's priority meanwhile: the delivery queues the message (no handler
     * runs on this stack); the choice is made again afterwards. */
    cairn_frame_t *f = cairn_k.top;
    uint8_t prio = f->prio;
    f->prio = PRIO_KERNEL;
    cairn_ret_t r = dst == CAIRN_TASK_NONE ? cairn_send_from(ts.cur->id, port, payload, len)
                                           : cairn__post(dst, port, payload, len);
    f->prio = prio;
    cairn__thread_resched();
    return r;
}

_Noreturn void cairn__thread_entry(void)
{
    cairn_thread_t *t = ts.cur;
    t->fn(t->arg);
    cairn_thread_exit(0);
}

cairn_task_id_t cairn_thread_self(void)
{
    cairn_thread_t *t = self();
    return t ? t->id : CAIRN_TASK_NONE;
}

cairn_ret_t cairn_thread_receive(cairn_msg_t *msg, uint32_t timeout)
{
    cairn_thread_t *t = self();
    if (!t || !msg)
        return CAIRN_EINVAL;
    release(&t->held);
    bool timer = false;
    for (;;) {
        uint32_t s = arch_irq_save();
        if (t->count) {
            *msg = t->box[t->head];
            t->held = *msg;
            t->head = (uint8_t)((t->head + 1u) % CAIRN_THREAD_MAILBOX);
            t->count--;
            arch_irq_restore(s);
            if (timer)
                (void)cairn_timer_cancel(t->id, CAIRN_THREAD_TIMER_WAKE);
            return CAIRN_OK;
        }
        if (timeout == 0 || (t->timed_out && timeout != CAIRN_THREAD_FOREVER)) {
            t->timed_out = 0;
            arch_irq_restore(s);
            return CAIRN_EAGAIN;
        }
        t->timed_out = 0;
        cairn__thread_unready(t, TH_RECV);
        arch_irq_restore(s);
        if (timeout != CAIRN_THREAD_FOREVER && !timer) {
            timer = true;
            if (cairn_timer_set(t->id, CAIRN_THREAD_TIMER_WAKE, timeout, false) != CAIRN_OK) {
                s = arch_irq_save();
                if (t->state == TH_RECV)
                    cairn__thread_ready_first(t);
                arch_irq_restore(s);
                return CAIRN_ENOMEM;
            }
        }
        block(t);
    }
}

cairn_ret_t cairn_thread_sleep(uint32_t ticks)
{
    cairn_thread_t *t = self();
    if (!t)
        return CAIRN_EINVAL;
    if (ticks == 0) {
        cairn_thread_yield();
        return CAIRN_OK;
    }
    /* Off the ready list and the wake-up timer set in one masked section: an interrupt
     * between the two could switch t out before its timer existed, and t would sleep for
     * ever (a thread another interrupt wakes meanwhile is enough to switch). */
    uint32_t s = arch_irq_save();
    cairn__thread_unready(t, TH_SLEEP);
    if (cairn_timer_set(t->id, CAIRN_THREAD_TIMER_WAKE, ticks, false) != CAIRN_OK) {
        cairn__thread_ready_first(t);
        arch_irq_restore(s);
        return CAIRN_ENOMEM;
    }
    arch_irq_restore(s);
    block(t);
    t->timed_out = 0;
    return CAIRN_OK;
}

void cairn_thread_yield(void)
{
    cairn_thread_t *t = self();
    if (!t)
        return;
    uint32_t s = arch_irq_save();
    to_back(t);
    arch_irq_restore(s);
    cairn__thread_resched();
}

/* What a mailbox frame refers to once its task is gone: a killed mailbox, which stands aside
 * in the choice of a context (msg_level_outranks) and belongs to no task. In flash: nothing
 * writes through a frame's TCB once the frame's end has begun, the only time it is used. */
static const cairn_tcb_t exited_mailbox = {.handler = mailbox, .flags = TCB_KILLING};

/* A mailbox frame whose end an interrupt broke into still refers to its task: the task has
 * left the stack (cairn__end clears its flag first), so the exit frees it at once, while
 * the frame is on the suspended message level until it resumes. The end reads nothing of
 * the task after that point; the choice of a context walks those frames, so the frame
 * refers to the exited mailbox instead. */
static void forget_ending_frame(const cairn_tcb_t *tcb)
{
    for (cairn_frame_t *f = ts.msg_top; f; f = f->below)
        if (f->tcb == tcb)
            f->tcb = (cairn_tcb_t *)(uintptr_t)&exited_mailbox;
}

_Noreturn void cairn_thread_exit(int code)
{
    cairn_thread_t *t = self();
    if (!t) /* not a thread: nothing to end (the message level never exits) */
        __builtin_trap();
    release(&t->held);
    cairn__sem_exit(t);
    for (; t->count; t->count--, t->head = (uint8_t)((t->head + 1u) % CAIRN_THREAD_MAILBOX))
        release(&t->box[t->head]);
    uint32_t s = arch_irq_save();
    disarm_slice(t);
    cairn_tcb_t *tcb = cairn__tcb(t->id);
    if (tcb && tcb->state == t && (tcb->flags & TCB_ON_STACK)) {
        tcb->flags |= TCB_KILLING; /* its mailbox frame is on the message level: removed at its end */
    } else if (tcb && tcb->state == t) {
        forget_ending_frame(tcb);
        cairn__task_remove(tcb); /* its timers, queued messages, routes and heap blocks */
    }
    t->code = code;
    cairn__thread_unready(t, TH_DEAD);
    cairn_thread_t *j = t->joiner ? find(t->joiner) : 0;
    if (j && j->state == TH_JOIN)
        make_ready(j);
    arch_irq_restore(s);
    for (;;)
        arch_thread_reschedule();
}

cairn_ret_t cairn_thread_join(cairn_task_id_t id, int *code)
{
    cairn_thread_t *me = self();
    cairn_thread_t *t = find(id);
    if (!t || t == me || cairn_k.isr_depth)
        return CAIRN_EINVAL;
    if (t->state != TH_DEAD) {
        if (!me)
            return CAIRN_EAGAIN;
        if (t->joiner)
            return CAIRN_EBUSY;
        t->joiner = me->id;
        uint32_t s = arch_irq_save();
        cairn__thread_unready(me, TH_JOIN);
        arch_irq_restore(s);
        block(me);
    }
    if (code)
        *code = t->code;
    uint32_t s = arch_irq_save();
    cairn_thread_t **p = &ts.all;
    while (*p != t)
        p = &(*p)->next;
    *p = t->next;
    cairn_k.nthreads--;
    drop_unused_levels();
    arch_irq_restore(s);
    arch_thread_release(&t->ctx);
    cairn_free(t);
    return CAIRN_OK;
}

void cairn_thread_set_slice(uint32_t ticks)
{
    slice = ticks > CAIRN_TIMER_MAX_TICKS ? CAIRN_TIMER_MAX_TICKS : ticks;
}

uint32_t cairn_thread_get_slice(void)
{
    return slice;
}

void cairn_thread_stats(cairn_thread_stats_t *st)
{
    uint32_t s = arch_irq_save();
    if (on())
        *st = ts.stats;
    else
        __builtin_memset(st, 0, sizeof *st);
    arch_irq_restore(s);
}
