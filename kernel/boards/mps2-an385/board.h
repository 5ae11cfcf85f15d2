/*
 * Board mps2-an385: memory map, clock and interrupt numbers.
 *
 * The same numbers hold on QEMU's `-M mps2-an385` and on cairn-sim's default
 * board (see docs/board-mps2-an385.md and docs/firmware-tests.md).
 */
#ifndef CAIRN_BOARD_MPS2_AN385_H
#define CAIRN_BOARD_MPS2_AN385_H

#define BOARD_NAME          "mps2-an385"
#define BOARD_CORE_CLOCK_HZ 25000000u /* SYSCLK; also PCLK of the APB peripherals */

#define BOARD_FLASH_BASE    0x00000000u
#define BOARD_FLASH_SIZE    (256u * 1024u)
#define BOARD_RAM_BASE      0x20000000u
#define BOARD_RAM_SIZE      (64u * 1024u)

#define BOARD_TIMER0_BASE   0x40000000u
#define BOARD_TIMER1_BASE   0x40001000u
#define BOARD_UART0_BASE    0x40004000u
#define BOARD_UART1_BASE    0x40005000u
#define BOARD_UART2_BASE    0x40006000u

/* External interrupt numbers (NVIC IRQ n = exception 16 + n). */
#define IRQ_UART0_RX        0
#define IRQ_UART0_TX        1
#define IRQ_UART1_RX        2
#define IRQ_UART1_TX        3
#define IRQ_UART2_RX        4
#define IRQ_UART2_TX        5
#define IRQ_TIMER0          8
#define IRQ_TIMER1          9
#define IRQ_DUALTIMER       10
#define IRQ_UART_OVERFLOW   12
/* IRQs 24..31 have no device behind them on QEMU's AN385 model: tests use
 * them for software-pended interrupts (NVIC ISPR). */
#define IRQ_SOFT0           24
#define IRQ_SOFT1           25
#define IRQ_SOFT2           26
#define IRQ_SOFT3           27

#define BOARD_NUM_IRQS      32

#endif
