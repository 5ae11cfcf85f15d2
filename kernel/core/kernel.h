/*
 * Cairn OS core: the scheduler's private state, shared by the files of
 * kernel/core/ only (applications use the headers in include/cairn/).
 */
#ifndef CAIRN_CORE_KERNEL_H
#define CAIRN_CORE_KERNEL_H

#include "cairn/arch.h"
#include "cairn/irq.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/trace.h"
#include "cairn/types.h"

/* ---- task control block ------------------------------------------------------ */

/* TCB flags. The armv6m fast paths write READY | ON_STACK over the whole byte when they
 * put a task on the stack (one MOVS, no load: their cycle budget has no room for more), so
 * no flag below READY may matter once READY is set: INIT_SENT counts only before INIT is
 * handled, and whether a task may migrate is kept in cairn_k.movable, not here. */
#define TCB_INIT_SENT 0x10u /* INIT was sent (cairn_task_init), not yet handled */
#define TCB_READY 0x20u     /* INIT was handled: messages are no longer buffered */
#define TCB_ON_STACK 0x40u  /* its handler is on the stack: its messages wait */
#define TCB_KILLING 0x80u   /* being killed: removed when its handler returns */

/* The TCB and the task's routing table are one heap block owned by the kernel:
 * the table (num_out entries) follows the TCB. */
typedef struct cairn_tcb {
    void *state; /* state, then handler: the fast paths load both with one LDM */
    cairn_handler_t handler;
    cairn_prio_t prio;
    cairn_task_id_t id;
    uint8_t flags;
    uint8_t num_out;
    cairn_route_t routes[]; /* output port -> (task, input port) */
} cairn_tcb_t;

_Static_assert(sizeof(void *) != 4 || sizeof(cairn_tcb_t) == 12,
               "TCB is 12 bytes on 32-bit targets (the target is <= 16)");
_Static_assert(sizeof(void *) != 8 || sizeof(cairn_tcb_t) == 24, "TCB is 24 bytes on 64-bit hosts");
_Static_assert(sizeof(void *) != 4 || CAIRN_POLICY != CAIRN_POLICY_FP || sizeof(cairn_msg_t) == 16,
               "a message is 16 bytes on 32-bit targets (20 with EDF's deadline, 24 with CSD's queue)");
_Static_assert(sizeof(cairn_route_t) == 2, "a route is 2 bytes");

/* ---- the execution stack ------------------------------------------------------ */

/* Priority of a kernel frame (the application manager): above every task. */
#define PRIO_KERNEL 255

/* One level of the execution stack: struct cairn_frame (cairn/irq.h, public only
 * because an interrupt binding embeds one). */
typedef struct cairn_frame cairn_frame_t;

/* ---- scheduler state ------------------------------------------------------------ */

/* The armv6m fast paths (arch/armv6m/fast.c) address these fields with small
 * immediate offsets: the scalars first, then tasks[] indexed by ID, whose slot 0
 * (CAIRN_TASK_NONE) is always NULL so the kernel's own frames (task 0) need no
 * special case. */
/* The heap's state (heap.c). */
struct cairn_heap_state {
    uint8_t *base;
    uint32_t size;
    struct cairn_fblk *free; /* free blocks, in address order */
    uint32_t alloc_failures;
    uint32_t bad_frees;
};

/* The seam to the bus manager (kernel/core/net/, docs/distributed.md): NULL on a module
 * without one, so the core links none of it; cairn_net_init installs it. */
struct cairn_net_ops {
    /* A message whose destination has no local TCB: to the bus when it is a remote task
     * (CAIRN_OK, or an error), else CAIRN__NOT_REMOTE. */
    cairn_ret_t (*forward)(struct cairn_frame *f);
    /* A group message from this module: broadcast it (the local members follow). */
    cairn_ret_t (*mcast)(struct cairn_frame *f);
    /* Whether a remote TCB has id; make one (cairn_task_create_remote). */
    bool (*is_remote)(cairn_task_id_t id);
    cairn_ret_t (*create_remote)(cairn_task_id_t id, cairn_prio_t prio, uint8_t module);
    cairn_ret_t (*remove_remote)(cairn_task_id_t id);
    /* Whether a message buffered for the bus (other than self) holds heap payload p. */
    bool (*holds)(const void *p, const cairn_msg_t *self);
    uint8_t (*address)(void);
    /* The kernel is about to sleep (interrupts masked): the bus manager's interrupts
     * may have been refused a message (a full pool); they may come again. */
    void (*idle)(void);
};
#define CAIRN__NOT_REMOTE 1

