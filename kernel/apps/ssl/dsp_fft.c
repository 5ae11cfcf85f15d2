/*
 * 512-point radix-2 decimation-in-time FFT in Q15 (the classic fix_fft scheme): each
 * stage halves its outputs, so 12-bit samples scaled to 15 bits never overflow.
 */
#include "dsp.h"

static inline int16_t q15_mul(int16_t a, int16_t b)
{
    return (int16_t)(((int32_t)a * b) >> 15);
}

void dsp_fft(int16_t re[DSP_N], int16_t im[DSP_N])
{
    for (unsigned m = 1, mr = 0; m < DSP_N; m++) {
        unsigned l = DSP_N;
        do
            l >>= 1;
        while (mr + l > DSP_N - 1u);
        mr = (mr & (l - 1u)) + l;
        if (mr <= m)
            continue;
        int16_t t = re[m];
        re[m] = re[mr];
        re[mr] = t;
        t = im[m];
        im[m] = im[mr];
        im[mr] = t;
    }
    for (unsigned l = 1, k = DSP_LOG2N - 1u; l < DSP_N; k--, l <<= 1) {
        unsigned step = l << 1;
        for (unsigned m = 0; m < l; m++) {
            unsigned j = m << k;
            int16_t wr = (int16_t)(dsp_sine[(j + DSP_N / 4u) % DSP_N] >> 1);
            int16_t wi = (int16_t)(-dsp_sine[j] >> 1);
            for (unsigned i = m; i < DSP_N; i += step) {
                unsigned i2 = i + l;
                int16_t tr = (int16_t)(q15_mul(wr, re[i2]) - q15_mul(wi, im[i2]));
                int16_t ti = (int16_t)(q15_mul(wr, im[i2]) + q15_mul(wi, re[i2]));
                int16_t qr = (int16_t)(re[i] >> 1), qi = (int16_t)(im[i] >> 1);
                re[i2] = (int16_t)(qr - tr);
                im[i2] = (int16_t)(qi - ti);
                re[i] = (int16_t)(qr + tr);
                im[i] = (int16_t)(qi + ti);
            }
        }
    }
}
