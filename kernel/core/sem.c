/*
 * Cairn OS semaphores and mutexes for threads (cairn/sem.h; docs/kernel.md,
 * "Semaphores").
 *
 * A give hands the unit straight to the best waiter (highest priority, then the
 * longest waiting), which returns from its take already holding it: no other
 * context can take the unit between the give and the waiter's run.
 *
 * Priority inheritance: a thread runs at the highest of its own priority and its
 * owned mutexes' waiters' priorities, recomputed wherever that set changes; when
 * the thread itself waits for a mutex, its owner is recomputed in turn (the chain;
 * a cycle, a deadlock, ends the walk after CAIRN_MAX_TASKS steps).
 *
 * A mutex's uncontended take and give change one word, `lock` (cairn/sem.h): 0 free, or
 * the taker's token. The general path first unfolds it into the fields (count, owner,
 * holder, the holder's list), marking it CAIRN_SEM_SLOW, and folds it back to 0 when the
 * mutex is free with nobody waiting. A token whose thread has exited is a free mutex: that
 * thread left it uncontended, so nobody waited to be handed it.
 *
 * The ready threads are a list per priority, oldest first (thread.c). A raised holder
 * runs first of its new priority, in its waiter's place; lowered back, it returns to its
 * place among its own priority's threads, found by arrival: a scan of that list. With
 * CAIRN_SEM_EMERALDS the raise is EMERALDS's exchange of places instead (the blocked
 * waiter holds the holder's place), and the give that hands the mutex to that waiter
 * exchanges them back: O(1), and the same order of execution (docs/kernel.md,
 * "Semaphores").
 */
#include "thread.h"

#include "cairn/sem.h"
#include "cairn/timer.h"

/* The counters and the waiters' order live in the thread service's block (thread.h): a
 * semaphore blocks only threads, and a kernel without threads keeps its static RAM. */
#define COUNT(field)                                                                           \
    do {                                                                                       \
        if (cairn_k.threads)                                                                   \
            cairn_k.threads->sem_stats.field++;                                                \
    } while (0)
/* An interrupt's give readied a thread: the choice is made again when the interrupt
 * ends (armv6m: PendSV), as cairn_isr_exit only looks for queued messages. */
static bool woke_in_isr;

cairn_ret_t cairn_sem_init(cairn_sem_t *s, uint16_t count, uint16_t max)
{
    if (!s || !max || count > max)
        return CAIRN_EINVAL;
    __builtin_memset(s, 0, sizeof *s);
    s->lock = CAIRN_SEM_SLOW;
    s->count = count;
    s->max = max;
    return CAIRN_OK;
}

cairn_ret_t cairn_mutex_init(cairn_sem_t *m)
{
    cairn_ret_t r = cairn_sem_init(m, 1, 1);
    if (r == CAIRN_OK) {
        m->mutex = 1;
        m->lock = 0;
    }
    return r;
}

/* Interrupts off: the fields from the one-word state of an uncontended mutex. */
static void unfold_word(cairn_sem_t *s)
{
    uint32_t w = s->lock;
    cairn_thread_t *t = w ? cairn__thread_by_token(w) : 0;
    s->holder = t;
    s->waiters = 0;
    if (t) {
        s->count = 0;
        s->owner = t->id;
        s->next_held = t->mutexes;
        t->mutexes = s;
    } else {
        s->count = 1;
        s->owner = CAIRN_TASK_NONE;
        s->next_held = 0;
    }
    s->lock = CAIRN_SEM_SLOW;
}

/* Interrupts off, s a mutex. */
static inline __attribute__((always_inline)) void unfold(cairn_sem_t *s)
{
    if (s->lock != CAIRN_SEM_SLOW)
        unfold_word(s);
}

/* Interrupts off: a mutex (never a counting semaphore, whose word stays CAIRN_SEM_SLOW)
 * free with nobody waiting is one word again. */
static inline __attribute__((always_inline)) void fold(cairn_sem_t *s)
{
    if (s->count && !s->waiters)
        s->lock = 0;
}

