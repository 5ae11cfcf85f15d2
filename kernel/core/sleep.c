/*
 * Cairn OS: the choice of sleep state by break-even time (CoMOS appendix;
 * docs/kernel.md, "Idle"). Pure arithmetic on the board's table: 64-bit products
 * and sums, one division of a 64-bit numerator by a 32-bit divisor for a
 * break-even time or a conversion to ticks (no 64-bit multiply or division from
 * libgcc); the choice itself compares products and divides only for the
 * break-even times.
 */
#include "cairn/sleep.h"

/* a * b in 64 bits from four 16 x 16-bit products: Cortex-M0+ has a 32-bit MULS
 * only, and libgcc's general 64 x 64-bit multiply costs ~100 cycles. */
__attribute__((noinline)) static uint64_t mul(uint32_t a, uint32_t b)
{
    uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
    uint32_t lo = al * bl, m1 = al * bh, m2 = ah * bl, hi = ah * bh;
    uint32_t mid = m1 + m2;
    hi += (uint32_t)(mid < m1) << 16 | mid >> 16;
    uint32_t low = lo + (mid << 16);
    hi += low < lo;
    return (uint64_t)hi << 32 | low;
}

/* n / d rounded up, saturated to 32 bits (d > 0). A numerator below 2^32 (the
 * usual case) takes one 32-bit division; a larger one a restoring division on
 * 32-bit halves, whose remainder stays below d: a bit shifted out of it means it
 * was at least 2^32 > d, and the 32-bit subtraction still gives the exact
 * remainder. No 64-bit division from libgcc. */
static uint32_t div_up(uint64_t n, uint32_t d)
{
    uint32_t r = (uint32_t)(n >> 32), lo = (uint32_t)n, q = 0;
    if (r == 0) {
        q = lo / d;
        r = lo % d;
    } else if (r >= d) {
        return UINT32_MAX; /* the quotient needs more than 32 bits */
    } else {
        for (unsigned i = 0; i < 32; i++) {
            uint32_t out = r >> 31;
            r = r << 1 | lo >> 31;
            lo <<= 1;
            q <<= 1;
            if (out || r >= d) {
                r -= d;
                q |= 1;
            }
        }
    }
    return q + (r != 0 && q != UINT32_MAX);
}

/* 1000 e + p t in picojoules (e in nJ, p in uW, t in us), saturated to 2^64 - 1. */
__attribute__((noinline)) static uint64_t energy(uint32_t e, uint32_t p, uint32_t t)
{
    uint64_t x = mul(e, 1000u), sum = x + mul(p, t);
    return sum < x ? UINT64_MAX : sum;
}

uint32_t cairn_sleep_breakeven_us(const struct cairn_sleep_table *t, unsigned i)
{
    const struct cairn_sleep_state *s = &t->states[i];
    /* The shallower state j: the previous one, or running (no transition). */
    uint32_t pj = t->run_power_uw, tj = 0, ej = 0;
    if (i) {
        pj = s[-1].power_uw;
        tj = s[-1].wakeup_us;
        ej = s[-1].transition_nj;
    }
    if (s->power_uw >= pj)
        return UINT32_MAX; /* never cheaper per microsecond: never pays off */
    /* T (Pj - Pi) = (1000 Ei + Pj Tj) - (1000 Ej + Pi Ti), in picojoules; a
     * saturated a means "never". */
    uint64_t a = energy(s->transition_nj, pj, tj), b = energy(ej, s->power_uw, s->wakeup_us);
    if (a == UINT64_MAX)
        return UINT32_MAX;
    return a <= b ? 0 : div_up(a - b, pj - s->power_uw);
}

uint32_t cairn_sleep_ticks(const struct cairn_sleep_table *t, uint32_t us)
{
    return div_up(mul(us, t->tick_hz), 1000000u);
}

/* ticks of the hardware timer last at least us microseconds. ticks * 10^6 < 2^52
 * and us * tick_hz < 2^64: exact, no overflow. */
__attribute__((noinline)) static int fits(const struct cairn_sleep_table *t, uint32_t ticks,
                                          uint32_t us)
{
    return mul(ticks, 1000000u) >= mul(us, t->tick_hz);
}

unsigned cairn_sleep_choose(const struct cairn_sleep_table *t, uint32_t ticks)
{
    if (ticks == UINT32_MAX)
        return t->count - 1u; /* no timer: nothing to wake for but an interrupt */
    for (unsigned i = t->count; i-- > 1u;) {
        uint32_t be = cairn_sleep_breakeven_us(t, i);
        /* Strictly longer than the wake-up latency in ticks, rounded up, so that
         * waking that much early leaves some time asleep: ticks > ceil(w·hz / 10^6)
         * is (ticks - 1) · 10^6 >= w · hz. */
        uint32_t w = t->states[i].wakeup_us;
        if (be != UINT32_MAX && fits(t, ticks, be) && (w == 0 || (ticks && fits(t, ticks - 1u, w))))
            return i;
    }
    return 0; /* the shallowest state, even when it does not pay off: idle must wait */
}
