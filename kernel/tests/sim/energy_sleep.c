/*
 * Energy firmware, DS10152 Table 32 (Sleep mode): WFI with SLEEPDEEP clear, woken by SysTick
 * every 100 ms of simulated time, three times. Almost all of the run is Sleep mode.
 */
#include <stdint.h>

#include "cpu.h"
#include "energy_clock.h"
#include "scb.h"

ENERGY_SYSTICK_HANDLER

int main(void)
{
    SCB_SCR &= ~SCR_SLEEPDEEP;
    energy_ticks_start(100000u);
    while (energy_ticks < 3u)
        cpu_wfi();
    return 0;
}
