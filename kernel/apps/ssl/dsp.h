/*
 * The computations of the SSL + FBD application (the CoMOS paper, Section VI-A), shared
 * by the Cairn OS tasks and the standalone image so both do exactly the same work:
 * a 512-point integer FFT, SC's voice test and noise update, HT's search over candidate
 * directions, FBD's moving average. Integer only: the Cortex-M0+ has no FPU.
 */
#ifndef SSL_DSP_H
#define SSL_DSP_H

#include <stdbool.h>
#include <stdint.h>

#define DSP_N 512u          /* samples per channel and round, FFT length */
#define DSP_LOG2N 9u
#define DSP_BINS (DSP_N / 2u)
#define DSP_MICS 4u
#define DSP_PAIRS 6u
/* The band HT works in: bins BAND_LO .. BAND_LO + BAND_N - 1. Small enough that one
 * channel's band (BAND_N complex values) fits one bus frame. */
#define DSP_BAND_LO 20u
#define DSP_BAND_N 56u
#define DSP_DIRS 256u       /* candidate directions over the full circle */

extern const int16_t dsp_sine[DSP_N];

/* In place, scaled by 1/N (a halving per stage, so no stage overflows). */
void dsp_fft(int16_t re[DSP_N], int16_t im[DSP_N]);

/* SC, on the positive half of a spectrum: true when it holds a voice (a bin far above the band's mean power);
 * otherwise folds this spectrum into the noise estimate noise[DSP_BINS]. */
bool dsp_sc(const int16_t re[DSP_BINS], const int16_t im[DSP_BINS], uint32_t noise[DSP_BINS]);

/* One channel's band of the spectrum, what SC hands on for HT. */
struct dsp_band {
    int16_t re[DSP_BAND_N];
    int16_t im[DSP_BAND_N];
};
void dsp_band_copy(struct dsp_band *b, const int16_t re[DSP_BINS], const int16_t im[DSP_BINS]);

/* HT: the candidate direction (0 .. DSP_DIRS - 1, counter-clockwise from the x axis)
 * whose steered cross-spectra of the four microphones sum highest. */
unsigned dsp_ht(const struct dsp_band band[DSP_MICS]);

/* FBD: exponentially weighted moving average, weight 1/8, in the reading's units x 16. */
uint32_t dsp_ewma(uint32_t avg_x16, uint32_t reading);
#define DSP_FIRE_X16 (50u * 16u) /* an average above 50 degrees is a fire */

#endif
