/*
 * SSL + FBD on Cairn OS (the CoMOS paper, Section VI, Figure 4): the tasks' shared
 * definitions. kernel/apps/ssl/app.c holds the one application description; the
 * placement (ssl_place.h) is the only thing a one-module and a five-module build change.
 */
#ifndef SSL_H
#define SSL_H

#include <stdint.h>

#include "cairn/msg.h"
#include "cairn/types.h"

#include "dsp.h"

/* Tasks, in the description's order; global ID = index + 1 (the application manager gives
 * the lowest free IDs, and nothing else is created before it). The ADC tasks come last so
 * that the others keep the IDs they had before there were any. */
enum ssl_task {
    T_TIMER,
    T_FFT0, T_FFT1, T_FFT2, T_FFT3,
    T_SC0, T_SC1, T_SC2, T_SC3,
    T_VOTE, T_HT,
    T_TEMP, T_EWMA, T_ALERT, T_RADIO,
    T_ADC0, T_ADC1, T_ADC2, T_ADC3,
    T_COUNT
};
#define SSL_ID(t) ((cairn_task_id_t)((t) + 1))
/* 19 tasks and the bus manager (the last ID): kernel/firmware.mk builds the SSL firmware
 * with -DCAIRN_MAX_TASKS=20. */
_Static_assert(T_COUNT + 1 <= CAIRN_MAX_TASKS, "the SSL firmware needs CAIRN_MAX_TASKS >= 20");

/* Priorities of Section VI-B: Radio highest, FBD 2, SSL 1. */
#define PRIO_SSL 1
#define PRIO_FBD 2
#define PRIO_RADIO 3

/* Marker pins (docs/stimuli.md), each on the module its task runs on. */
#define PIN_ROUND 0u                        /* high from the round's timer interrupt */
#define PIN_SC_DONE(ch) (1u + (unsigned)(ch)) /* set when channel ch's SC has finished */
#define PIN_HT_DONE 5u                      /* set when HT has finished */
#define PIN_FBD_DONE 6u                     /* set when Alert has finished */
#define PIN_FFT_BUSY 7u                     /* high while an FFT handler runs */
#define SSL_ROUND_PINS (0x3Fu)              /* pins the round's timer clears: 0 .. 5 */
/* Message pins (the paper's Figure 6): set just before a send, cleared when the destination's
 * handler starts, so the high time is the message's latency. */
#define PIN_MSG_FFT 9u   /* ADC -> FFT */
#define PIN_MSG_SC 10u   /* FFT -> SC */
#define PIN_MSG_VOTE 11u /* SC -> Vote */
#define PIN_MSG_HT 12u   /* Vote -> HT */

/* Stimulus lines of the scenarios (the "hardware timers"). */
#define LINE_ROUND 0u
#define LINE_TEMP 1u
/* The temperature sensor: a digital sensor on input port 0. */
#define TEMP_PORT 0u

/* FFT's round of samples of its channel, 12-bit codes centred and scaled to 15 bits. */
struct ssl_samples {
    uint16_t round;
    uint8_t channel;
    uint8_t reserved;
    int16_t x[DSP_N];
};

/* FFT -> SC: the spectrum's positive half. */
struct ssl_spectrum {
    uint16_t round;
    uint8_t channel;
    uint8_t reserved;
    int16_t re[DSP_BINS];
    int16_t im[DSP_BINS];
};

/* SC -> Vote: the verdict, and the band when it is a voice (a header only otherwise). */
struct ssl_verdict {
    uint16_t round;
    uint8_t channel;
    uint8_t voice;
    struct dsp_band band;
};
#define SSL_VERDICT_HEADER 4u

/* Vote -> HT: the four channels' bands. */
struct ssl_bands {
    uint16_t round;
    uint16_t reserved;
    struct dsp_band band[DSP_MICS];
};

/* Task handlers (one file each). */
cairn_ret_t ssl_timer_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_adc_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_fft_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_sc_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_vote_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_ht_task(void *state, cairn_msg_t *msg);
cairn_ret_t fbd_temp_task(void *state, cairn_msg_t *msg);
cairn_ret_t fbd_ewma_task(void *state, cairn_msg_t *msg);
cairn_ret_t fbd_alert_task(void *state, cairn_msg_t *msg);
cairn_ret_t ssl_radio_task(void *state, cairn_msg_t *msg);

struct ssl_timer_state { uint16_t round; };
struct ssl_adc_state { uint8_t channel; struct ssl_samples *buf; };
struct ssl_sc_state { uint32_t noise[DSP_BINS]; };
struct ssl_vote_state {
    uint16_t round;
    uint8_t heard, voices;
    struct ssl_bands *bands;
};
struct fbd_ewma_state { uint32_t avg_x16; uint8_t primed; };
struct fbd_alert_state { uint8_t alerted; };

/* Sends a heap copy of len bytes on output port 0 (CAIRN_ENOMEM when the heap is full). */
cairn_ret_t ssl_send_copy(const void *p, uint16_t len);

#endif
