/*
 * HT: steered response power over DSP_DIRS candidate directions, the heavy part of SSL.
 * The four microphones sit on the corners of a square; for a far source in direction
 * theta, the delay between microphones i and j is tau_ij = (p_j - p_i) . u(theta) / c.
 * For each direction, each of the six pairs and each bin k of the band, the cross
 * spectrum X_i conj(X_j) is turned back by the phase 2 pi k tau_ij / N and its real
 * part summed; the highest sum wins. (No PHAT weighting: with one tone as the source it
 * would weight the empty bins' noise as much as the tone.)
 */
#include "dsp.h"

/* Half the square's side in samples x 256: 0.25 m at 2048 samples/s, c = 343 m/s. */
#define HALF_SIDE_Q8 382

static const int8_t mic_x[DSP_MICS] = {1, -1, -1, 1};
static const int8_t mic_y[DSP_MICS] = {1, 1, -1, -1};

static inline int32_t clamp14(int32_t v)
{
    return v > 16383 ? 16383 : v < -16383 ? -16383 : v;
}

unsigned dsp_ht(const struct dsp_band band[DSP_MICS])
{
    int16_t cr[DSP_PAIRS][DSP_BAND_N], ci[DSP_PAIRS][DSP_BAND_N];
    uint8_t pi[DSP_PAIRS], pj[DSP_PAIRS];
    unsigned p = 0;
    for (unsigned i = 0; i < DSP_MICS; i++)
        for (unsigned j = i + 1u; j < DSP_MICS; j++, p++) {
            pi[p] = (uint8_t)i;
            pj[p] = (uint8_t)j;
            for (unsigned k = 0; k < DSP_BAND_N; k++) {
                int32_t ar = band[i].re[k], ai = band[i].im[k];
                int32_t br = band[j].re[k], bi = band[j].im[k];
                cr[p][k] = (int16_t)clamp14((ar * br + ai * bi) >> 11);
                ci[p][k] = (int16_t)clamp14((ai * br - ar * bi) >> 11);
            }
        }
    unsigned best = 0;
    int32_t best_score = INT32_MIN;
    for (unsigned d = 0; d < DSP_DIRS; d++) {
        unsigned a = d * (DSP_N / DSP_DIRS);
        int32_t c = dsp_sine[(a + DSP_N / 4u) % DSP_N], s = dsp_sine[a];
        int32_t score = 0;
        for (p = 0; p < DSP_PAIRS; p++) {
            int32_t dx = (mic_x[pj[p]] - mic_x[pi[p]]) * HALF_SIDE_Q8;
            int32_t dy = (mic_y[pj[p]] - mic_y[pi[p]]) * HALF_SIDE_Q8;
            int32_t tau_q8 = (dx * c + dy * s) >> 15;
            for (unsigned k = 0; k < DSP_BAND_N; k++) {
                unsigned idx = (unsigned)((int32_t)(DSP_BAND_LO + k) * tau_q8 >> 8) % DSP_N;
                int32_t cs = dsp_sine[(idx + DSP_N / 4u) % DSP_N], sn = dsp_sine[idx];
                score += (cr[p][k] * cs - ci[p][k] * sn) >> 15;
            }
        }
        if (score > best_score) {
            best_score = score;
            best = d;
        }
    }
    return best;
}
