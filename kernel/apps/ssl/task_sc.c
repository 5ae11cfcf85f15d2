/* SC: noise power estimation and voice detection on one channel's spectrum; the verdict
 * (with the band HT needs when it is a voice) goes to Vote. */
#include "ssl.h"

#include "cairn/mem.h"

#include "cairn_io.h"

cairn_ret_t ssl_sc_task(void *state, cairn_msg_t *msg)
{
    struct ssl_sc_state *st = state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct ssl_spectrum))
        return CAIRN_OK;
    CAIRN_GPIO_CLR = 1u << PIN_MSG_SC;
    const struct ssl_spectrum *s = msg->payload;
    struct ssl_verdict *v = cairn_malloc(sizeof *v);
    if (!v)
        return CAIRN_ENOMEM;
    v->round = s->round;
    v->channel = s->channel;
    v->voice = dsp_sc(s->re, s->im, st->noise);
    if (v->voice)
        dsp_band_copy(&v->band, s->re, s->im);
    CAIRN_GPIO_SET = (1u << PIN_SC_DONE(s->channel)) | (1u << PIN_MSG_VOTE);
    return cairn_send(0, v, v->voice ? sizeof *v : SSL_VERDICT_HEADER);
}
