/*
 * G.721 decoding (g721.h) in the standard's blocks: the adaptive predictor's estimate from
 * the float history (FMULT, ACCUM), the scale factor mixed by the speed control (MIX), the
 * code's log magnitude turned back into a difference (RECONST, ANTILOG), then the
 * adaptation of scale factors, speed control, predictor coefficients and tone detector
 * (FUNCTW, FILTA-E, UPA1/2, UPB, TRANS, TONE, SUBTA/B, FUNCTF).
 */
#include "g721.h"

#include <stdbool.h>

#define G721_SIGN 0x400u
#define G721_ZERO 0x20u /* a zero: mantissa 1.0, exponent 0 */

/* By code: the difference's log magnitude (DQLN), the scale factor's step (W, times 32),
 * the rate of change (F, times 512). */
static const int16_t g721_dqln[16] = {-2048, 4,   135, 213, 273, 323, 373, 425,
                                      425,   373, 323, 273, 213, 135, 4,   -2048};
static const int16_t g721_w[16] = {-12, 18,  41,  64,  112, 198, 355, 1122,
                                   1122, 355, 198, 112, 64,  41,  18,  -12};
static const uint8_t g721_f[16] = {0, 0, 0, 1, 1, 1, 3, 7, 7, 3, 1, 1, 1, 0, 0, 0};

/* The number of bits up to the highest set one (0 for 0), at most 15: the standard's
 * exponent is four bits. */
static int32_t g721_bits(uint32_t v)
{
    int32_t n = 0;
    while (v && n < 15) {
        n++;
        v >>= 1;
    }
    return n;
}

/* A magnitude below 2^15 with its sign into the float form. */
static g721_float g721_to_float(uint32_t negative, uint32_t mag)
{
    uint32_t f = G721_ZERO;
    if (mag) {
        int32_t e = g721_bits(mag);
        f = ((uint32_t)e << 6) + ((mag << 6) >> e);
    }
    return (g721_float)(negative ? f | G721_SIGN : f);
}

/* A 16-bit coefficient times a float value, as the standard's FMULT rounds it. */
static int32_t g721_fmult(int32_t coef, g721_float v)
{
    int32_t an = coef >> 2;
    uint32_t mag = an > 0 ? (uint32_t)an : (uint32_t)(-an) & 0x1FFFu;
    int32_t e = g721_bits(mag) - 6;
    uint32_t mant = mag == 0u ? 32u : e >= 0 ? mag >> e : mag << -e;
    int32_t we = e + (int32_t)((v >> 6) & 0xFu) - 13;
    uint32_t wm = (mant * (v & 0x3Fu) + 0x30u) >> 4;
    int32_t r = (int32_t)(we >= 0 ? (wm << we) & 0x7FFFu : wm >> -we);
    return (an < 0) != ((v & G721_SIGN) != 0u) ? -r : r;
}

void g721_init(struct g721_decoder *d)
{
    *d = (struct g721_decoder){.yl = 34816, .yu = 544};
    for (unsigned i = 0; i < 6u; i++)
        d->dq[i] = G721_ZERO;
    d->sr[0] = d->sr[1] = G721_ZERO;
}

/* The scale factor: yu and yl mixed by the speed control (yl alone once ap saturates). */
static int32_t g721_scale(const struct g721_decoder *d)
{
    int32_t y = d->yl >> 6;
    if (d->ap >= 256)
        return d->yu;
    int32_t dif = d->yu - y, al = d->ap >> 2;
    if (dif > 0)
        y += (dif * al) >> 6;
    else if (dif < 0)
        y += (dif * al + 0x3F) >> 6;
    return y;
}

static void g721_adapt_pole(struct g721_decoder *d, uint32_t pk0, int32_t p)
{
    uint32_t flip1 = pk0 ^ d->pk[0];
    int32_t a2 = d->a[1] - (d->a[1] >> 7);
    if (p != 0) {
        int32_t fa1 = flip1 ? d->a[0] : -d->a[0];
        a2 += fa1 < -8191 ? -0x100 : fa1 > 8191 ? 0xFF : fa1 >> 5;
        if (pk0 ^ d->pk[1])
            a2 = a2 <= -12160 ? -12288 : a2 >= 12416 ? 12288 : a2 - 0x80;
        else
            a2 = a2 <= -12416 ? -12288 : a2 >= 12160 ? 12288 : a2 + 0x80;
    }
    d->a[1] = a2;
    d->a[0] -= d->a[0] >> 8;
    if (p != 0)
        d->a[0] += flip1 ? -192 : 192;
    int32_t bound = 15360 - a2;
    d->a[0] = d->a[0] < -bound ? -bound : d->a[0] > bound ? bound : d->a[0];
}