typedef struct cairn_kernel {
    struct cairn_heap_state heap; /* first: the send fast path loads base and size with one LDM */
    cairn_frame_t *top;    /* top of the execution stack; NULL = idle, or in an ISR */
    cairn_msg_t *queue;    /* by priority (high first), then creation */
    cairn_msg_t *free;     /* free messages of the pool */
    cairn_frame_t *isr_top; /* the interrupted code's top while in an ISR */
    uint8_t isr_depth;     /* interrupt nesting (cairn_isr_enter) */
    uint8_t in_thread;     /* a thread task runs (thread.c): top is its frame */
    uint8_t nthreads;      /* threads created and not joined yet */
    /* A dispatch loop is between handlers above the level cairn__gap_level names (0: none):
     * an interrupt that returns to that level leaves its messages to the loop's next
     * dequeue instead of nesting another dispatch (sched.c). The padding byte before stats:
     * no static RAM. */
    uint8_t gap;
    cairn_sched_stats_t stats;
    /* By ID; tasks[CAIRN_TASK_NONE] and tasks[CAIRN_TASK_MCAST] stay NULL, so any
     * route's task byte indexes it safely. */
    cairn_tcb_t *tasks[CAIRN_MAX_TASKS + 2];
    /* Multicast (mcast.c): the members of all groups (group 0 = a free entry) and
     * the group IDs reserved (bit g-1: group g). */
    struct cairn_member {
        uint8_t group;
        cairn_task_id_t task;
        cairn_port_t port;
    } members[CAIRN_MCAST_ENTRIES];
    uint32_t groups_used;
    const struct cairn_net_ops *net;
    uint32_t movable; /* bit id: task id may migrate (CAIRN_TASK_MOVABLE at its creation) */
    /* The thread service's state (thread.c): a kernel-owned heap block from the first
     * thread on, so that a kernel without threads spends 4 bytes of static RAM on them. */
    struct cairn_thread_state *threads;
#if CAIRN_POLICY != CAIRN_POLICY_FP
    /* EDF and CSD: the tasks' relative deadlines (and queues), a kernel-owned heap block
     * from the first cairn_task_deadline / cairn_task_queue on (policy.c). */
    struct cairn_policy_state *policy;
#endif
} cairn_kernel_t;

_Static_assert(CAIRN_MAX_TASKS < 32, "cairn_k.movable has a bit per task ID");

extern cairn_kernel_t cairn_k;

/* Whether task id was created movable (CAIRN_TASK_MOVABLE). */
static inline bool cairn__movable(cairn_task_id_t id)
{
    return id < 32u && ((cairn_k.movable >> id) & 1u);
}

/* Offsets the armv6m assembly uses (checked below on 32-bit targets). */
#define CAIRN_K_HEAP 0
#define CAIRN_K_TOP 20
#define CAIRN_K_QUEUE 24
#define CAIRN_K_TASKS 60
/* cairn_k.threads: after tasks[] (CAIRN_MAX_TASKS + 2 pointers), the multicast members (3
 * bytes each, padded to a word), groups_used, net and movable. An expression, not a number,
 * so that a firmware built with more task IDs gets its own offset: the assembler evaluates
 * it where the armv6m paths stringify it. */
#define CAIRN_K_THREADS                                                                            \
    (CAIRN_K_TASKS + 4 * (CAIRN_MAX_TASKS + 2) + (3 * CAIRN_MCAST_ENTRIES + 3) / 4 * 4 + 12)
#define CAIRN_TCB_STATE 0
#define CAIRN_TCB_HANDLER 4
#define CAIRN_TCB_PRIO 8
#define CAIRN_TCB_FLAGS 10
#define CAIRN_TCB_NUM_OUT 11
#define CAIRN_TCB_ROUTES 12
#define CAIRN_MSG_PAYLOAD 4
#define CAIRN_MSG_LEN 8
#define CAIRN_MSG_PRIO 12
#define CAIRN_FRAME_TCB 4
#define CAIRN_FRAME_PRIO 8
#define CAIRN_FRAME_MSG 12

