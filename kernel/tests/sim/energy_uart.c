/*
 * Energy firmware, DS10152 Table 38 (USART): UART0, BAUDDIV 217 (115200 baud at 25 MHz),
 * sends 100 lines of 40 bytes, polled. cairn-sim charges the USART current for 10 bit times
 * (10 x BAUDDIV cycles) per byte; the test divides that energy by the bytes' line time.
 */
#include <stdint.h>

#include "uart.h"

int main(void)
{
    uart_init(UART0);
    for (uint32_t i = 0u; i < 100u; i++)
        uart_write_to(UART0, "energy: USART current, DS10152 Table 38\n");
    return 0;
}
