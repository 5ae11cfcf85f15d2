/*
 * Cairn OS core: the scheduler's private state, shared by the files of
 * kernel/core/ only (applications use the headers in include/cairn/).
 */
#ifndef CAIRN_CORE_KERNEL_H
#define CAIRN_CORE_KERNEL_H

#include "cairn/arch.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/trace.h"
#include "cairn/types.h"

/* ---- task control block ------------------------------------------------------ */

/* TCB flags; bit 0 is CAIRN_TASK_MOVABLE (from cairn_task_create). */
#define TCB_INIT_SENT 0x10u /* INIT was sent (cairn_task_init) */
#define TCB_READY 0x20u     /* INIT was handled: messages are no longer buffered */
#define TCB_ON_STACK 0x40u  /* its handler is on the stack: its messages wait */
#define TCB_KILLING 0x80u   /* being killed: removed when its handler returns */

/* The TCB and the task's routing table are one heap block owned by the kernel:
 * the table (num_out entries) follows the TCB. */
typedef struct cairn_tcb {
    cairn_handler_t handler;
    void *state;
    cairn_prio_t prio;
    cairn_task_id_t id;
    uint8_t flags;
    uint8_t num_out;
    cairn_route_t routes[]; /* output port -> (task, input port) */
} cairn_tcb_t;

_Static_assert(sizeof(void *) != 4 || sizeof(cairn_tcb_t) == 12,
               "TCB is 12 bytes on 32-bit targets (issue 3 target: <= 16)");
_Static_assert(sizeof(void *) != 8 || sizeof(cairn_tcb_t) == 24, "TCB is 24 bytes on 64-bit hosts");
_Static_assert(sizeof(void *) != 4 || sizeof(cairn_msg_t) == 16,
               "a message is 16 bytes on 32-bit targets");
_Static_assert(sizeof(cairn_route_t) == 2, "a route is 2 bytes");

/* ---- the execution stack ------------------------------------------------------ */

/* Priority levels of the execution stack: below every task, and above every task
 * (the application manager). */
#define PRIO_IDLE (-1)
#define PRIO_KERNEL 256

/* One level of the execution stack, a local variable of the C function that runs
 * it: a handler (cairn__run), the application manager, or a multicast send that
 * still holds its payload. The chain gives the priority of what is below, the
 * current task, and the messages alive on the stack. */
typedef struct cairn_frame {
    struct cairn_frame *below;
    cairn_msg_t *msg;     /* message being handled or held; NULL for none */
    int16_t prio;         /* priority of this level */
    cairn_task_id_t task; /* task running at this level; 0 = the kernel */
} cairn_frame_t;

/* ---- scheduler state ------------------------------------------------------------ */

typedef struct cairn_kernel {
    cairn_tcb_t *tasks[CAIRN_MAX_TASKS]; /* by ID - 1 */
    cairn_frame_t *top;                  /* top of the execution stack; NULL = idle */
    cairn_msg_t *queue;                  /* by priority (high first), then creation */
    cairn_msg_t *free;                   /* free messages of the pool */
    uint8_t isr_depth;                   /* interrupt nesting */
    cairn_sched_stats_t stats;
} cairn_kernel_t;

extern cairn_kernel_t cairn_k;

static inline cairn_tcb_t *cairn__tcb(cairn_task_id_t id)
{
    return (id >= 1 && id <= CAIRN_MAX_TASKS) ? cairn_k.tasks[id - 1] : (cairn_tcb_t *)0;
}

/* Priority of the top of the execution stack. */
static inline int cairn__cur_prio(void)
{
    return cairn_k.top ? cairn_k.top->prio : PRIO_IDLE;
}

/* Can t handle a message on port now (not on the stack, initialised or INIT)? */
static inline bool cairn__ready(const cairn_tcb_t *t, cairn_port_t port)
{
    return !(t->flags & TCB_ON_STACK) && ((t->flags & TCB_READY) || port == CAIRN_PORT_INIT);
}

static inline void cairn__push(cairn_frame_t *f)
{
    f->below = cairn_k.top;
    cairn_k.top = f;
}

static inline void cairn__pop(cairn_frame_t *f)
{
    cairn_k.top = f->below;
}

/* ---- message pool and queue (msgq.c) ------------------------------------------ */

void cairn__pool_init(void);
/* Queues a message (from the pool) for t. CAIRN_EFULL when the pool is empty. */
cairn_ret_t cairn__enqueue(cairn_task_id_t src, const cairn_tcb_t *t, cairn_port_t port,
                           const void *payload, uint16_t len, uint8_t flags);
/* Unlinks the first queued message whose task is ready and copies it to *out if
 * its priority is above min_prio; returns false otherwise. */
bool cairn__dequeue_above(int min_prio, cairn_msg_t *out);
/* Whether a queued ready message outranks min_prio. */
bool cairn__pending_above(int min_prio);
/* Discards every queued message for task id (releasing payloads); returns how many. */
unsigned cairn__queue_drop(cairn_task_id_t id);
/* Whether a message other than self (queued or on the stack) holds heap payload p. */
bool cairn__payload_shared(const void *p, const cairn_msg_t *self);

/* ---- delivery (sched.c) ----------------------------------------------------------- */

/* Delivers one message to (dst, port): runs the handler at once when the
 * preemption rules allow, else queues it. The caller keeps responsibility for a
 * heap payload when this fails. */
cairn_ret_t cairn__deliver(cairn_task_id_t src, cairn_task_id_t dst, cairn_port_t port,
                           const void *payload, uint16_t len, uint8_t flags);
/* Runs t's handler for m on top of the stack at priority level prio. */
void cairn__run(cairn_tcb_t *t, cairn_msg_t *m, int prio);

/* ---- payloads (take.c) -------------------------------------------------------------- */

/* The send-side check: CAIRN_MSG_HEAP (and the block now belongs to the kernel)
 * when payload is a heap block other than the sender's own state, else 0. */
uint8_t cairn__claim_payload(const void *payload, cairn_task_id_t sender);
/* Frees m's heap payload when it was not taken and nothing else holds it. */
void cairn__release(const cairn_msg_t *m);

/* ---- tasks, routes, groups ------------------------------------------------------------ */

/* Kill of a marked (TCB_KILLING) task that is not on the stack: runs FINAL
 * unless final_done or the task never handled INIT, then removes it (task.c). */
void cairn__task_finish(cairn_tcb_t *t, bool final_done);
void cairn__task_remove(cairn_tcb_t *t);
/* Disconnects every route to id (route.c). */
void cairn__routes_forget(cairn_task_id_t id);
/* Group table (mcast.c). */
void cairn__groups_init(void);
void cairn__groups_forget(cairn_task_id_t id);
cairn_ret_t cairn__mcast_send(cairn_task_id_t src, uint8_t group, const void *payload,
                              uint16_t len, uint8_t flags);

#endif /* CAIRN_CORE_KERNEL_H */
