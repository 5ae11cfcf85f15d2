/*
 * Cairn OS core: fixed-priority scheduling (RM/DM) behind the policy seam (policy.h).
 * The queue is by priority, high first; a send runs the receiver at once when its
 * priority is >= the running level, a queued message starts when strictly above it.
 */
#ifndef CAIRN_CORE_POLICY_FP_H
#define CAIRN_CORE_POLICY_FP_H

typedef int cairn_floor_t; /* the running level, -1 at idle */

static inline void cairn__policy_msg_init(cairn_msg_t *m)
{
    (void)m;
}

static inline void cairn__policy_stamp(cairn_msg_t *m, const cairn_tcb_t *t)
{
    m->prio = t->prio;
}

/* A macro, not an inline function: GCC allocates the queue walk's registers differently
 * around the function, and fixed priority's code is to stay byte for byte what it was. */
#define cairn__policy_stays_ahead(queued, m) ((queued)->prio >= (m)->prio)

static inline cairn_floor_t cairn__policy_floor(void)
{
    return cairn__cur_prio();
}

static inline bool cairn__policy_starts(const cairn_msg_t *m, cairn_floor_t floor)
{
    return (int)m->prio > floor;
}

static inline bool cairn__policy_send_preempts(const cairn_frame_t *top, const cairn_tcb_t *t,
                                               const cairn_msg_t *m)
{
    (void)m;
    return cairn__preempts(top, t->prio);
}

static inline void cairn__policy_forget(cairn_task_id_t id)
{
    (void)id;
}

#endif /* CAIRN_CORE_POLICY_FP_H */
