/*
 * Device test: a steady stream of frames, for the bus's fault injection (two modules).
 *
 * Module 0 sends 10 frames of 8 bytes [seq, 0xA5A5A5A5] to module 1, spinning ~1000
 * iterations of a volatile counter between sends, waits until they have all left
 * (STATUS.TX_IDLE) and returns 0. Module 1 sleeps (WFI, RX interrupt) between frames and
 * prints for each "rx <seq> ok", or "rx <seq> bad" when STATUS.RX_CORRUPT was set while
 * the frame was at the head of the FIFO, or its length, source or pattern word is wrong.
 * <seq> is the sequence number as received (a corrupted frame may carry a wrong one; a
 * dropped frame leaves a gap). Module 1 never returns: once module 0 is done it is asleep
 * with nothing to wake it, which ends the run.
 */
#include <stdint.h>

#include "bus.h"
#include "check.h"
#include "uart.h"

#define FRAMES 10u
#define GAP_SPIN 1000u
#define PATTERN 0xA5A5A5A5u

struct frame {
    uint32_t seq;
    uint32_t pattern;
};

static int sender(void)
{
    for (uint32_t seq = 0; seq < FRAMES; seq++) {
        struct frame f = {seq, PATTERN};
        bus_send(1, &f, sizeof f);
        for (volatile uint32_t i = 0; i < GAP_SPIN; i++)
            ;
    }
    bus_flush();
    return 0;
}

__attribute__((noreturn)) static void receiver(void)
{
    for (;;) {
        struct frame f = {0, 0};
        uint8_t src = 0xFF;
        uint32_t status = 0;
        int n = bus_recv_wait_status(&src, &f, sizeof f, &status);
        int ok = n == (int)sizeof f && src == 0 && f.pattern == PATTERN &&
                 (status & CAIRN_BUS_STATUS_RX_CORRUPT) == 0;
        uart_puts("rx ");
        uart_put_udec(f.seq);
        uart_puts(ok ? " ok\n" : " bad\n");
    }
}

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    unsigned addr = (unsigned)start;
    if (addr == 0)
        return sender();
    if (addr == 1)
        receiver();
    return 0;
}
