/*
 * Device benchmark workload with idle modules (device-sleepy.elf): module 0 runs the
 * device-busy workload (support/busywork.c) for RUN_MS ms of its own time without
 * sending any frame, prints "busy m0 sent 0 received 0" and returns 0; every other module
 * prints "sleepy m<addr> sleeps" and sleeps in WFI forever, only the bus RX interrupt
 * enabled. As no frame is ever sent, the sleepers have nothing to wake them: this
 * measures what sleeping modules cost the simulator (ideally nothing).
 */
#include <stdint.h>

#include "bus.h"
#include "busywork.h"
#include "check.h"
#include "uart.h"

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    unsigned addr = (unsigned)start;
    if (addr == 0)
        return busywork_run(0, RUN_CYCLES);
    uart_puts("sleepy m");
    uart_put_udec(addr);
    uart_puts(" sleeps\n");
    for (;;) {
        uint32_t w[2];
        (void)bus_recv_wait(0, w, sizeof w);
    }
}
