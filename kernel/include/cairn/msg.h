/*
 * Cairn OS messages: input ports, the message a handler receives, and sending.
 *
 * A task sends on one of its OUTPUT ports; the kernel looks the port up in the
 * task's routing table (cairn/task.h) and delivers the message to the connected
 * (task, INPUT port), or to every member of a local multicast group. Every send
 * is a preemption point: see docs/kernel.md, "Preemption rules".
 */
#ifndef CAIRN_MSG_H
#define CAIRN_MSG_H

#include "cairn/policy.h"
#include "cairn/types.h"

/* ---- input ports ----------------------------------------------------------- */

/* System input ports, written to by the kernel (CoMOS Table I). */
#define CAIRN_PORT_INIT ((cairn_port_t)0)        /* first message: payload = init string */
#define CAIRN_PORT_FINAL ((cairn_port_t)1)       /* the task is being killed */
#define CAIRN_PORT_SERIALIZE ((cairn_port_t)2)   /* serialise state for migration (later issue) */
#define CAIRN_PORT_DESERIALIZE ((cairn_port_t)3) /* migration completed (later issue) */
#define CAIRN_PORT_TIMEOUT0 ((cairn_port_t)4)    /* TIMER0 fired; TIMEOUT1..3 follow */
#define CAIRN_PORT_TIMEOUT1 ((cairn_port_t)5)
#define CAIRN_PORT_TIMEOUT2 ((cairn_port_t)6)
#define CAIRN_PORT_TIMEOUT3 ((cairn_port_t)7)
#define CAIRN_PORT_ERROR ((cairn_port_t)8)       /* reserved for kernel-reported errors */
#define CAIRN_PORT_TIMEOUT(n) ((cairn_port_t)(CAIRN_PORT_TIMEOUT0 + (n)))

/* Application input ports PORT0..PORT127 are CAIRN_PORT(0)..CAIRN_PORT(127). */
#define CAIRN_PORT_APP_BASE 16u
#define CAIRN_APP_PORTS 128u
#define CAIRN_PORT(n) ((cairn_port_t)(CAIRN_PORT_APP_BASE + (n)))
/* Number of the application port p (p >= CAIRN_PORT_APP_BASE). */
#define CAIRN_PORT_NUM(p) ((unsigned)(p) - CAIRN_PORT_APP_BASE)
/* One past the highest valid input port. */
#define CAIRN_PORT_LIMIT (CAIRN_PORT_APP_BASE + CAIRN_APP_PORTS)

/* ---- messages -------------------------------------------------------------- */

/* Message flags (kernel-managed). */
#define CAIRN_MSG_HEAP 0x01u  /* payload is a heap block the message owns */
#define CAIRN_MSG_TAKEN 0x02u /* cairn_take_msg gave the payload to the receiver */
#define CAIRN_MSG_REMOTE 0x04u /* it came over the bus from another module */
#define CAIRN_MSG_DEADLINE 0x08u /* EDF, CSD: the sender gave the deadline (cairn/policy.h) */

typedef struct cairn_msg {
    struct cairn_msg *next;   /* kernel: queue link */
    const void *payload;      /* NULL when len == 0 */
    uint16_t len;             /* payload bytes */
    cairn_port_t port;        /* input port of the receiver */
    cairn_task_id_t src;      /* sending task; 0 = the kernel or an interrupt handler */
    cairn_prio_t prio;        /* kernel: the receiver's priority (queue order) */
    cairn_task_id_t dst;      /* receiving task */
    uint8_t flags;            /* kernel: CAIRN_MSG_* */
    uint8_t reserved;         /* kernel: the destination module while buffered for the bus */
#if CAIRN_POLICY != CAIRN_POLICY_FP
    uint32_t deadline;        /* kernel: absolute, in hardware timer ticks (queue order) */
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    uint8_t queue;            /* kernel: the receiver's CSD queue (0 first; CAIRN_CSD_FP_QUEUE: FP) */
#endif
#endif
} cairn_msg_t;

/* A task's message handler: runs to completion for each message (it may be
 * preempted, on the same stack, by a higher-priority handler). */
typedef cairn_ret_t (*cairn_handler_t)(void *state, cairn_msg_t *msg);

/* Messages in the kernel's queue at most (the pool is static, sized at build time). */
#ifndef CAIRN_MSG_POOL
#define CAIRN_MSG_POOL 16
#endif

/* Longest payload. */
#define CAIRN_MSG_MAX_LEN 0xFFFFu

/*
 * Payload ownership (the same for every send function below):
 *   - A heap block (cairn_malloc) is GIVEN AWAY by the send, whatever the result:
 *     the sender must not touch it again. The receiver may keep it with
 *     cairn_take_msg (no copy); otherwise the kernel frees it after the last
 *     receiver's handler returns (or at once when the send fails).
 *   - Anything else (a literal, a static or state buffer) is passed by reference
 *     and must stay valid and unchanged until every receiver has handled it. A
 *     message to a lower-priority task is queued, so the sender's stack is NOT
 *     a valid place for it. cairn_take_msg deep-copies such payloads.
 */

/* Sends on output port out_port of the running task.
 * CAIRN_OK: delivered (run at once or queued). CAIRN_EFULL: message pool full
 * (counted; for a multicast: at least one member missed it). CAIRN_ENOROUTE: the
 * port is not connected. CAIRN_EINVAL: no running task, port beyond the task's
 * table, or len > CAIRN_MSG_MAX_LEN. */
cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len);

/* Sends on output port out_port of task `from` (for drivers' interrupt handlers,
 * which run outside any task). */
cairn_ret_t cairn_send_from(cairn_task_id_t from, cairn_port_t out_port, const void *payload,
                            size_t len);

/* Sends straight to input port in_port of task dst, bypassing routing tables
 * (kernel services; tests). CAIRN_ENOROUTE when dst does not exist. */
cairn_ret_t cairn_post(cairn_task_id_t dst, cairn_port_t in_port, const void *payload,
                       size_t len);

/* Gives the payload of msg to the running task (the receiver) and returns it:
 * a heap payload that no other pending message shares is handed over without
 * copying (its owner becomes the receiver); anything else is deep-copied into a
 * new heap block owned by the receiver. NULL when msg has no payload or the heap
 * is full (counted). Calling it again on the same message returns the same block. */
void *cairn_take_msg(cairn_msg_t *msg);

#endif /* CAIRN_MSG_H */
