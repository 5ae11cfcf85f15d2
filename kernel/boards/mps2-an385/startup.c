/*
 * Vector table and reset code of board mps2-an385 (ARMv6-M).
 *
 * Reset copies .data from flash, zeroes .bss, calls main() and exits with its
 * return value through semihosting (SYS_EXIT_EXTENDED).
 */
#include <stdint.h>

#include "cpu.h"
#include "semihost.h"
#include "startup.h"
#include "uart.h"

/* Linker script symbols (mps2-an385.ld). */
extern uint32_t __stack_top[];
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];

void default_handler(void);

#define WEAK_DEFAULT __attribute__((weak, alias("default_handler")))
void nmi_handler(void) WEAK_DEFAULT;
void hardfault_handler(void) WEAK_DEFAULT;
void svc_handler(void) WEAK_DEFAULT;
void pendsv_handler(void) WEAK_DEFAULT;
void systick_handler(void) WEAK_DEFAULT;
void irq0_handler(void) WEAK_DEFAULT;
void irq1_handler(void) WEAK_DEFAULT;
void irq2_handler(void) WEAK_DEFAULT;
void irq3_handler(void) WEAK_DEFAULT;
void irq4_handler(void) WEAK_DEFAULT;
void irq5_handler(void) WEAK_DEFAULT;
void irq6_handler(void) WEAK_DEFAULT;
void irq7_handler(void) WEAK_DEFAULT;
void irq8_handler(void) WEAK_DEFAULT;
void irq9_handler(void) WEAK_DEFAULT;
void irq10_handler(void) WEAK_DEFAULT;
void irq11_handler(void) WEAK_DEFAULT;
void irq12_handler(void) WEAK_DEFAULT;
void irq13_handler(void) WEAK_DEFAULT;
void irq14_handler(void) WEAK_DEFAULT;
void irq15_handler(void) WEAK_DEFAULT;
void irq16_handler(void) WEAK_DEFAULT;
void irq17_handler(void) WEAK_DEFAULT;
void irq18_handler(void) WEAK_DEFAULT;
void irq19_handler(void) WEAK_DEFAULT;
void irq20_handler(void) WEAK_DEFAULT;
void irq21_handler(void) WEAK_DEFAULT;
void irq22_handler(void) WEAK_DEFAULT;
void irq23_handler(void) WEAK_DEFAULT;
void irq24_handler(void) WEAK_DEFAULT;
void irq25_handler(void) WEAK_DEFAULT;
void irq26_handler(void) WEAK_DEFAULT;
void irq27_handler(void) WEAK_DEFAULT;
void irq28_handler(void) WEAK_DEFAULT;
void irq29_handler(void) WEAK_DEFAULT;
void irq30_handler(void) WEAK_DEFAULT;
void irq31_handler(void) WEAK_DEFAULT;

typedef void (*vector_fn)(void);

struct vector_table {
    uint32_t *initial_sp;
    vector_fn vector[15 + 32];
};

__attribute__((section(".vectors"), used))
const struct vector_table vector_table = {
    __stack_top,
    {
        reset_handler,     /*  1 Reset */
        nmi_handler,       /*  2 NMI */
        hardfault_handler, /*  3 HardFault */
        0, 0, 0, 0, 0, 0, 0, /* 4..10 reserved on ARMv6-M */
        svc_handler,       /* 11 SVCall */
        0, 0,              /* 12..13 reserved */
        pendsv_handler,    /* 14 PendSV */
        systick_handler,   /* 15 SysTick */
        irq0_handler, irq1_handler, irq2_handler, irq3_handler,
        irq4_handler, irq5_handler, irq6_handler, irq7_handler,
        irq8_handler, irq9_handler, irq10_handler, irq11_handler,
        irq12_handler, irq13_handler, irq14_handler, irq15_handler,
        irq16_handler, irq17_handler, irq18_handler, irq19_handler,
        irq20_handler, irq21_handler, irq22_handler, irq23_handler,
        irq24_handler, irq25_handler, irq26_handler, irq27_handler,
        irq28_handler, irq29_handler, irq30_handler, irq31_handler,
    },
};

void reset_handler(void)
{
    uint32_t *src = __data_load;
    uint32_t *dst = __data_start;
    while (dst < __data_end)
        *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end; dst++)
        *dst = 0;
    sh_exit((uint32_t)main());
}

/* Reports an unexpected exception and stops the run. `frame` is the stacked
 * exception frame (on MSP or PSP, as EXC_RETURN bit 2 says). */
__attribute__((noreturn, used))
void default_handler_report(const struct exc_frame *frame, uint32_t exc_return)
{
    UART0->bauddiv = UART_DEFAULT_BAUDDIV;
    UART0->ctrl = UART_CTRL_TXEN;
    uart_puts("\nFAIL unexpected exception ");
    uart_put_udec(cpu_get_ipsr() & 0x1FFu);
    uart_puts(" pc=");
    uart_put_hex(frame->pc);
    uart_puts(" lr=");
    uart_put_hex(frame->lr);
    uart_puts(" exc_return=");
    uart_put_hex(exc_return);
    uart_puts("\n");
    sh_exit(BOARD_EXIT_UNEXPECTED_EXCEPTION);
}

__attribute__((naked))
void default_handler(void)
{
    __asm__ volatile(
        "movs r0, #4\n\t"
        "mov  r1, lr\n\t"
        "tst  r0, r1\n\t"
        "bne  1f\n\t"
        "mrs  r0, msp\n\t"
        "b    2f\n"
        "1:\n\t"
        "mrs  r0, psp\n"
        "2:\n\t"
        "bl   default_handler_report\n\t");
}
