/*
 * CMSDK APB UARTs: UART0 prints every printable ASCII character (polled);
 * UART1 and UART2 are enabled and sent a few bytes (their output goes
 * nowhere visible: on QEMU they have no backend unless -serial is given
 * more than once, on cairn-sim they are not on stdout), and UART0 sends a
 * line driven by its TX interrupt (IRQ 1), one interrupt per byte.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "startup.h"
#include "uart.h"

#define TX_BOUND 1000000u

/* Waits (bounded) until the TX buffer is empty; returns 1 if it emptied. */
static int tx_drains(struct cmsdk_uart *u)
{
    for (uint32_t n = 0; n < TX_BOUND; n++) {
        if ((u->state & UART_STATE_TXFULL) == 0)
            return 1;
    }
    return 0;
}

/* Polled send that gives up instead of hanging; returns bytes sent. */
static uint32_t send_bounded(struct cmsdk_uart *u, const char *s)
{
    uint32_t sent = 0;
    for (; *s != '\0'; s++) {
        if (!tx_drains(u))
            return sent;
        u->data = (uint8_t)*s;
        sent++;
    }
    return sent;
}

/* ---- TX interrupt ---- */

static const char irq_msg[] = "uart0 tx irq: the quick brown fox\n";
static volatile uint32_t irq_pos;
static volatile uint32_t irq_count;
static volatile uint32_t irq_done;
static volatile uint32_t irq_bad_status;

void irq1_handler(void) /* UART0 TX */
{
    irq_count++;
    if ((UART0->intstatus & UART_INT_TX) == 0)
        irq_bad_status++;
    UART0->intstatus = UART_INT_TX; /* INTCLEAR */
    if (irq_msg[irq_pos] != '\0') {
        UART0->data = (uint8_t)irq_msg[irq_pos++];
    } else {
        UART0->ctrl &= ~UART_CTRL_TXINTEN;
        irq_done = 1;
    }
    cpu_dsb();
}

int main(void)
{
    test_begin("uart");

    /* All printable characters on UART0, 16 to a line. */
    char line[17];
    unsigned k = 0;
    for (unsigned c = 0x20; c <= 0x7E; c++) {
        line[k++] = (char)c;
        if (k == 16 || c == 0x7E) {
            line[k] = '\0';
            uart_puts("chars: ");
            uart_puts(line);
            uart_puts("\n");
            k = 0;
        }
    }

    check_eq("uart0 bauddiv", UART0->bauddiv, UART_DEFAULT_BAUDDIV);
    check_eq_hex("uart0 ctrl", UART0->ctrl, UART_CTRL_TXEN);
    check_yes("uart0 tx buffer drains", tx_drains(UART0));

    /* UART1 and UART2. */
    uart_init(UART1);
    check_eq_hex("uart1 ctrl", UART1->ctrl, UART_CTRL_TXEN);
    check_eq("uart1 bytes sent", send_bounded(UART1, "hello uart1\n"), 12);
    check_yes("uart1 tx buffer drains", tx_drains(UART1));
    uart_init(UART2);
    check_eq("uart2 bytes sent", send_bounded(UART2, "hello uart2\n"), 12);
    check_yes("uart2 tx buffer drains", tx_drains(UART2));
    check_eq("uart1 no overrun", UART1->state & UART_STATE_TXOVR, 0);

    /* UART0 TX interrupt. */
    while (UART0->state & UART_STATE_TXFULL)
        ;
    UART0->intstatus = UART_INT_TX | UART_INT_RX;
    check_eq("uart0 intstatus clear", UART0->intstatus, 0);
    nvic_set_priority(IRQ_UART0_TX, 0x80);
    nvic_clear_pending(IRQ_UART0_TX);
    nvic_enable(IRQ_UART0_TX);
    irq_pos = 1;
    UART0->ctrl = UART_CTRL_TXEN | UART_CTRL_TXINTEN;
    UART0->data = (uint8_t)irq_msg[0];
    CPU_WAIT_UNTIL(irq_done);
    nvic_disable(IRQ_UART0_TX);
    check_eq("uart0 tx irq done", irq_done, 1);
    check_eq("uart0 tx interrupts", irq_count, sizeof irq_msg - 1);
    check_eq("uart0 intstatus at entry (bad entries)", irq_bad_status, 0);
    check_eq_hex("uart0 ctrl after irq tx", UART0->ctrl, UART_CTRL_TXEN);

    return test_end();
}
