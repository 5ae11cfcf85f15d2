/* Vote: when more than two of the four channels hear a voice, their bands go to HT. */
#include "ssl.h"

#include "cairn/mem.h"

#include "cairn_io.h"

cairn_ret_t ssl_vote_task(void *state, cairn_msg_t *msg)
{
    struct ssl_vote_state *st = state;
    if (msg->port != CAIRN_PORT(0) || msg->len < SSL_VERDICT_HEADER)
        return CAIRN_OK;
    CAIRN_GPIO_CLR = 1u << PIN_MSG_VOTE;
    const struct ssl_verdict *v = msg->payload;
    if (v->round != st->round || !st->bands) {
        cairn_free(st->bands);
        st->bands = cairn_malloc(sizeof *st->bands);
        if (!st->bands)
            return CAIRN_ENOMEM;
        st->round = v->round;
        st->heard = st->voices = 0;
    }
    st->heard++;
    if (v->voice && msg->len == sizeof *v && v->channel < DSP_MICS) {
        st->bands->band[v->channel] = v->band;
        st->voices++;
    }
    if (st->heard < DSP_MICS)
        return CAIRN_OK;
    struct ssl_bands *b = st->bands;
    st->bands = 0;
    if (st->voices <= 2u) {
        cairn_free(b);
        return CAIRN_OK;
    }
    b->round = st->round;
    CAIRN_GPIO_SET = 1u << PIN_MSG_HT;
    return cairn_send(0, b, sizeof *b);
}
