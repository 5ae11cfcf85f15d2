/*
 * Checkpoint migration: the break-even reasoning as an online policy (docs/checkpoint.md,
 * "Policy"). The paper finds, offline, the time after which a migration has paid for its
 * cost (the break-even point, its "system configuration freezing time"); here the master
 * applies it to each decision: migrate only when the migration cost plus the remaining run
 * time on the destination beats the remaining run time where the computation is.
 */
#include "cairn/checkpoint.h"

#define NS_PER_S 1000000000ull

/* Cycles at hz in nanoseconds, without overflow for any 32-bit cycles-per-unit times
 * 32-bit units (the product fits 64 bits; the scaling is split). */
static uint64_t run_ns(uint64_t cycles, uint32_t hz)
{
    if (!hz)
        return UINT64_MAX;
    return (cycles / hz) * NS_PER_S + (cycles % hz) * NS_PER_S / hz;
}

void cairn_ckpt_decide(const cairn_ckpt_case_t *c, cairn_ckpt_verdict_t *v)
{
    uint64_t cycles = (uint64_t)c->remaining_units * c->cycles_per_unit;
    v->cost_ns = c->cost_base_ns + (uint64_t)c->size * c->cost_per_byte_ps / 1000u;
    v->stay_ns = run_ns(cycles, c->src_hz);
    uint64_t there = run_ns(cycles, c->dst_hz);
    v->go_ns = there == UINT64_MAX ? UINT64_MAX : there + v->cost_ns;
    /* Staying progresses at src, the migrated computation at dst after the cost: the two
     * lines cross at cost * dst / (dst - src) after the migration point. */
    if (c->dst_hz > c->src_hz)
        v->freeze_ns = v->cost_ns * c->dst_hz / (c->dst_hz - c->src_hz);
    else
        v->freeze_ns = UINT64_MAX;
    v->migrate = c->dst_hz > c->src_hz && v->go_ns < v->stay_ns;
}
