/*
 * CMSDK APB UART polled output. See uart.h.
 */
#include "uart.h"

static int console_ready;

void uart_init(struct cmsdk_uart *u)
{
    u->bauddiv = UART_DEFAULT_BAUDDIV;
    u->ctrl |= UART_CTRL_TXEN;
}

void uart_putc_to(struct cmsdk_uart *u, char c)
{
    while (u->state & UART_STATE_TXFULL)
        ;
    u->data = (uint8_t)c;
}

void uart_write_to(struct cmsdk_uart *u, const char *s)
{
    while (*s != '\0')
        uart_putc_to(u, *s++);
}

static void console_init(void)
{
    if (!console_ready) {
        uart_init(UART0);
        console_ready = 1;
    }
}

void uart_putc(char c)
{
    console_init();
    uart_putc_to(UART0, c);
}

void uart_puts(const char *s)
{
    console_init();
    uart_write_to(UART0, s);
}

void uart_put_hex(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char buf[11];
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 8; i++)
        buf[2 + i] = digits[(v >> (28 - 4 * i)) & 0xFu];
    buf[10] = '\0';
    uart_puts(buf);
}

void uart_put_udec(uint32_t v)
{
    char buf[11];
    int i = 10;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    uart_puts(&buf[i]);
}

void uart_put_dec(int32_t v)
{
    if (v < 0) {
        uart_putc('-');
        uart_put_udec(0u - (uint32_t)v);
    } else {
        uart_put_udec((uint32_t)v);
    }
}