#if UINTPTR_MAX == 0xFFFFFFFFu
#define CAIRN__AT(type, field, off) _Static_assert(__builtin_offsetof(type, field) == (off), "asm offset")
CAIRN__AT(cairn_kernel_t, heap, CAIRN_K_HEAP);
CAIRN__AT(cairn_kernel_t, top, CAIRN_K_TOP);
CAIRN__AT(cairn_kernel_t, queue, CAIRN_K_QUEUE);
CAIRN__AT(cairn_kernel_t, tasks, CAIRN_K_TASKS);
CAIRN__AT(cairn_kernel_t, threads, CAIRN_K_THREADS);
_Static_assert(CAIRN_K_THREADS <= 255, "the armv6m paths load cairn_k.threads's offset with one MOVS");
CAIRN__AT(cairn_tcb_t, handler, CAIRN_TCB_HANDLER);
CAIRN__AT(cairn_tcb_t, state, CAIRN_TCB_STATE);
CAIRN__AT(cairn_tcb_t, prio, CAIRN_TCB_PRIO);
CAIRN__AT(cairn_tcb_t, id, CAIRN_TCB_PRIO + 1);
CAIRN__AT(cairn_tcb_t, flags, CAIRN_TCB_FLAGS);
CAIRN__AT(cairn_tcb_t, num_out, CAIRN_TCB_NUM_OUT);
CAIRN__AT(cairn_tcb_t, routes, CAIRN_TCB_ROUTES);
CAIRN__AT(cairn_msg_t, payload, CAIRN_MSG_PAYLOAD);
CAIRN__AT(cairn_msg_t, len, CAIRN_MSG_LEN);
CAIRN__AT(cairn_msg_t, port, CAIRN_MSG_LEN + 2);
CAIRN__AT(cairn_msg_t, src, CAIRN_MSG_LEN + 3);
CAIRN__AT(cairn_msg_t, prio, CAIRN_MSG_PRIO);
CAIRN__AT(cairn_msg_t, dst, CAIRN_MSG_PRIO + 1);
CAIRN__AT(cairn_frame_t, tcb, CAIRN_FRAME_TCB);
CAIRN__AT(cairn_frame_t, prio, CAIRN_FRAME_PRIO);
CAIRN__AT(cairn_frame_t, msg, CAIRN_FRAME_MSG);
_Static_assert(CAIRN_POLICY != CAIRN_POLICY_FP || sizeof(cairn_frame_t) == 28, "frame size");
#undef CAIRN__AT
#endif
/* The run state is the top three flag bits: READY alone means "can run now". */
_Static_assert(TCB_READY == 0x20u && TCB_ON_STACK == 0x40u && TCB_KILLING == 0x80u, "asm flags");

/* The TCB of task id, or NULL (any id): inline for the delivery (every send),
 * out of line (task.c) elsewhere, which saves ~10 bytes per caller. */
static inline cairn_tcb_t *cairn__tcb_inline(cairn_task_id_t id)
{
    return id <= CAIRN_MAX_TASKS ? cairn_k.tasks[id] : (cairn_tcb_t *)0;
}
cairn_tcb_t *cairn__tcb(cairn_task_id_t id);
/* Whether a local or a remote task has id (task.c). */
bool cairn__id_taken(cairn_task_id_t id);

/* The task of a level (0 = the kernel). */
static inline cairn_task_id_t cairn__frame_task(const cairn_frame_t *f)
{
    return f->tcb ? f->tcb->id : CAIRN_TASK_NONE;
}

/* Whether a send from code running at the top of the stack runs a message of
 * priority prio at once: prio >= the running level (idle: always). Interrupt
 * sends, which need strictly above, are queued (or the armv6m fast path checks). */
static inline bool cairn__preempts(const cairn_frame_t *top, unsigned prio)
{
    return !top || prio >= top->prio;
}

/* Priority of the top of the execution stack (-1 = idle). */
static inline int cairn__cur_prio(void)
{
    return cairn_k.top ? cairn_k.top->prio : -1;
}

_Static_assert(__builtin_offsetof(cairn_kernel_t, gap) + 1 == __builtin_offsetof(cairn_kernel_t, stats),
               "the dispatch loop's marker fills the padding before stats");

/* The level top as cairn_k.gap names it: 1 for none (idle, main), prio + 2 for a frame.
 * Level 254 wraps to 0 (never marked) and 255 reads as 1: only the kernel's own frames
 * outrank 254, and nothing outranks 255, so neither needs the loop's protection. */
static inline uint8_t cairn__gap_level(const cairn_frame_t *top)
{
    return (uint8_t)(top ? top->prio + 2u : 1u);
}