cairn_task_id_t cairn_mutex_owner(const cairn_sem_t *m)
{
    if (!m || !m->mutex)
        return CAIRN_TASK_NONE;
    uint32_t irq = arch_irq_save();
    cairn_task_id_t id = m->owner;
    if (m->lock != CAIRN_SEM_SLOW) {
        cairn_thread_t *t = m->lock ? cairn__thread_by_token(m->lock) : 0;
        id = t ? t->id : CAIRN_TASK_NONE;
    }
    arch_irq_restore(irq);
    return id;
}

static bool better(const cairn_thread_t *a, const cairn_thread_t *b)
{
    return !b || a->prio > b->prio || (a->prio == b->prio && a->wseq < b->wseq);
}

static cairn_thread_t *best_waiter(const cairn_sem_t *s)
{
    cairn_thread_t *best = 0;
    for (cairn_thread_t *w = s->waiters; w; w = w->wnext)
        if (better(w, best))
            best = w;
    return best;
}

static void unlink_waiter(cairn_sem_t *s, cairn_thread_t *t)
{
    if (t->queued == Q_HOLD)
        cairn__thread_unexchange(t->swapped, false); /* its holder goes back to its place */
    for (cairn_thread_t **p = &s->waiters; *p; p = &(*p)->wnext)
        if (*p == t) {
            *p = t->wnext;
            break;
        }
    t->wnext = 0;
    t->waiting = 0;
}

/* Priority inheritance along the chain from t (interrupts off). */
static void inherit(cairn_thread_t *t)
{
    for (unsigned n = 0; t && n < CAIRN_MAX_TASKS; n++) {
        cairn_prio_t p = t->base;
        for (const cairn_sem_t *m = t->mutexes; m; m = m->next_held)
            for (const cairn_thread_t *w = m->waiters; w; w = w->wnext)
                if (w->prio > p)
                    p = w->prio;
        if (p == t->prio)
            return;
        if (p > t->prio)
            COUNT(inherits);
        cairn__thread_set_prio(t, p);
        t = t->waiting && t->waiting->mutex ? t->waiting->holder : 0;
    }
}

static void own(cairn_sem_t *s, cairn_thread_t *t, cairn_task_id_t id)
{
    if (!s->mutex)
        return;
    s->owner = id;
    s->holder = t;
    if (t) {
        s->next_held = t->mutexes;
        t->mutexes = s;
    }
}

static void disown(cairn_sem_t *s)
{
    cairn_thread_t *t = s->holder;
    if (t)
        for (cairn_sem_t **p = &t->mutexes; *p; p = &(*p)->next_held)
            if (*p == s) {
                *p = s->next_held;
                break;
            }
    s->next_held = 0;
    s->holder = 0;
    s->owner = CAIRN_TASK_NONE;
}

/* Whether a unit is free now (interrupts off): takes it for t (or the handler id). */
static bool grab(cairn_sem_t *s, cairn_thread_t *t, cairn_task_id_t id)
{
    if (!s->count)
        return false;
    s->count--;
    own(s, t, id);
    return true;
}

static void enqueue(cairn_sem_t *s, cairn_thread_t *t)
{
    cairn_thread_t *h = s->mutex ? s->holder : 0;
#if CAIRN_SEM_EMERALDS
    /* EMERALDS: the holder takes the waiter's place, the waiter holds the holder's; when the
     * holder already runs at least as high nothing moves. */
    if (h && h->queued == Q_READY && t->prio > h->prio) {
        cairn__thread_exchange(h, t);
        t->state = TH_SEM;
    } else
#endif
        cairn__thread_unready(t, TH_SEM);
    t->waiting = s;
    t->wseq = ++cairn_k.threads->sem_wseq;
    t->wnext = s->waiters;
    s->waiters = t;
    COUNT(blocks);
    if (h)
        inherit(h);
}

/* The uncontended mutex, taken and given by a thread: its word, under PRIMASK, no call.
 * Everything else (a semaphore, a handler, an interrupt, waiters, inheritance, the
 * announced take, errors) takes the general path below. */
static inline bool thread_running(void)
{
    return cairn_k.in_thread && !cairn_k.isr_depth;
}

