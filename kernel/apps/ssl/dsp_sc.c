/*
 * SC: noise power estimation and voice detection. A bin whose power is more than
 * VOICE_RATIO times the mean over the spectrum is a voice: white noise almost never
 * does that (the largest of 255 exponential powers is about 6 times their mean), a
 * tone always does. A round without a voice updates the per-bin noise estimate.
 */
#include "dsp.h"

#define VOICE_RATIO 16u

static inline uint32_t power(int16_t r, int16_t i)
{
    return ((uint32_t)((int32_t)r * r) + (uint32_t)((int32_t)i * i)) >> 2; /* < 2^30 */
}

bool dsp_sc(const int16_t re[DSP_BINS], const int16_t im[DSP_BINS], uint32_t noise[DSP_BINS])
{
    uint32_t total = 0, peak = 0;
    for (unsigned k = 1; k < DSP_BINS; k++) {
        uint32_t p = power(re[k], im[k]);
        total += p >> 8; /* 255 bins of < 2^22 each: no overflow */
        if (p > peak)
            peak = p;
    }
    uint32_t mean = total / (DSP_BINS - 1u);
    if ((peak >> 8) > VOICE_RATIO * mean)
        return true;
    for (unsigned k = 1; k < DSP_BINS; k++) {
        uint32_t p = power(re[k], im[k]);
        noise[k] = noise[k] - (noise[k] >> 3) + (p >> 3);
    }
    return false;
}

void dsp_band_copy(struct dsp_band *b, const int16_t re[DSP_BINS], const int16_t im[DSP_BINS])
{
    for (unsigned k = 0; k < DSP_BAND_N; k++) {
        b->re[k] = re[DSP_BAND_LO + k];
        b->im[k] = im[DSP_BAND_LO + k];
    }
}
