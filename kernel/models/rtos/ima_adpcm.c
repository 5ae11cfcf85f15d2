/*
 * IMA ADPCM encoding (ima_adpcm.h): the difference to the prediction is quantised to three
 * bits of the current step by successive halving; the step adapts through the index table
 * (small codes shrink it, large ones grow it).
 */
#include "ima_adpcm.h"

#define IMA_STEPS 89

static const uint16_t ima_step[IMA_STEPS] = {
    7,     8,     9,     10,    11,    12,    13,    14,    16,    17,    19,    21,    23,
    25,    28,    31,    34,    37,    41,    45,    50,    55,    60,    66,    73,    80,
    88,    97,    107,   118,   130,   143,   157,   173,   190,   209,   230,   253,   279,
    307,   337,   371,   408,   449,   494,   544,   598,   658,   724,   796,   876,   963,
    1060,  1166,  1282,  1411,  1552,  1707,  1878,  2066,  2272,  2499,  2749,  3024,  3327,
    3660,  4026,  4428,  4871,  5358,  5894,  6484,  7132,  7845,  8630,  9493,  10442, 11487,
    12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
};

/* By the code's magnitude (its sign does not matter). */
static const int8_t ima_index_step[8] = {-1, -1, -1, -1, 2, 4, 6, 8};

uint32_t ima_adpcm_encode(struct ima_adpcm *s, int16_t sample)
{
    int32_t step = ima_step[s->index];
    int32_t diff = (int32_t)sample - s->predicted;
    uint32_t sign = diff < 0 ? 8u : 0u;
    if (sign)
        diff = -diff;
    /* What the decoder will add back: step/8 plus each step fraction the code sets. */
    int32_t moved = step >> 3;
    uint32_t code = 0;
    for (uint32_t bit = 4u; bit > 0u; bit >>= 1) {
        if (diff >= step) {
            code |= bit;
            diff -= step;
            moved += step;
        }
        step >>= 1;
    }
    int32_t p = sign ? s->predicted - moved : s->predicted + moved;
    s->predicted = p > 32767 ? 32767 : p < -32768 ? -32768 : p;
    int32_t i = s->index + ima_index_step[code];
    s->index = i < 0 ? 0 : i >= IMA_STEPS ? IMA_STEPS - 1 : i;
    return code | sign;
}