#ifndef CAIRN_PORT_SEM_FAST /* else the port's, in assembly (armv6m: sem_fast.c) */
cairn_ret_t cairn_sem_take(cairn_sem_t *s, uint32_t timeout)
{
    if (s && s->mutex) {
        uint32_t irq = arch_irq_save();
        if (!s->lock && thread_running()) {
            s->lock = cairn_k.threads->cur->token;
            arch_irq_restore(irq);
            return CAIRN_OK;
        }
        arch_irq_restore(irq);
    }
    return cairn__sem_take_general(s, timeout);
}
#endif

cairn_ret_t cairn__sem_take_general(cairn_sem_t *s, uint32_t timeout)
{
    if (!s)
        return CAIRN_EINVAL;
    cairn_thread_t *t = cairn__thread_current();
    if (t && t->got == s) {
        t->got = 0; /* announced by the blocking call, given while it waited */
        return CAIRN_OK;
    }
    /* Neither the message level nor an interrupt can wait, and an interrupt cannot own. */
    if ((!t && timeout) || (cairn_k.isr_depth && s->mutex)) {
        COUNT(refused);
        return CAIRN_EINVAL;
    }
    cairn_task_id_t me = t ? t->id : cairn_current_task();
    uint32_t irq = arch_irq_save();
    if (s->mutex) {
        unfold(s);
        if (s->owner == me && me != CAIRN_TASK_NONE) {
            COUNT(refused);
            arch_irq_restore(irq);
            return CAIRN_EBUSY;
        }
    }
    if (grab(s, t, me)) {
        arch_irq_restore(irq);
        return CAIRN_OK;
    }
    if (!timeout) {
        arch_irq_restore(irq);
        return CAIRN_EAGAIN;
    }
    t->timed_out = 0;
    t->got = 0;
    enqueue(s, t);
    arch_irq_restore(irq);
    if (timeout != CAIRN_THREAD_FOREVER &&
        cairn_timer_set(t->id, CAIRN_THREAD_TIMER_WAKE, timeout, false) != CAIRN_OK) {
        irq = arch_irq_save();
        if (t->waiting == s) {
            unlink_waiter(s, t);
            cairn__thread_ready_first(t);
            if (s->mutex)
                inherit(s->holder);
            arch_irq_restore(irq);
            cairn__thread_resched();
            return CAIRN_ENOMEM;
        }
        arch_irq_restore(irq); /* given meanwhile: it is ours */
    }
    cairn__thread_resched();
    cairn__thread_block(t);
    irq = arch_irq_save();
    bool got = t->got == s;
    t->got = 0;
    t->timed_out = 0;
    arch_irq_restore(irq);
    if (!got) {
        COUNT(timeouts);
        return CAIRN_EAGAIN;
    }
    if (timeout != CAIRN_THREAD_FOREVER)
        (void)cairn_timer_cancel(t->id, CAIRN_THREAD_TIMER_WAKE);
    return CAIRN_OK;
}

cairn_ret_t cairn_sem_try_take(cairn_sem_t *s)
{
    return cairn_sem_take(s, 0);
}

/* Gives s (interrupts off) to its best waiter or back to the count. */
static void hand_over(cairn_sem_t *s)
{
    cairn_thread_t *w = best_waiter(s);
    if (!w) {
        s->count++;
        return;
    }
    if (cairn_k.isr_depth)
        woke_in_isr = true;
    unlink_waiter(s, w);
    own(s, w, w->id);
    w->got = s;
    if (s->mutex) {
        inherit(w); /* the other waiters now wait for w */
        cairn__thread_ready_first(w); /* back where it blocked, first of its priority */
    } else {
        cairn__thread_ready(w);
    }
}

#ifndef CAIRN_PORT_SEM_FAST
cairn_ret_t cairn_sem_give(cairn_sem_t *s)
{
    if (s && s->mutex) {
        uint32_t irq = arch_irq_save();
        if (thread_running() && s->lock == cairn_k.threads->cur->token) {
            s->lock = 0; /* nobody waits (else the word is CAIRN_SEM_SLOW) */
            arch_irq_restore(irq);
            return CAIRN_OK;
        }
        arch_irq_restore(irq);
    }
    return cairn__sem_give_general(s);
}
#endif

