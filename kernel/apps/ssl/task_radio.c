/* Radio: the device's way out; here the console. */
#include "ssl.h"

#include "uart.h"

cairn_ret_t ssl_radio_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(uint32_t))
        return CAIRN_OK;
    uart_puts("radio fire alert, average ");
    uart_put_udec(*(const uint32_t *)msg->payload / 16u);
    uart_putc('\n');
    return CAIRN_OK;
}
