/*
 * Cairn OS thread tasks: the state the core (thread.c) shares with the ports'
 * context switch (arch/<port>/thread.c). Public API: cairn/thread.h.
 */
#ifndef CAIRN_CORE_THREAD_H
#define CAIRN_CORE_THREAD_H

#include <stddef.h>

#include "kernel.h"

#include "cairn/sem.h"
#include "cairn/thread.h"

/* A saved context: the stack pointer (armv6m: r4-r11 below the exception frame)
 * or, on the host, the port's own record. The switch code reads sp at offset 0. */
typedef struct cairn_ctx {
    uintptr_t sp;
    void *port;
} cairn_ctx_t;

/* Thread states. */
#define TH_READY 0u /* runnable (the running thread is READY too) */
#define TH_RECV 1u  /* in cairn_thread_receive */
#define TH_SLEEP 2u /* in cairn_thread_sleep */
#define TH_JOIN 3u  /* in cairn_thread_join */
#define TH_DEAD 4u  /* exited (or its guard word was found overwritten): waits to be joined */
#define TH_SEM 5u   /* waits for a semaphore (sem.c) */

/* Where a thread stands in the ready structure (its `queued`). */
#define Q_NONE 0u  /* in no list: blocked, dead, or not yet created */
#define Q_READY 1u /* ready, in the list of its priority's level */
#define Q_HOLD 2u  /* blocked on a mutex, holding its holder's place (EMERALDS's exchange) */

/* Exit code of a thread whose stack overflowed (where the port lets the module run on). */
#define CAIRN_THREAD_CODE_OVERFLOW (-92)

typedef struct cairn_thread {
    cairn_ctx_t ctx; /* first: the port's switch code */
    uint32_t *guard; /* the switch code checks it (CAIRN_THREAD_GUARD) */
    struct cairn_sem *mutexes; /* owned in the general path's state, linked by next_held */
    cairn_task_id_t id;
    uint8_t state;
    uint8_t queued; /* Q_* */
    uint8_t qlevel; /* the level whose list it is in */
    /* ^ the port's fast paths address the fields above with small offsets */
    struct cairn_thread *next;
    /* cairn_k.top while the thread runs. Its TCB is `shadow` (the thread's ID for
     * cairn_current_task; no output ports, so the send fast path always falls back to
     * the general path, which queues a thread's sends); its priority is one below
     * the thread's, so an interrupt that leaves a message of the thread's priority or
     * above queued requests a dispatch (PendSV) exactly as over a handler. */
    cairn_frame_t frame;
    /* What an uncontended mutex it took holds (cairn/sem.h): even, not reused before 2^31
     * threads were created. Right after the frame: the mutex fast path reaches it from
     * cairn_k.top. */
    uint32_t token;
    cairn_msg_t box[CAIRN_THREAD_MAILBOX];
    cairn_msg_t held; /* the last message received: its heap payload is freed at the next */
    const char *name;
    cairn_thread_fn_t fn;
    void *arg;
    /* The ready structure: a circular list per priority level, oldest first. */
    struct cairn_thread *rnext, *rprev;
    /* EMERALDS's exchange (sem.c): a raised holder holds its waiter's place and the
     * waiter its holder's; each names the other. */
    struct cairn_thread *swapped;
    uint32_t seq; /* arrival in its level: a holder restored to its own priority goes back by it */
    int code;
    cairn_prio_t prio; /* the priority it runs at: base, or inherited (sem.c) */
    cairn_prio_t base; /* its own */
    cairn_task_id_t joiner;
    uint8_t head, count; /* the mailbox ring */
    uint8_t timed_out;
    uint8_t slice_armed;
    uint8_t plevel; /* the level of its priority */
    /* Semaphores (sem.c). */
    struct cairn_thread *wnext;  /* the next waiter of `waiting` */
    struct cairn_sem *waiting;   /* in TH_SEM, or prewaiting */
    struct cairn_sem *hint;      /* the next take announced by the blocking call */
    struct cairn_sem *got;       /* given while it waited: its take returns at once */
    uint32_t wseq;               /* first come first served among waiters of a priority */
    cairn_tcb_t shadow; /* last: a TCB has a flexible array of routes (none here) */
} cairn_thread_t;

/* Offsets the armv6m switch code uses (checked below on 32-bit targets). */
#define CAIRN_TH_GUARD 8
/* The token follows the frame, whose message is longer under EDF and CSD (kernel.h). */
#if CAIRN_POLICY == CAIRN_POLICY_CSD
#define CAIRN_TH_TOKEN_AFTER_FRAME 36
#elif CAIRN_POLICY == CAIRN_POLICY_EDF
#define CAIRN_TH_TOKEN_AFTER_FRAME 32
#else
#define CAIRN_TH_TOKEN_AFTER_FRAME 28
#endif
#define CAIRN_TH_FRAME 24
#define CAIRN_TS_CUR 0
#define CAIRN_TS_NEXT 4