cairn_ret_t cairn__sem_give_general(cairn_sem_t *s)
{
    if (!s)
        return CAIRN_EINVAL;
    cairn_thread_t *t = cairn__thread_current();
    cairn_task_id_t me = t ? t->id : cairn_current_task();
    uint32_t irq = arch_irq_save();
    cairn_ret_t r = CAIRN_OK;
    if (s->mutex) {
        unfold(s);
        if (s->count || s->owner != me || cairn_k.isr_depth) {
            r = CAIRN_EINVAL;
        } else {
            cairn_thread_t *h = s->holder;
#if CAIRN_SEM_EMERALDS
            cairn_thread_t *w = h ? h->swapped : 0;
            if (w && w->waiting == s && best_waiter(s) == w) {
                /* The exchange undone: w ready in its own place, h back in its own. */
                cairn__thread_unexchange(h, true);
                disown(s);
                unlink_waiter(s, w);
                own(s, w, w->id);
                w->got = s;
                inherit(w);
                inherit(h);
                cairn__thread_place(h); /* kept high by another mutex: moves up */
            } else
#endif
            {
                disown(s);
                if (h)
                    inherit(h); /* back to what its other mutexes' waiters ask */
                hand_over(s);
            }
        }
        fold(s); /* also after a refusal: a free mutex unfolded to check the caller */
    } else if (s->count == s->max) {
        r = CAIRN_EFULL;
    } else {
        hand_over(s);
    }
    if (r != CAIRN_OK)
        COUNT(refused);
    bool dispatch = woke_in_isr;
    woke_in_isr = false;
    arch_irq_restore(irq);
    if (dispatch)
        cairn__thread_resched_isr();
    else if (r == CAIRN_OK)
        cairn__thread_resched();
    return r;
}

void cairn__sem_cancel(cairn_thread_t *t)
{
    cairn_sem_t *s = t->waiting;
    if (!s)
        return;
    unlink_waiter(s, t);
    if (s->mutex)
        inherit(s->holder);
}

bool cairn__sem_prewait(cairn_thread_t *t)
{
    cairn_sem_t *s = t->hint;
    t->hint = 0;
    if (s->mutex)
        unfold(s);
    if (s->count || (s->mutex && s->holder == t)) {
        if (s->mutex)
            fold(s);
        return false;
    }
    COUNT(prewaits);
    t->got = 0;
    enqueue(s, t);
    return true;
}

void cairn__sem_exit(cairn_thread_t *t)
{
    uint32_t irq = arch_irq_save();
    while (t->mutexes) {
        cairn_sem_t *s = t->mutexes;
        disown(s);
        hand_over(s);
        fold(s); /* a mutex: t's list holds only mutexes */
    }
    arch_irq_restore(irq);
}

static cairn_ret_t announce(cairn_sem_t *next)
{
    cairn_thread_t *t = cairn__thread_current();
    if (!t)
        return CAIRN_EINVAL;
#if CAIRN_SEM_EMERALDS
    t->hint = next;
#else
    (void)next;
#endif
    return CAIRN_OK;
}

cairn_ret_t cairn_thread_receive_then(cairn_msg_t *msg, uint32_t timeout, cairn_sem_t *next)
{
    cairn_ret_t r = announce(next);
    if (r == CAIRN_OK) {
        r = cairn_thread_receive(msg, timeout);
        cairn__thread_current()->hint = 0; /* not used: no wake-up came through an event */
    }
    return r;
}

cairn_ret_t cairn_thread_sleep_then(uint32_t ticks, cairn_sem_t *next)
{
    cairn_ret_t r = announce(next);
    if (r == CAIRN_OK) {
        r = cairn_thread_sleep(ticks);
        cairn__thread_current()->hint = 0;
    }
    return r;
}

void cairn_sem_stats(cairn_sem_stats_t *st)
{
    uint32_t irq = arch_irq_save();
    if (cairn_k.threads)
        *st = cairn_k.threads->sem_stats;
    else
        __builtin_memset(st, 0, sizeof *st);
    arch_irq_restore(irq);
}
