/* Timer: the round's hardware timer (stimulus line LINE_ROUND, bound to this task's
 * PORT(0)) starts a round on every microphone's ADC task (a multicast). */
#include "ssl.h"

#include "cairn/irq.h"

#include "cairn_io.h"
#include "nvic.h"

cairn_ret_t ssl_timer_task(void *state, cairn_msg_t *msg)
{
    struct ssl_timer_state *st = state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    CAIRN_GPIO_CLR = SSL_ROUND_PINS;
    CAIRN_GPIO_SET = 1u << PIN_ROUND;
    CAIRN_STIM_CLEAR = 1u << LINE_ROUND;
    nvic_clear_pending(CAIRN_IRQ_STIM(LINE_ROUND)); /* latched while masked */
    cairn_irq_unmask(CAIRN_IRQ_STIM(LINE_ROUND));
    st->round++;
    return ssl_send_copy(&st->round, sizeof st->round);
}
