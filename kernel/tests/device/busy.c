/*
 * Device benchmark workload (device-busy-100.elf, -10.elf, -1.elf): every module runs a
 * CPU-bound loop for RUN_MS ms of its own time and every FRAME_PERIOD_US us sends an
 * 8-byte frame to (address + 1) mod modules, popping the frames it receives in the RX
 * interrupt; then prints "busy m<addr> sent <s> received <r>" and returns 0. Time is
 * counted in core cycles with SysTick and converted with CLOCK_HZ, the processor clock
 * the firmware assumes (compile-time; a module run at another clock runs for
 * RUN_MS x CLOCK_HZ / clock). Frames due while the TX queue is full are skipped.
 * This measures the simulator's cost per simulated second under bus load; the counts
 * are deterministic on cairn-sim but depend on the bus timing model.
 */
#include <stdint.h>

#include "bus.h"
#include "busywork.h"
#include "check.h"

#ifndef FRAME_PERIOD_US
#define FRAME_PERIOD_US 100u
#endif

#define PERIOD_CYCLES ((uint32_t)((uint64_t)(CLOCK_HZ) * (FRAME_PERIOD_US) / 1000000u))

_Static_assert(FRAME_PERIOD_US == 0 || PERIOD_CYCLES > 0, "frame period below one cycle");

int main(void)
{
    if (bus_start() < 0)
        return 1;
    return busywork_run(PERIOD_CYCLES, RUN_CYCLES);
}
