/*
 * Energy firmware, DS10152 Tables 35, 39 and 40 (Stop mode with the RTC running): WFI with
 * SLEEPDEEP, woken by SysTick (the timer that stands for the STM32L053's RTC) every
 * 16.777216 s of simulated time, twice.
 */
#include <stdint.h>

#include "cpu.h"
#include "energy_clock.h"
#include "scb.h"

ENERGY_SYSTICK_HANDLER

int main(void)
{
    SCB_SCR |= SCR_SLEEPDEEP;
    energy_ticks_start(SYST_MAX_RELOAD + 1u);
    while (energy_ticks < 2u)
        cpu_wfi();
    return 0;
}
