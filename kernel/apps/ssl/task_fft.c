/*
 * FFT: one microphone's chain. A round's start (the Timer's multicast) asks the module's
 * ADC driver for DSP_N samples of this task's channel (its init data) into a heap
 * buffer; when the driver posts PORT(1) they are transformed and the spectrum's
 * positive half goes to SC. (Figure 4's ADC task is folded in here: the kernel has 16
 * task IDs and the two applications have 19 tasks.)
 */
#include "ssl.h"

#include "cairn/mem.h"

#include "adc_driver.h"
#include "cairn_io.h"

static cairn_ret_t start(struct ssl_fft_state *st, const cairn_msg_t *msg)
{
    if (st->buf || msg->len != sizeof(uint16_t))
        return CAIRN_EBUSY;
    st->buf = cairn_malloc(sizeof *st->buf);
    if (!st->buf)
        return CAIRN_ENOMEM;
    st->buf->round = *(const uint16_t *)msg->payload;
    st->buf->channel = st->channel;
    CAIRN_GPIO_CLR = 1u << PIN_SC_DONE(st->channel); /* on a sensing module: the Timer is not here */
    return adc_driver_request(cairn_current_task(), st->channel, st->buf->x);
}

static cairn_ret_t transform(struct ssl_fft_state *st)
{
    struct ssl_samples *s = st->buf;
    st->buf = 0;
    CAIRN_GPIO_CLR = 1u << PIN_MSG_FFT;
    if (!s)
        return CAIRN_OK;
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

cairn_ret_t ssl_fft_task(void *state, cairn_msg_t *msg)
{
    struct ssl_fft_state *st = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        if (msg->len >= 1u)
            st->channel = *(const uint8_t *)msg->payload;
        return CAIRN_OK;
    case CAIRN_PORT(0):
        return start(st, msg);
    case CAIRN_PORT(1):
        return transform(st);
    }
    return CAIRN_OK;
}