/* Can t handle a message on port now (not on the stack, initialised or INIT)? */
static inline bool cairn__ready(const cairn_tcb_t *t, cairn_port_t port)
{
    return !(t->flags & TCB_ON_STACK) && ((t->flags & TCB_READY) || port == CAIRN_PORT_INIT);
}

/* An input port a message may be sent to: not INIT (cairn_task_init sends it),
 * below CAIRN_PORT_LIMIT. */
static inline bool cairn__in_port_ok(cairn_port_t port)
{
    return (unsigned)port - 1u < CAIRN_PORT_LIMIT - 1u;
}

/* An interrupt's fast path reads the stack: a new level is filled in before it
 * becomes the top (the compiler must not reorder the stores). */
static inline void cairn__push(cairn_frame_t *f)
{
    f->below = cairn_k.top;
    __asm__ volatile("" ::: "memory");
    cairn_k.top = f;
}

/* Between two stores an interrupt must see in order: a compiler barrier on the target;
 * the host port runs a test's simulated interrupt there (cairn_host.h). */
#ifndef ARCH_IRQ_WINDOW
#define ARCH_IRQ_WINDOW() __asm__ volatile("" ::: "memory")
#endif

static inline void cairn__pop(cairn_frame_t *f)
{
    cairn_k.top = f->below;
}

/* The scheduling policy: the queue's order and the preemption test (policy.h). */
#include "policy.h"

/* ---- thread tasks (thread.c: linked only when an application creates one, so the
 * hooks are weak and called only while cairn_k.nthreads or in_thread says so) ---- */

/* Where the choice between the message level and the threads may have changed:
 * requests a switch when another context should run. */
void cairn__thread_resched(void) __attribute__((weak));
/* A send from the running thread: to (dst, port) with cairn_post's checks, or on
 * output port `port` when dst is CAIRN_TASK_NONE. Queued, never run on the thread's
 * stack; then the receiver may preempt the thread. */
cairn_ret_t cairn__thread_send(cairn_task_id_t dst, cairn_port_t port, const void *payload,
                               size_t len) __attribute__((weak));
/* cairn_post without the thread case. */
cairn_ret_t cairn__post(cairn_task_id_t dst, cairn_port_t in_port, const void *payload, size_t len);
/* Whether a thread is ready (the idle loop must not sleep). */
bool cairn__thread_any_ready(void) __attribute__((weak));

/* ---- heap (heap.c) ------------------------------------------------------------ */

/* cairn_malloc(n) owned by owner from the start (CAIRN_TASK_NONE: the kernel). */
void *cairn__malloc_for(size_t n, cairn_task_id_t owner);
/* Gives block p, which the caller allocated and still holds, to owner: one store, no check
 * (cairn_heap_set_owner checks p under a mask). The owner is not in the header's check. */
void cairn__heap_give(void *p, cairn_task_id_t owner);

/* ---- message pool and queue (msgq.c) ------------------------------------------ */

/* Carves the pool of CAIRN_MSG_POOL messages from the heap (kernel-owned).
 * CAIRN_ENOMEM when the heap is too small. */
cairn_ret_t cairn__pool_init(void);
/* With interrupts off: queues a copy of m (prio set) in a message from the pool.
 * CAIRN_EFULL when the pool is empty. */
cairn_ret_t cairn__enqueue(const cairn_msg_t *m);
/* With interrupts off: moves the first queued message whose task is ready to
 *out and returns its task, when the policy lets it start above floor; else NULL. */
cairn_tcb_t *cairn__dequeue_above(cairn_floor_t floor, cairn_msg_t *out);
/* With interrupts off: whether the first queued ready message's level (its task's
 * priority) is above min_prio (the idle loop: -1; the threads' choice). */
bool cairn__pending_above(int min_prio);
/* With interrupts off: whether the first queued ready message starts above floor. */
#if CAIRN_POLICY == CAIRN_POLICY_FP
static inline bool cairn__pending_for(cairn_floor_t floor)
{
    return cairn__pending_above(floor);
}
#else
bool cairn__pending_for(cairn_floor_t floor);
#endif
/* Discards every queued message for task id (releasing payloads); returns how many. */
unsigned cairn__queue_drop(cairn_task_id_t id);
/* Whether a message other than self (queued or on the stack) holds heap payload p. */
bool cairn__payload_shared(const void *p, const cairn_msg_t *self);

/* ---- running handlers (sched.c) ------------------------------------------------- */

