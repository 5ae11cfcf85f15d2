/*
 * The core of a G.721 (32 kbit/s ADPCM, ITU-T G.721 / G.726) decoder, the kernel of
 * Mediabench's g721 decode that SimBed's G721 task runs (section 2.2): one 4-bit code in,
 * the reconstructed linear sample out (14 bits, scaled by 4 to 16). Left out: the output
 * conversion to A- or u-law and its synchronous coding adjustment, which only matter in a
 * tandem of codecs. Python reference: python/cairn/workloads/g721.py (the same
 * algorithm, checked bit for bit).
 */
#ifndef CAIRN_MODEL_G721_H
#define CAIRN_MODEL_G721_H

#include <stdint.h>

/* G.721 keeps its signal history in a small floating-point form: sign, 4-bit exponent,
 * 6-bit mantissa, packed here as sign << 10 | exponent << 6 | mantissa. */
typedef uint16_t g721_float;

struct g721_decoder {
    int32_t yl;       /* locked quantiser scale factor */
    int32_t yu;       /* unlocked quantiser scale factor */
    int32_t dms, dml; /* short- and long-term averages of the code's rate of change */
    int32_t ap;       /* speed control: mixes yu and yl */
    int32_t a[2];     /* pole (second-order) predictor coefficients */
    int32_t b[6];     /* zero (sixth-order) predictor coefficients */
    uint32_t pk[2];   /* signs of the last two partial reconstructions */
    g721_float dq[6]; /* the last six quantised differences */
    g721_float sr[2]; /* the last two reconstructed samples */
    uint32_t td;      /* tone detected */
};

void g721_init(struct g721_decoder *d);
/* Decodes one code (its low four bits); returns the linear sample. */
int32_t g721_decode(struct g721_decoder *d, uint32_t code);

#endif
