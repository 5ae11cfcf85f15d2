/*
 * CMSDK APB UART (UART0 = 0x40004000 is the console on QEMU and cairn-sim).
 */
#ifndef CAIRN_BOARD_UART_H
#define CAIRN_BOARD_UART_H

#include <stdint.h>
#include "board.h"

struct cmsdk_uart {
    volatile uint32_t data;      /* +0x00 */
    volatile uint32_t state;     /* +0x04 bit0 TX full, bit1 RX full, bit2/3 TX/RX overrun (W1C) */
    volatile uint32_t ctrl;      /* +0x08 */
    volatile uint32_t intstatus; /* +0x0C read: INTSTATUS, write 1: INTCLEAR */
    volatile uint32_t bauddiv;   /* +0x10 */
};

#define UART0 ((struct cmsdk_uart *)BOARD_UART0_BASE)
#define UART1 ((struct cmsdk_uart *)BOARD_UART1_BASE)
#define UART2 ((struct cmsdk_uart *)BOARD_UART2_BASE)

#define UART_STATE_TXFULL  (1u << 0)
#define UART_STATE_RXFULL  (1u << 1)
#define UART_STATE_TXOVR   (1u << 2)
#define UART_STATE_RXOVR   (1u << 3)
#define UART_CTRL_TXEN     (1u << 0)
#define UART_CTRL_RXEN     (1u << 1)
#define UART_CTRL_TXINTEN  (1u << 2)
#define UART_CTRL_RXINTEN  (1u << 3)
#define UART_INT_TX        (1u << 0)
#define UART_INT_RX        (1u << 1)

/* Default BAUDDIV: 25 MHz / 217 = 115200 baud (QEMU ignores values < 16). */
#define UART_DEFAULT_BAUDDIV 217u

/* Program BAUDDIV and enable the transmitter. A byte written to DATA while
 * TX is disabled stays in the buffer forever on QEMU (TX full never clears). */
void uart_init(struct cmsdk_uart *u);
void uart_putc_to(struct cmsdk_uart *u, char c);
void uart_write_to(struct cmsdk_uart *u, const char *s);

/* Console helpers on UART0 (enabled on first use; "\n" is sent as is). */
void uart_putc(char c);
void uart_puts(const char *s);
void uart_put_hex(uint32_t v);       /* 0x%08x */
void uart_put_udec(uint32_t v);      /* %u */
void uart_put_dec(int32_t v);        /* %d */

#endif
