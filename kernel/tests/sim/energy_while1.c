/*
 * Energy firmware, DS10152 Table 29 "while(1)": the core spins on one branch (B .) from flash
 * for 5 ms of simulated time; SysTick ends the run. Mean current = a pure branch loop's.
 */
#include <stdint.h>

#include "energy_clock.h"
#include "semihost.h"

void systick_handler(void)
{
    if (++energy_ticks == 5u)
        sh_exit(0);
}

int main(void)
{
    energy_ticks_start(1000u);
    for (;;)
        __asm__ volatile("b ." ::: "memory");
}
