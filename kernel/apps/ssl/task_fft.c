/*
 * FFT: one microphone's chain. Its ADC task's round of samples (a heap block, taken from
 * the message without a copy) is transformed in place and the spectrum's positive half
 * goes to SC.
 */
#include "ssl.h"

#include "cairn/mem.h"

#include "cairn_io.h"

cairn_ret_t ssl_fft_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct ssl_samples))
        return CAIRN_OK;
    CAIRN_GPIO_CLR = 1u << PIN_MSG_FFT;
    struct ssl_samples *s = cairn_take_msg(msg);
    if (!s)
        return CAIRN_ENOMEM;
    CAIRN_GPIO_SET = 1u << PIN_FFT_BUSY;
    int16_t *im = cairn_malloc(DSP_N * sizeof *im);
    struct ssl_spectrum *out = cairn_malloc(sizeof *out);
    bool ok = im && out;
    if (ok) {
        for (unsigned i = 0; i < DSP_N; i++)
            im[i] = 0;
        dsp_fft(s->x, im);
        out->round = s->round;
        out->channel = s->channel;
        for (unsigned k = 0; k < DSP_BINS; k++) {
            out->re[k] = s->x[k];
            out->im[k] = im[k];
        }
    }
    cairn_free(s);
    cairn_free(im);
    CAIRN_GPIO_CLR = 1u << PIN_FFT_BUSY;
    if (!ok) {
        cairn_free(out);
        return CAIRN_ENOMEM;
    }
    CAIRN_GPIO_SET = 1u << PIN_MSG_SC;
    return cairn_send(0, out, sizeof *out);
}
