/*
 * Cairn OS core: the Stack Resource Policy's preemption test (policy_srp.h), after
 * the policy's cairn__policy_outranks. Included by policy_edf.h and policy_csd.h only.
 */
#ifndef CAIRN_CORE_POLICY_SRP_STARTS_H
#define CAIRN_CORE_POLICY_SRP_STARTS_H

static inline bool cairn__policy_stays_ahead(const cairn_msg_t *queued, const cairn_msg_t *m)
{
    return !cairn__policy_outranks(m, queued);
}

/* Always inline, as the policies' cairn__policy_outranks: on every dispatch and send. */
static inline __attribute__((always_inline)) bool cairn__policy_starts(const cairn_msg_t *m,
                                                                       cairn_floor_t top)
{
    return !top || (m->prio > top->prio && cairn__policy_outranks(m, &top->msg));
}

/* A send is a preemption point like any other: the same test as a queued message's
 * (fixed priority's "a send to an equal priority runs at once" has no SRP analogue:
 * an equal level is not above the ceiling). */
static inline bool cairn__policy_send_preempts(const cairn_frame_t *top, const cairn_tcb_t *t,
                                               const cairn_msg_t *m)
{
    (void)t;
    return cairn__policy_starts(m, top);
}

#endif /* CAIRN_CORE_POLICY_SRP_STARTS_H */
