/*
 * Real-time clock drift (device-rtc.elf): every module arms its RTC alarm at one second of
 * its own crystal (COUNT 32768), sleeps until the alarm interrupt, prints its RTC count and
 * returns. A module whose crystal runs fast by p ppm wakes 1/(1 + p·10⁻⁶) s after the start
 * of the run, so the device's statistics show when, in true time, each module's second
 * ended: the drift that clock synchronisation must correct.
 */
#include <stdint.h>

#include "bus.h"
#include "cairn_bus.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "uart.h"

static volatile uint32_t alarms;

void irq27_handler(void)
{
    CAIRN_RTC_STATUS = CAIRN_RTC_STATUS_ALARM;
    alarms++;
}

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    CAIRN_RTC_ALARM = CAIRN_RTC_FREQ;
    CAIRN_RTC_CTRL = CAIRN_RTC_CTRL_ALARM_IE;
    nvic_enable(CAIRN_IRQ_RTC);
    CPU_WAIT_UNTIL(alarms != 0);
    uart_puts("rtc m");
    uart_put_udec((unsigned)start);
    uart_puts(" alarm at ");
    uart_put_udec(rtc_count());
    uart_puts("\n");
    return 0;
}