static void g721_adapt_zero(struct g721_decoder *d, uint32_t dq_neg, uint32_t dq_mag)
{
    for (unsigned i = 0; i < 6u; i++) {
        int32_t b = d->b[i] - (d->b[i] >> 8);
        if (dq_mag)
            b += dq_neg == ((d->dq[i] & G721_SIGN) != 0u) ? 128 : -128;
        d->b[i] = (int16_t)b; /* 16 bits: a long run of one sign wraps it, as in the standard */
    }
}

int32_t g721_decode(struct g721_decoder *d, uint32_t code)
{
    code &= 0xFu;
    /* The predictor's estimate: zeros over the differences, poles over the samples. */
    int32_t sezi = 0;
    for (unsigned i = 0; i < 6u; i++)
        sezi += g721_fmult(d->b[i], d->dq[i]);
    sezi = (int16_t)sezi; /* the standard's sums are 16-bit two's complement: they wrap */
    int32_t sei = (int16_t)(sezi + g721_fmult(d->a[1], d->sr[1]) + g721_fmult(d->a[0], d->sr[0]));
    int32_t sez = sezi >> 1, se = sei >> 1;
    int32_t y = g721_scale(d);

    /* The quantised difference from the code's log magnitude and the scale. */
    uint32_t dq_neg = (code & 8u) != 0u, dq_mag = 0;
    int32_t dql = g721_dqln[code] + (y >> 2);
    if (dql >= 0) {
        uint32_t mant = 128u + ((uint32_t)dql & 127u);
        dq_mag = (mant << 7) >> (14 - (((uint32_t)dql >> 7) & 15u));
    }
    int32_t sr = (int16_t)(dq_neg ? se - (int32_t)(dq_mag & 0x3FFFu) : se + (int32_t)dq_mag);
    int32_t p = (int16_t)(sr - se + sez); /* the partial reconstruction: difference + zeros' estimate */

    /* Transition: a tone that ends with a large difference resets the predictor. */
    int32_t ylint = d->yl >> 15, ylfrac = (d->yl >> 10) & 0x1F;
    int32_t thr = ylint > 9 ? 31 << 10 : (32 + ylfrac) << ylint;
    bool tr = d->td && (int32_t)(dq_mag & 0x7FFFu) > (thr + (thr >> 1)) >> 1;

    int32_t yu = y + (((int32_t)g721_w[code] * 32 - y) >> 5);
    d->yu = yu < 544 ? 544 : yu > 5120 ? 5120 : yu;
    d->yl += d->yu + ((-d->yl) >> 6);

    uint32_t pk0 = p < 0;
    if (tr) {
        d->a[0] = d->a[1] = 0;
        for (unsigned i = 0; i < 6u; i++)
            d->b[i] = 0;
    } else {
        g721_adapt_pole(d, pk0, p);
        g721_adapt_zero(d, dq_neg, dq_mag & 0x7FFFu);
    }
    for (unsigned i = 5; i > 0u; i--)
        d->dq[i] = d->dq[i - 1];
    d->dq[0] = g721_to_float(dq_neg, dq_mag & 0x7FFFu);
    d->sr[1] = d->sr[0];
    d->sr[0] = sr <= -32768 ? (g721_float)(G721_SIGN | G721_ZERO)
                            : g721_to_float(sr < 0, (uint32_t)(sr < 0 ? -sr : sr));
    d->pk[1] = d->pk[0];
    d->pk[0] = pk0;
    d->td = !tr && d->a[1] < -11776;

    /* Speed control: fast adaptation for speech-like codes, slow for steady ones. */
    int32_t fi = (int32_t)g721_f[code] << 9;
    d->dms += (fi - d->dms) >> 5;
    d->dml += ((fi << 2) - d->dml) >> 7;
    int32_t gap = (d->dms << 2) - d->dml;
    if (tr)
        d->ap = 256;
    else if (y < 1536 || d->td || (gap < 0 ? -gap : gap) >= (d->dml >> 3))
        d->ap += (0x200 - d->ap) >> 4;
    else
        d->ap += (-d->ap) >> 4;
    return sr * 4;
}