/* ---- the core, for the ports ------------------------------------------------------- */

/* With interrupts off and outside any interrupt handler: chooses the context to run
 * (the message level or a thread), checks the guard word of the thread it leaves,
 * and, when that is another context, updates the kernel's state and gives the two
 * contexts' records (*from: to save into, *to: to restore). Returns whether to switch. */
bool cairn__thread_pick(cairn_ctx_t **from, cairn_ctx_t **to);
/* The message level's context record (the switch code compares against it). */
extern cairn_ctx_t cairn__thread_msg_ctx;
/* What a new thread's context starts in (calls fn(arg), then cairn_thread_exit(0)). */
_Noreturn void cairn__thread_entry(void);
/* Whether cairn__thread_pick would switch now (no side effects). */
bool cairn__thread_should_switch(void);

/* ---- the core, for the semaphores (sem.c) ------------------------------------------ */

/* The running thread, or NULL on the message level or in an interrupt. */
cairn_thread_t *cairn__thread_current(void);
/* With interrupts off: t (blocked) is ready again, last of its priority. */
void cairn__thread_ready(cairn_thread_t *t);
/* With interrupts off: t (blocked, or holding a place) is ready again, first of its
 * priority: where it stood when it blocked (a mutex granted, a failed wait undone). */
void cairn__thread_ready_first(cairn_thread_t *t);
/* With interrupts off: the running thread t leaves the ready structure in state st. */
void cairn__thread_unready(cairn_thread_t *t, uint8_t st);
/* With interrupts off: EMERALDS's exchange. Holder h (ready), raised by waiter w (which
 * blocks now), takes w's place in w's level and w holds h's place in h's own. */
void cairn__thread_exchange(cairn_thread_t *h, cairn_thread_t *w);
/* With interrupts off: the exchange of h ends; when w is granted the mutex (ready) the
 * two take back their places (w ready), else h alone goes back to its place. */
void cairn__thread_unexchange(cairn_thread_t *h, bool w_ready);
/* The running thread t, its state set (not READY), waits until it is ready again. */
void cairn__thread_block(cairn_thread_t *t);
/* With interrupts off: t runs at priority p from now on (its frame and TCB too). A ready
 * t moves: raised, first of its new level (its waiter's place); lowered, back by its
 * arrival (a scan of the level, counted in the semaphores' requeue_steps). */
void cairn__thread_set_prio(cairn_thread_t *t, cairn_prio_t p);
/* With interrupts off: a ready t whose list is not its priority's moves there (as set_prio). */
void cairn__thread_place(cairn_thread_t *t);
/* An interrupt readied a thread: the choice is made again at the interrupt's end (armv6m:
 * PendSV), decided now when it is thread to thread. */
void cairn__thread_resched_isr(void);
/* Chooses again (a higher context may have become ready). */
void cairn__thread_resched(void);
/* sem.c's side of a thread's wake-ups, with interrupts off. A time limit ended the
 * wait of t (TH_SEM) on t->waiting: it leaves the waiters. */
void cairn__sem_cancel(cairn_thread_t *t);
/* An event woke t from a receive or sleep that announced t->hint: when the semaphore
 * is unavailable t joins its waiters (returns true); else false. */
bool cairn__sem_prewait(cairn_thread_t *t);
/* t exits: its mutexes go to their waiters. */
void cairn__sem_exit(cairn_thread_t *t);
/* cairn_sem_take and cairn_sem_give past the uncontended mutex's fast path (the port's, or
 * sem.c's own). */
cairn_ret_t cairn__sem_take_general(cairn_sem_t *s, uint32_t timeout);
cairn_ret_t cairn__sem_give_general(cairn_sem_t *s);
/* The live (not exited) thread whose token is tok, else NULL (a scan of the threads). */
cairn_thread_t *cairn__thread_by_token(uint32_t tok);

/* ---- the port ---------------------------------------------------------------------- */

/* Once, before the first thread (armv6m: installs the thread-aware PendSV).
 * CAIRN_ENOMEM when the port's memory cannot be had. */
cairn_ret_t arch_thread_setup(void);
/* Prepares c so that switching to it runs cairn__thread_entry on the stack
 * [lo, hi) (hi 8-byte aligned). CAIRN_ENOMEM: no context record left (host). */
