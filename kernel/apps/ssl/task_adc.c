/*
 * ADC: one microphone's sampling, Figure 4's ADC task. A round's start (the Timer's
 * multicast) asks the module's ADC driver for DSP_N samples of this task's channel (its
 * init data) into a heap buffer; when the driver posts PORT(1) the buffer goes to the
 * chain's FFT task.
 */
#include "ssl.h"

#include "cairn/mem.h"

#include "adc_driver.h"
#include "cairn_io.h"

static cairn_ret_t start(struct ssl_adc_state *st, const cairn_msg_t *msg)
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

static cairn_ret_t deliver(struct ssl_adc_state *st)
{
    struct ssl_samples *s = st->buf;
    st->buf = 0;
    if (!s)
        return CAIRN_OK;
    CAIRN_GPIO_SET = 1u << PIN_MSG_FFT;
    return cairn_send(0, s, sizeof *s);
}

cairn_ret_t ssl_adc_task(void *state, cairn_msg_t *msg)
{
    struct ssl_adc_state *st = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        if (msg->len >= 1u)
            st->channel = *(const uint8_t *)msg->payload;
        return CAIRN_OK;
    case CAIRN_PORT(0):
        return start(st, msg);
    case CAIRN_PORT(1):
        return deliver(st);
    }
    return CAIRN_OK;
}
