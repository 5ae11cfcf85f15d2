/*
 * The IMA (DVI) ADPCM encoder, the kernel of Mediabench's adpcm encode that SimBed's ADPCM
 * task runs (section 2.2): one 16-bit linear sample in, one 4-bit code out, the predictor
 * and step index carried from sample to sample. Python reference:
 * python/cairn/workloads/ima_adpcm.py (the same algorithm, checked bit for bit).
 */
#ifndef CAIRN_MODEL_IMA_ADPCM_H
#define CAIRN_MODEL_IMA_ADPCM_H

#include <stdint.h>

struct ima_adpcm {
    int32_t predicted; /* the decoder's estimate of the last sample */
    int32_t index;     /* into the step table, 0..88 */
};

/* Encodes one sample; returns the code (bit 3: sign, bits 2-0: magnitude). A zeroed state
 * is the encoder's start. */
uint32_t ima_adpcm_encode(struct ima_adpcm *s, int16_t sample);

#endif
