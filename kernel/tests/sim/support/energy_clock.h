/*
 * Shared by the energy firmware (energy_*.c): SysTick on its 1 MHz reference clock
 * (CLKSOURCE = 0) counts periods of simulated time whatever the core clock, so each program
 * runs for the same time at every --clock and the run's mean current is the current of the
 * code under test. The firmware defines systick_handler() as ENERGY_SYSTICK_HANDLER.
 */
#ifndef CAIRN_TEST_ENERGY_CLOCK_H
#define CAIRN_TEST_ENERGY_CLOCK_H

#include <stdint.h>

#include "systick.h"

static volatile uint32_t energy_ticks;

#define ENERGY_SYSTICK_HANDLER                                                  \
    void systick_handler(void) { energy_ticks++; }

/* Interrupt every `period_us` (1..16777216) microseconds of simulated time. */
static inline void energy_ticks_start(uint32_t period_us)
{
    SYST_RVR = period_us - 1u;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT;
}

#endif
