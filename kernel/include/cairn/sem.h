/*
 * Cairn OS counting semaphores and mutexes for thread tasks (docs/kernel.md,
 * "Semaphores"). A thread may block in cairn_sem_take (with a time limit); the
 * message level (a handler) cannot block, so it may only try-take and give.
 * Waiters are woken by priority, first come first served among equals.
 *
 * A mutex is a semaphore of one unit with an owner: only the owner gives it
 * back, and a thread that owns it runs at the priority of its highest waiter
 * (priority inheritance, followed along a chain of mutexes: the owner of the
 * mutex the owner waits for inherits too).
 *
 * With CAIRN_SEM_EMERALDS (the default) a thread may announce, in the blocking
 * call that precedes a take, which semaphore it takes next
 * (cairn_thread_receive_then, cairn_thread_sleep_then): when the event wakes it
 * and that semaphore is unavailable, the thread is not switched to only to block
 * at once, it joins the semaphore's waiters right away (its holder inherits its
 * priority then). After EMERALDS (Zuberi, Pillai and Shin, SOSP 1999).
 */
#ifndef CAIRN_SEM_H
#define CAIRN_SEM_H

#include <stdint.h>

#include "cairn/msg.h"
#include "cairn/types.h"
#include "cairn_port.h" /* CAIRN_PORT_MUTEX_INLINE */

#ifndef CAIRN_SEM_EMERALDS
#define CAIRN_SEM_EMERALDS 1
#endif

struct cairn_thread;

/* Kept by the caller (static or on a stack that outlives every user); all of it
 * belongs to the kernel (cairn_mutex_owner reads a mutex's owner).
 *
 * A mutex's uncontended state is the one word `lock`: 0 free, or the token of the thread
 * that took it (even, not reused before 2^31 threads were created), so that the uncontended take and give are a load, a
 * comparison and a store. The fields below it are derived from that word when the general
 * path needs them (a contender, a handler, an error), which marks the word CAIRN_SEM_SLOW:
 * then they hold the state, until the mutex is free with nobody waiting again. A counting
 * semaphore's word is always CAIRN_SEM_SLOW. */
#define CAIRN_SEM_SLOW 1u
typedef struct cairn_sem {
    uint32_t lock;
    struct cairn_thread *waiters; /* unordered: the give picks the best */
    struct cairn_thread *holder;  /* a mutex owned by a thread */
    struct cairn_sem *next_held;  /* the holder's other mutexes */
    uint16_t count, max;
    cairn_task_id_t owner;        /* a mutex's owner (thread or handler), else CAIRN_TASK_NONE */
    uint8_t mutex;
} cairn_sem_t;

/* A counting semaphore of count units, at most max (1..65535).
 * CAIRN_EINVAL: s NULL, max 0 or count > max. */
cairn_ret_t cairn_sem_init(cairn_sem_t *s, uint16_t count, uint16_t max);
/* A free mutex. CAIRN_EINVAL: m NULL. */
cairn_ret_t cairn_mutex_init(cairn_sem_t *m);

/* Takes a unit (a mutex: becomes its owner), waiting up to timeout hardware ticks
 * (0: do not wait; CAIRN_THREAD_FOREVER). CAIRN_EAGAIN: not in time; CAIRN_EINVAL:
 * s NULL, or called from the message level or an interrupt (neither can wait) with
 * a timeout other than 0; CAIRN_EBUSY: the caller already owns the mutex;
 * CAIRN_ENOMEM: no timer for the time limit. */
cairn_ret_t cairn_sem_take(cairn_sem_t *s, uint32_t timeout);
/* cairn_sem_take(s, 0): the one take allowed on the message level. */
cairn_ret_t cairn_sem_try_take(cairn_sem_t *s);
/* Gives a unit back, straight to the best waiter if any. CAIRN_EINVAL: s NULL, or a
 * mutex the caller does not own; CAIRN_EFULL: a semaphore already at max.
 * Refusals are counted (cairn_sem_stats). */
cairn_ret_t cairn_sem_give(cairn_sem_t *s);

/* cairn_sem_take(m, CAIRN_THREAD_FOREVER) and cairn_sem_give(m), with the uncontended case
 * of a mutex inline at the call site where the port has it (armv6m: no call at all). */
#ifdef CAIRN_PORT_MUTEX_INLINE
#include CAIRN_PORT_MUTEX_INLINE
#else
static inline cairn_ret_t cairn_mutex_lock(cairn_sem_t *m)
{
    return cairn_sem_take(m, UINT32_MAX /* CAIRN_THREAD_FOREVER */);
}

static inline cairn_ret_t cairn_mutex_unlock(cairn_sem_t *m)
{
    return cairn_sem_give(m);
}
#endif

/* The task that owns mutex m, else (free, or not a mutex) CAIRN_TASK_NONE. */
cairn_task_id_t cairn_mutex_owner(const cairn_sem_t *m);

/* cairn_thread_receive / cairn_thread_sleep announcing that the thread will call
 * cairn_sem_take(next, CAIRN_THREAD_FOREVER) next (next may be NULL: no hint).
 * Without CAIRN_SEM_EMERALDS the hint is ignored. When the wake-up found next
 * unavailable, the thread returns from the call already holding it, and the
 * take it announced returns CAIRN_OK at once. */
cairn_ret_t cairn_thread_receive_then(cairn_msg_t *msg, uint32_t timeout, cairn_sem_t *next);
cairn_ret_t cairn_thread_sleep_then(uint32_t ticks, cairn_sem_t *next);

typedef struct cairn_sem_stats {
    uint32_t blocks;     /* takes that waited */
    uint32_t timeouts;   /* takes that gave up */
    uint32_t inherits;   /* priority raises by inheritance */
    uint32_t prewaits;   /* wake-ups that joined a semaphore's waiters at once (hint) */
    uint32_t refused;    /* gives refused (not the owner, at max), takes refused */
    uint32_t exchanges;  /* raises by EMERALDS's exchange of places (O(1)) */
    uint32_t requeue_steps; /* ready threads passed to put a lowered holder back in its place */
    uint32_t fast_restarts;    /* uncontended takes/gives an interrupt stopped before their
                                  store: restarted (a port whose fast path does not mask
                                  interrupts) */
    uint32_t fast_completions; /* ... stopped half-way through their stores: completed by the
                                  kernel (0 where the uncontended path is one store) */
} cairn_sem_stats_t;

/* Counted from the first thread on (zeros before): the counters live in the thread
 * service's state, which a kernel without threads does not allocate. */
void cairn_sem_stats(cairn_sem_stats_t *st);

#endif /* CAIRN_SEM_H */
