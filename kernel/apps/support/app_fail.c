#include "app_fail.h"

#include "uart.h"

int app_fail(const char *what, cairn_ret_t r)
{
    uart_puts("FAIL ");
    uart_puts(what);
    uart_putc(' ');
    uart_put_dec(r);
    uart_putc('\n');
    return 1;
}
