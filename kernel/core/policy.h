/*
 * Cairn OS core: the seam between the message scheduler and its policy
 * (cairn/policy.h, docs/policies.md). The scheduler asks the policy these, each an
 * inline function of the policy's own header:
 *
 *   cairn__policy_stamp(m, t)     at a send to task t: m's queue key (m->prio is always
 *                                 t's priority, the preemption level under EDF and CSD)
 *   cairn__policy_stays_ahead(queued, m)
 *                                 queue order: a new message m goes behind every queued
 *                                 one that stays ahead of it (equals do: FIFO)
 *   cairn_floor_t, cairn__policy_floor()
 *                                 what a queued message must beat to start now: the
 *                                 running level (fixed priority) or the top frame
 *   cairn__policy_starts(m, floor)
 *                                 whether queued m starts above floor (dispatch, the end
 *                                 of an interrupt)
 *   cairn__policy_send_preempts(top, t, m)
 *                                 whether a send of m to ready task t from the code at
 *                                 top runs t's handler at once
 *
 * plus cairn__policy_msg_init(m) (a new message, before it is addressed) and
 * cairn__policy_forget(id) (task id is removed). Fixed priority's versions are
 * exactly the code the scheduler had before the seam; the armv6m fast paths
 * (arch/armv6m/fast.c) hard-code them, so they are built for fixed priority only.
 */
#ifndef CAIRN_CORE_POLICY_H
#define CAIRN_CORE_POLICY_H

#include "cairn/policy.h"

#if CAIRN_POLICY == CAIRN_POLICY_FP
#include "policy_fp.h"
#elif CAIRN_POLICY == CAIRN_POLICY_EDF
#include "policy_edf.h"
#else
#include "policy_csd.h"
#endif

#endif /* CAIRN_CORE_POLICY_H */
