/*
 * Cairn OS: the choice of sleep state by break-even time (CoMOS appendix;
 * docs/kernel.md, "Idle"). Pure arithmetic on the board's table, 64-bit
 * intermediates; no division on the choice itself except one per state for the
 * break-even time.
 */
#include "cairn/sleep.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

uint32_t cairn_sleep_breakeven_us(const struct cairn_sleep_table *t, unsigned i)
{
    const struct cairn_sleep_state *s = &t->states[i];
    /* The shallower state j: the previous one, or running (no transition). */
    uint32_t pj = i ? t->states[i - 1].power_uw : t->run_power_uw;
    uint32_t tj = i ? t->states[i - 1].wakeup_us : 0;
    uint32_t ej = i ? t->states[i - 1].transition_nj : 0;
    if (s->power_uw >= pj)
        return UINT32_MAX; /* never cheaper per microsecond: never pays off */
    /* T (Pj - Pi) = (1000 Ei + Pj Tj) - (1000 Ej + Pi Ti), in picojoules. */
    uint64_t a = sat_add(1000u * (uint64_t)s->transition_nj, (uint64_t)pj * tj);
    uint64_t b = sat_add(1000u * (uint64_t)ej, (uint64_t)s->power_uw * s->wakeup_us);
    if (a == UINT64_MAX)
        return UINT32_MAX;
    if (a <= b)
        return 0;
    uint64_t dp = pj - s->power_uw;
    uint64_t be = (a - b + dp - 1u) / dp; /* a - b < 2^64 - 1, dp < 2^32: no overflow */
    return be > UINT32_MAX ? UINT32_MAX : (uint32_t)be;
}

uint32_t cairn_sleep_ticks(const struct cairn_sleep_table *t, uint32_t us)
{
    uint64_t ticks = ((uint64_t)us * t->tick_hz + 999999u) / 1000000u;
    return ticks > UINT32_MAX ? UINT32_MAX : (uint32_t)ticks;
}

/* ticks of the hardware timer last at least us microseconds. ticks * 10^6 < 2^52
 * and us * tick_hz < 2^64: exact, no overflow. */
static int fits(const struct cairn_sleep_table *t, uint32_t ticks, uint32_t us)
{
    return (uint64_t)ticks * 1000000u >= (uint64_t)us * t->tick_hz;
}

unsigned cairn_sleep_choose(const struct cairn_sleep_table *t, uint32_t ticks)
{
    if (ticks == UINT32_MAX)
        return t->count - 1u; /* no timer: nothing to wake for but an interrupt */
    for (unsigned i = t->count; i-- > 1u;) {
        uint32_t be = cairn_sleep_breakeven_us(t, i);
        /* Strictly longer than the wake-up latency: the kernel wakes that much early,
         * which must leave some time asleep. */
        uint32_t w = t->states[i].wakeup_us;
        if (be != UINT32_MAX && fits(t, ticks, be) && (w == 0 || ticks > cairn_sleep_ticks(t, w)))
            return i;
    }
    return 0; /* the shallowest state, even when it does not pay off: idle must wait */
}
