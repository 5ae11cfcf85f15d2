/*
 * FBD, fire break-out detection: Temp reads the temperature sensor at each tick of its
 * 4 Hz timer (stimulus line LINE_TEMP, bound to its PORT(0)), EWMA smooths it, Alert
 * tells Radio when the average crosses the fire threshold. Three small tasks at FBD's
 * priority, above SSL's, so the chain preempts a running FFT.
 */
#include "ssl.h"

#include "cairn/irq.h"

#include "cairn_io.h"
#include "nvic.h"

cairn_ret_t fbd_temp_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    CAIRN_GPIO_CLR = 1u << PIN_FBD_DONE;
    CAIRN_STIM_CLEAR = 1u << LINE_TEMP;
    nvic_clear_pending(CAIRN_IRQ_STIM(LINE_TEMP)); /* latched while masked */
    cairn_irq_unmask(CAIRN_IRQ_STIM(LINE_TEMP));
    uint32_t reading = CAIRN_PORT_IN(TEMP_PORT);
    return ssl_send_copy(&reading, sizeof reading);
}

cairn_ret_t fbd_ewma_task(void *state, cairn_msg_t *msg)
{
    struct fbd_ewma_state *st = state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(uint32_t))
        return CAIRN_OK;
    uint32_t reading = *(const uint32_t *)msg->payload;
    st->avg_x16 = st->primed ? dsp_ewma(st->avg_x16, reading) : reading * 16u;
    st->primed = 1;
    return ssl_send_copy(&st->avg_x16, sizeof st->avg_x16);
}

cairn_ret_t fbd_alert_task(void *state, cairn_msg_t *msg)
{
    struct fbd_alert_state *st = state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(uint32_t))
        return CAIRN_OK;
    uint32_t avg_x16 = *(const uint32_t *)msg->payload;
    cairn_ret_t r = CAIRN_OK;
    if (avg_x16 > DSP_FIRE_X16 && !st->alerted) {
        st->alerted = 1;
        r = ssl_send_copy(&avg_x16, sizeof avg_x16);
    }
    CAIRN_GPIO_SET = 1u << PIN_FBD_DONE;
    return r;
}
