/* HT: the source's direction from the four bands (hypothesis testing over DSP_DIRS
 * candidate directions), reported as "ht round <r> direction <d> of <DSP_DIRS>". */
#include "ssl.h"

#include "cairn_io.h"
#include "uart.h"

cairn_ret_t ssl_ht_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct ssl_bands))
        return CAIRN_OK;
    CAIRN_GPIO_CLR = 1u << PIN_MSG_HT;
    const struct ssl_bands *b = msg->payload;
    unsigned d = dsp_ht(b->band);
    CAIRN_GPIO_SET = 1u << PIN_HT_DONE;
    uart_puts("ht round ");
    uart_put_udec(b->round);
    uart_puts(" direction ");
    uart_put_udec(d);
    uart_puts(" of ");
    uart_put_udec(DSP_DIRS);
    uart_putc('\n');
    return CAIRN_OK;
}
