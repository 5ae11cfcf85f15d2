/*
 * Energy firmware, DS10152 Table 29 "Fibonacci": recursive Fibonacci from flash for 5 ms of
 * simulated time (SysTick counts it). Exits 0 when every result was right, 1 otherwise.
 */
#include <stdint.h>

#include "energy_clock.h"

ENERGY_SYSTICK_HANDLER

__attribute__((noinline)) static uint32_t fib(uint32_t n)
{
    return n < 2u ? n : fib(n - 1u) + fib(n - 2u);
}

int main(void)
{
    static volatile uint32_t n = 15u;
    uint32_t bad = 0u;
    energy_ticks_start(1000u);
    while (energy_ticks < 5u)
        bad |= fib(n) != 610u;
    return (int)bad;
}
