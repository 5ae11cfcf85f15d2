/*
 * Sleep benchmark: the core waits in WFI between 1 kHz interrupts from CMSDK
 * timer0 (25 MHz / 25000) for exactly 1000 interrupts, one simulated second,
 * then exits 0. Nearly every cycle is a sleep cycle.
 */
#include <stdint.h>

#include "board.h"
#include "cmsdk_timer.h"
#include "cpu.h"
#include "nvic.h"
#include "startup.h"
#include "uart.h"

#define TICKS 1000u
#define RELOAD (BOARD_CORE_CLOCK_HZ / 1000u - 1u) /* 24999 */

static volatile uint32_t ticks;

void irq8_handler(void) /* timer0 */
{
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    if (++ticks >= TICKS)
        CMSDK_TIMER0->ctrl = 0;
    cpu_dsb();
}

int main(void)
{
    uart_puts("bench_wfi: 1000 timer0 interrupts at 1 kHz\n");
    nvic_enable(IRQ_TIMER0);
    CMSDK_TIMER0->reload = RELOAD;
    CMSDK_TIMER0->value = RELOAD;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    CPU_WAIT_UNTIL(ticks >= TICKS);
    uart_puts("bench_wfi: ticks=");
    uart_put_udec(ticks);
    uart_puts("\n");
    return ticks == TICKS ? 0 : 1;
}