/* With interrupts off, t ready: t goes on the stack at level prio, to handle
 * f->msg. */
static inline void cairn__enter(cairn_tcb_t *t, cairn_frame_t *f, unsigned prio)
{
    f->tcb = t;
    f->prio = (cairn_prio_t)prio;
    t->flags |= TCB_ON_STACK;
    cairn__push(f);
}
/* Interrupts on, after cairn__enter: runs the handler, then cairn__end. */
void cairn__call(cairn_tcb_t *t, cairn_frame_t *f);
/* After the handler of the top frame f returned r: leaves the stack (INIT makes
 * the task ready, FINAL or a pending kill removes it, the payload is released).
 * Does not dispatch. */
void cairn__end(cairn_ret_t r, cairn_frame_t *f);

/* After a cairn__call that no dispatch follows: forgets the mark of its end (a dispatch
 * loop between handlers, sched.c) and requests the dispatch an interrupt in between left
 * to it. */
void cairn__gap_close(void);

/* cairn_send's general path: cairn_send_from the running task (send.c). */
cairn_ret_t cairn__send_general(cairn_port_t out_port, const void *payload, size_t len);
/* The fast send path's way for a route to a task without a local TCB, by a branch with the
 * path's registers pushed (not a C function): a remote task's send to an idle bus
 * (kernel/arch/armv6m/net/net_fast.c); without the bus manager, the general path
 * (arch/armv6m/fast.c). */
void cairn__send_remote(void);

/* Fills f->msg, a message from src of payload (len bytes, at most
 * CAIRN_MSG_MAX_LEN: the caller checks); the caller sets dst and port. A heap
 * block other than the sender's own state is claimed: CAIRN_MSG_HEAP, and the
 * block now belongs to the kernel (payload.c). */
void cairn__msg_new(cairn_frame_t *f, cairn_task_id_t src, const void *payload, size_t len);

/* Delivers f->msg to (msg.dst, msg.port): runs the handler at once, with f as
 * its level, when the preemption rules allow, else queues a copy. The caller
 * keeps responsibility for a heap payload when this fails. */
cairn_ret_t cairn__deliver(cairn_frame_t *f);

/* A message without payload from the kernel (src 0) to (dst, port). */
cairn_ret_t cairn__signal(cairn_task_id_t dst, cairn_port_t port);

/* ---- payloads (payload.c) ----------------------------------------------------------- */

/* Frees m's heap payload when it was not taken and nothing else holds it. */
void cairn__release(const cairn_msg_t *m);

/* ---- tasks, routes, groups ------------------------------------------------------------ */

/* Kill of a marked (TCB_KILLING) task that is not on the stack: runs FINAL
 * unless final_done or the task never handled INIT, then removes it (task.c). */
void cairn__task_finish(cairn_tcb_t *t, bool final_done);
void cairn__task_remove(cairn_tcb_t *t);
/* Timer n of task: hardware ticks to its next expiry and its period (vtimer.c).
 * CAIRN_EINVAL when it is not running. */
cairn_ret_t cairn__timer_query(cairn_task_id_t task, uint8_t n, uint32_t *remaining, uint32_t *period);
/* Every timer of task at once: bit n set when timer n runs (remaining[n], period[n]). */
uint8_t cairn__timer_query_task(cairn_task_id_t task, uint32_t *remaining, uint32_t *period);
/* With interrupts masked: the soonest expiry as the counter value it falls at (the
 * delta list's head; UINT64_MAX with no timer, one more bit when a timer is due). Two equal
 * stamps mean no timer came sooner and none fell due between them (idle.c). */
uint64_t cairn__timer_stamp(void);
/* Starts timer n of task to fire first ticks from now, then every period (0: once). */
cairn_ret_t cairn__timer_set_first(cairn_task_id_t task, uint8_t n, uint32_t first, uint32_t period);
/* Disconnects every route to id (route.c). */
void cairn__routes_forget(cairn_task_id_t id);
/* Group table (mcast.c; cairn_sched_init empties it with the kernel's state). */
void cairn__groups_forget(cairn_task_id_t id);
/* Sends f->msg (msg.port = the group) to every member; f becomes the level that
 * holds the payload meanwhile. Releases a heap payload nobody received. With a bus
 * manager, a message not from the bus (CAIRN_MSG_REMOTE) is broadcast first. */
cairn_ret_t cairn__mcast_send(cairn_frame_t *f);

#endif /* CAIRN_CORE_KERNEL_H */
