/*
 * Cairn OS core: what EDF and CSD share behind the policy seam (policy.h):
 * deadlines, and the Stack Resource Policy's test (policy_srp_starts.h, after the
 * policy's cairn__policy_outranks).
 *
 * SRP on the one stack (Baker 1991): the only resource handlers share is the stack,
 * and every frame on it holds it, so the system ceiling is the level of the top
 * frame. A message starts above the top only when it outranks the top's message and
 * its level (its task's priority) is strictly above the top's level. Levels then
 * strictly increase up the stack: a task is on it at most once, and a handler never
 * waits for one above it — it is either not started or runs to completion first.
 */
#ifndef CAIRN_CORE_POLICY_SRP_H
#define CAIRN_CORE_POLICY_SRP_H

#include "cairn/arch_timer.h"

typedef const cairn_frame_t *cairn_floor_t; /* the top of the stack; NULL at idle */

/* Whether deadline a is before b, modulo the hardware counter (within half its period). */
static inline bool cairn__deadline_before(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << (32 - CAIRN_HWTIMER_BITS)) < 0;
}

/* A message not (yet) sent to a task — a kill's FINAL, a multicast's hold frame —
 * runs within the running handler's job: its deadline and queue (policy.c). */
void cairn__policy_msg_init(cairn_msg_t *m);

/* The level, the deadline (the sender's, else t's relative deadline from now) and
 * under CSD the queue of t (policy.c). */
void cairn__policy_stamp(cairn_msg_t *m, const cairn_tcb_t *t);

/* Task id is removed: a new task with its ID starts with the defaults (policy.c). */
void cairn__policy_forget(cairn_task_id_t id);

static inline cairn_floor_t cairn__policy_floor(void)
{
    return cairn_k.top;
}

#endif /* CAIRN_CORE_POLICY_SRP_H */
