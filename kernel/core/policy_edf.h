/*
 * Cairn OS core: EDF behind the policy seam (policy.h). The queue is by absolute
 * deadline, earliest first (equal deadlines: FIFO); preemption by the Stack Resource
 * Policy (policy_srp.h).
 */
#ifndef CAIRN_CORE_POLICY_EDF_H
#define CAIRN_CORE_POLICY_EDF_H

#include "policy_srp.h"

static inline __attribute__((always_inline)) bool cairn__policy_outranks(const cairn_msg_t *a,
                                                                         const cairn_msg_t *b)
{
    return cairn__deadline_before(a->deadline, b->deadline);
}

#include "policy_srp_starts.h"

#endif /* CAIRN_CORE_POLICY_EDF_H */
