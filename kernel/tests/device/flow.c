/*
 * Device test: the bus's flow control under a slow receiver (two modules).
 *
 * Module 0 sends 32 frames of 16 bytes [seq, three pattern words] to module 1 as fast as
 * STATUS.TX_READY allows, prints "sent 32", waits for module 1's ack frame [received,
 * errors], prints "flow done" and returns 0 (1 after a FAIL line). Module 1 takes its time
 * with each frame: once one is waiting it spins ~2000 iterations of a volatile counter
 * before popping it, so its RX FIFO fills and frames must wait on the wire side (a
 * flow-control stall: nothing may be dropped). It checks that the sequence numbers come in
 * order, the length, the source and the pattern, counts the frames that fail, and after
 * seq 31 prints "received 32 errors 0" (the real counts), sends the ack and sleeps forever
 * with nothing to wake it.
 */
#include <stdint.h>

#include "bus.h"
#include "check.h"
#include "uart.h"

#define FRAMES 32u
#define SLOW_SPIN 2000u

struct frame {
    uint32_t seq;
    uint32_t pattern[3];
};

struct ack {
    uint32_t received;
    uint32_t errors;
};

static uint32_t pattern(uint32_t seq, uint32_t i)
{
    return ((seq << 8) | i) * 0x9E3779B1u;
}

static int sender(void)
{
    int bad = 0;
    for (uint32_t seq = 0; seq < FRAMES; seq++) {
        struct frame f = {seq, {pattern(seq, 1), pattern(seq, 2), pattern(seq, 3)}};
        bus_send(1, &f, sizeof f);
    }
    uart_puts("sent ");
    uart_put_udec(FRAMES);
    uart_puts("\n");

    struct ack a = {0, 0};
    uint8_t src = 0xFF;
    int n = bus_recv_wait(&src, &a, sizeof a);
    if (n != (int)sizeof a || src != 1 || a.received != FRAMES || a.errors != 0) {
        uart_puts("FAIL ack: len ");
        uart_put_dec(n);
        uart_puts(" src ");
        uart_put_udec(src);
        uart_puts(" received ");
        uart_put_udec(a.received);
        uart_puts(" errors ");
        uart_put_udec(a.errors);
        uart_puts("\n");
        bad = 1;
    }
    uint32_t err = CAIRN_BUS_ERR;
    if (err != 0) {
        uart_puts("FAIL bus ERR ");
        uart_put_hex(err);
        uart_puts("\n");
        bad = 1;
    }
    say("flow done");
    return bad;
}

__attribute__((noreturn)) static void receiver(void)
{
    uint32_t expect = 0, received = 0, errors = 0;
    for (;;) {
        bus_wait_rx();
        for (volatile uint32_t i = 0; i < SLOW_SPIN; i++)
            ;
        struct frame f = {0, {0, 0, 0}};
        uint8_t src = 0xFF;
        uint32_t status = 0;
        int n = bus_try_recv_status(&src, &f, sizeof f, &status);
        if (n < 0)
            continue;
        received++;
        if (n != (int)sizeof f || src != 0 || f.seq != expect ||
            (status & CAIRN_BUS_STATUS_RX_CORRUPT) || f.pattern[0] != pattern(f.seq, 1) ||
            f.pattern[1] != pattern(f.seq, 2) || f.pattern[2] != pattern(f.seq, 3))
            errors++;
        expect = f.seq + 1;
        if (f.seq == FRAMES - 1)
            break;
    }
    uart_puts("received ");
    uart_put_udec(received);
    uart_puts(" errors ");
    uart_put_udec(errors);
    uart_puts("\n");
    struct ack a = {received, errors};
    bus_send(0, &a, sizeof a);
    bus_sleep_forever();
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
