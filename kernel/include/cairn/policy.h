/*
 * Cairn OS: the message scheduler's policy, chosen per module at build time
 * (docs/policies.md).
 *
 *   CAIRN_POLICY=CAIRN_POLICY_FP   fixed priority (RM/DM), the default: a task's
 *                                  priority orders its messages and decides preemption.
 *   CAIRN_POLICY=CAIRN_POLICY_EDF  earliest deadline first with the Stack Resource
 *                                  Policy: absolute deadlines order the queue; the
 *                                  task's priority is its SRP preemption level.
 *   CAIRN_POLICY=CAIRN_POLICY_CSD  CSD-k (EMERALDS): k = CAIRN_CSD_K queues, as
 *                                  cairn.analysis counts them: EDF queues 0 .. k-2
 *                                  (0 the highest) above one fixed-priority queue,
 *                                  CAIRN_CSD_FP_QUEUE = k-1; preemption levels as
 *                                  under EDF. CSD-2 is the paper's CSD.
 *
 * Under EDF and CSD a message may start above the running handler only when it
 * outranks it (an earlier deadline, or a higher queue) AND its preemption level
 * (the destination task's priority) is strictly above the running level: the
 * levels on the one shared stack strictly increase, so a handler never runs twice
 * on it and never waits for one above it (Baker's SRP). Assign levels as the
 * analysis does: a shorter relative deadline, a higher level; under CSD every task
 * of queue q above every task of queue q + 1.
 *
 * A message's deadline: the one its sender gave (cairn_send_deadline,
 * cairn_post_deadline) wins; else the destination task's relative deadline
 * (cairn_task_deadline) from the send; a task without one gets the longest,
 * CAIRN_DEADLINE_MAX. Deadlines are in the hardware timer's ticks (cairn/arch_timer.h)
 * and compare modulo its counter: they must lie within half a counter period.
 */
#ifndef CAIRN_POLICY_H
#define CAIRN_POLICY_H

#define CAIRN_POLICY_FP 1
#define CAIRN_POLICY_EDF 2
#define CAIRN_POLICY_CSD 3

#ifndef CAIRN_POLICY
#define CAIRN_POLICY CAIRN_POLICY_FP
#endif
#if CAIRN_POLICY != CAIRN_POLICY_FP && CAIRN_POLICY != CAIRN_POLICY_EDF && CAIRN_POLICY != CAIRN_POLICY_CSD
#error "CAIRN_POLICY must be CAIRN_POLICY_FP, CAIRN_POLICY_EDF or CAIRN_POLICY_CSD"
#endif

/* The number of queues under CSD (k of CSD-k, as in cairn.analysis and EMERALDS's CSD-2 and
 * CSD-3): k - 1 EDF queues above the fixed-priority queue, which is the last. */
#ifndef CAIRN_CSD_K
#define CAIRN_CSD_K 2
#endif
#if CAIRN_CSD_K < 2 || CAIRN_CSD_K > 9
#error "CAIRN_CSD_K must be 2..9"
#endif
#define CAIRN_CSD_FP_QUEUE (CAIRN_CSD_K - 1)

#if CAIRN_POLICY != CAIRN_POLICY_FP

#include "cairn/arch_timer.h"
#include "cairn/types.h"

/* The longest relative deadline (what a task without one gets), in hardware ticks. */
#define CAIRN_DEADLINE_MAX ((uint32_t)(CAIRN_HWTIMER_HALF - 1u))

/* Sets task id's relative deadline: rel ticks (1..CAIRN_DEADLINE_MAX) from each send to it;
 * messages to it already queued move their deadline by the change (one a sender gave stays)
 * and are re-sorted. CAIRN_EINVAL: no such task, rel out of range; CAIRN_ENOMEM: the policy's table (a heap
 * block, made on first use) does not fit. */
cairn_ret_t cairn_task_deadline(cairn_task_id_t id, uint32_t rel);

/* The relative deadline task id's messages get (CAIRN_DEADLINE_MAX when none was set). */
uint32_t cairn_task_deadline_get(cairn_task_id_t id);

#if CAIRN_POLICY == CAIRN_POLICY_CSD
/* Puts task id in queue q: 0 .. CAIRN_CSD_FP_QUEUE - 1 are the EDF queues (0 first),
 * CAIRN_CSD_FP_QUEUE the fixed-priority queue, where every task starts. Its messages already
 * queued move with it, re-sorted. CAIRN_EINVAL: no such task, q out of range;
 * CAIRN_ENOMEM as above. */
cairn_ret_t cairn_task_queue(cairn_task_id_t id, uint8_t q);
/* Task id's queue. */
uint8_t cairn_task_queue_get(cairn_task_id_t id);
#endif

/* cairn_send and cairn_post with the message's own deadline, rel ticks (1..CAIRN_DEADLINE_MAX)
 * from now, instead of the destination task's; CAIRN_EINVAL for rel out of range (a heap
 * payload is freed, as by any failed send). */
cairn_ret_t cairn_send_deadline(cairn_port_t out_port, const void *payload, size_t len, uint32_t rel);
cairn_ret_t cairn_post_deadline(cairn_task_id_t dst, cairn_port_t in_port, const void *payload,
                                size_t len, uint32_t rel);

#endif /* CAIRN_POLICY != CAIRN_POLICY_FP */

#endif /* CAIRN_POLICY_H */
