/*
 * Energy firmware, DS10152 Table 35 (Stop mode, RTC off): WFI with SLEEPDEEP and no timer
 * running; stimulus line 0 (energy_stop_ext.toml: every 10 s) wakes the core, twice.
 */
#include <stdint.h>

#include "cairn_io.h"
#include "cpu.h"
#include "nvic.h"
#include "scb.h"

static volatile uint32_t wakes;

void irq18_handler(void) /* CAIRN_IRQ_STIM(0) */
{
    CAIRN_STIM_CLEAR = 1u;
    wakes++;
}

int main(void)
{
    nvic_enable(CAIRN_IRQ_STIM(0));
    SCB_SCR |= SCR_SLEEPDEEP;
    while (wakes < 2u)
        cpu_wfi();
    return 0;
}
