/*
 * Cairn OS core: CSD-k (EMERALDS's combined static/dynamic scheduler) behind the
 * policy seam (policy.h). A message carries its receiver's queue: a lower queue
 * number outranks a higher one; within one of the CAIRN_CSD_K - 1 EDF queues the earlier
 * absolute deadline, within the fixed-priority queue (CAIRN_CSD_FP_QUEUE) the higher
 * priority; ties FIFO. Preemption across and within queues by the Stack Resource
 * Policy (policy_srp.h), so the k + 1 queues share the one stack.
 */
#ifndef CAIRN_CORE_POLICY_CSD_H
#define CAIRN_CORE_POLICY_CSD_H

#include "policy_srp.h"

/* Always inline: -Os would call it, and the queue's insert compares once per message. */
static inline __attribute__((always_inline)) bool cairn__policy_outranks(const cairn_msg_t *a,
                                                                         const cairn_msg_t *b)
{
    if (a->queue != b->queue)
        return a->queue < b->queue;
    if (a->queue == CAIRN_CSD_FP_QUEUE)
        return a->prio > b->prio;
    return cairn__deadline_before(a->deadline, b->deadline);
}

#include "policy_srp_starts.h"

#endif /* CAIRN_CORE_POLICY_CSD_H */
