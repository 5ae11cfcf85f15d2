/*
 * Reset, vector table and exception handler names of board mps2-an385.
 *
 * Every handler is weak: define a function with the same name to override
 * it. Unhandled exceptions print "FAIL unexpected exception N ..." on UART0
 * and exit with BOARD_EXIT_UNEXPECTED_EXCEPTION via semihosting.
 */
#ifndef CAIRN_BOARD_STARTUP_H
#define CAIRN_BOARD_STARTUP_H

#define BOARD_EXIT_UNEXPECTED_EXCEPTION 99

void reset_handler(void);
void nmi_handler(void);
void hardfault_handler(void);
void svc_handler(void);
void pendsv_handler(void);
void systick_handler(void);

/* External interrupts: irqN_handler is NVIC IRQ N (exception 16 + N); see
 * board.h for the devices behind them (irq1 = UART0 TX, irq8 = timer0,
 * irq9 = timer1). */
void irq0_handler(void);
void irq1_handler(void);
void irq2_handler(void);
void irq3_handler(void);
void irq4_handler(void);
void irq5_handler(void);
void irq6_handler(void);
void irq7_handler(void);
void irq8_handler(void);
void irq9_handler(void);
void irq10_handler(void);
void irq11_handler(void);
void irq12_handler(void);
void irq13_handler(void);
void irq14_handler(void);
void irq15_handler(void);
void irq16_handler(void);
void irq17_handler(void);
void irq18_handler(void);
void irq19_handler(void);
void irq20_handler(void);
void irq21_handler(void);
void irq22_handler(void);
void irq23_handler(void);
void irq24_handler(void);
void irq25_handler(void);
void irq26_handler(void);
void irq27_handler(void);
void irq28_handler(void);
void irq29_handler(void);
void irq30_handler(void);
void irq31_handler(void);

int main(void);

#endif