cairn_ret_t arch_thread_init(cairn_ctx_t *c, void *lo, void *hi);
/* c will never run again (joined). */
void arch_thread_release(cairn_ctx_t *c);
/* Runs cairn__thread_pick and switches as soon as no interrupt handler is active
 * and interrupts are enabled (armv6m: pends PendSV): the switch an interrupt decided, or
 * one to or from the message level, or to a thread an interrupt preempted. */
void arch_thread_reschedule(void);
/* The switch a thread's own kernel call decided (a give that readies a higher thread, a block,
 * a yield): with interrupts masked by that call (they were enabled before it), outside any
 * interrupt handler, cur the running thread, next a thread whose saved context the port's
 * arch_thread_resumes_by_call(next->ctx.sp) (cairn_port.h) accepts, the guard word and the
 * slices settled by the caller. Makes next current (ts.cur, cairn_k.top = &next->frame) and
 * switches to it now, as a call, without an exception; returns when cur runs again, with
 * interrupts still masked (whichever switch resumes it, the caller's own restore unmasks). */
void arch_thread_switch(cairn_thread_t *cur, cairn_thread_t *next);
/* The running thread's own kernel call (interrupts masked by it, enabled before it) pended a
 * switch (arch_thread_reschedule) that arch_thread_switch does not make: lets it happen now, at
 * a point from which either switch can resume the thread. Returns when the thread runs again,
 * with interrupts enabled or masked (the caller's own restore decides). */
void arch_thread_switch_pended(void);
/* From an interrupt (or PendSV) over the running thread, before any other context may run:
 * a kernel sequence the thread was interrupted in is restarted or completed (armv6m: the
 * uncontended mutex's fast path, which does not mask interrupts). The host has none. */
void arch_thread_settle(void);
/* The guard word of thread name was found overwritten: reports it; armv6m stops
 * the module (semihosting exit CAIRN_EXIT_STACK_OVERFLOW); the host returns. */
void arch_thread_overflow(const char *name);

/* The thread service's state (one kernel-owned heap block from the first thread on, reached
 * through cairn_k.threads), with the semaphores' counters: they serve threads. */
/* The ready structure has a level per priority some thread has (its own or inherited,
 * which is another thread's own), at most one per thread. */
#define CAIRN_THREAD_LEVELS CAIRN_MAX_TASKS
_Static_assert(CAIRN_THREAD_LEVELS <= 32, "one bit per level in ready_mask");

struct cairn_thread_state {
    cairn_thread_t *cur; /* the running thread; NULL = the message level */
    /* A switch from the running thread to this one, decided and not yet made: the port may
     * make it without choosing again (armv6m: PendSV's fast path) while the message queue
     * is empty. Any change of the ready structure, or a reschedule request of the port's,
     * clears it. Its switch is counted already. */
    cairn_thread_t *next;
    uint32_t ready_mask; /* bit i: level i has a ready thread */
    cairn_thread_t *all; /* creation order */
    cairn_frame_t *msg_top; /* the message level's top while a thread runs */
    uint32_t seq;
    cairn_thread_stats_t stats;
    cairn_sem_stats_t sem_stats; /* sem.c; counted from the first thread on */
    uint32_t sem_wseq;           /* sem.c: the order waiters came in */
    uint32_t tokens;             /* the last thread token given (kept when the counters restart) */
    uint8_t nlevels;
    cairn_prio_t level_prio[CAIRN_THREAD_LEVELS];  /* ascending */
    uint8_t level_ready[CAIRN_THREAD_LEVELS];      /* ready threads in the list */
    cairn_thread_t *level_head[CAIRN_THREAD_LEVELS]; /* the oldest first */
};

/* The decided switch (next) is off: the port will choose again. */
static inline __attribute__((always_inline)) void cairn__thread_forget_next(void)
{
    struct cairn_thread_state *st = cairn_k.threads;
    if (st && st->next) {
        st->next = 0;
        st->stats.switches--;
    }
}

#if UINTPTR_MAX == 0xFFFFFFFFu
_Static_assert(offsetof(cairn_thread_t, guard) == CAIRN_TH_GUARD, "the switch code's guard");
_Static_assert(offsetof(cairn_thread_t, frame) == CAIRN_TH_FRAME, "the switch code's frame");
_Static_assert(offsetof(cairn_thread_t, token) == CAIRN_TH_FRAME + CAIRN_TH_TOKEN_AFTER_FRAME,
               "the mutex fast path's token");
_Static_assert(offsetof(struct cairn_thread_state, cur) == CAIRN_TS_CUR, "the switch code's cur");
_Static_assert(offsetof(struct cairn_thread_state, next) == CAIRN_TS_NEXT, "the switch code's next");
#endif

#endif /* CAIRN_CORE_THREAD_H */
