/*
 * Device test: broadcast frames and the unicast replies they cause (five modules, or any
 * number from two up, at addresses 0 to n-1).
 *
 * Module 0 broadcasts 4 frames of 4 bytes (the sequence number 0..3) as fast as its TX
 * queue takes them; every other module, sleeping (WFI, RX interrupt) between frames,
 * prints "m<addr> got <seq> from 0" for each and replies with a unicast ack of 8 bytes
 * [seq, addr]. Module 0 collects the 4 x (n-1) acks, checks that each (seq, module) pair
 * comes once and from the module it names, prints per sequence number in order
 * "seq <k> acks <count>", then "broadcast done", and returns 0 (1 after a FAIL line). The
 * sender does not receive its own broadcasts. The other modules never return: once module
 * 0 is done they are asleep with nothing to wake them, which ends the run.
 */
#include <stdint.h>

#include "bus.h"
#include "check.h"
#include "uart.h"

#define FRAMES 4u

struct ack {
    uint32_t seq;
    uint32_t addr;
};

static void fail_frame(const char *what, int len, unsigned src)
{
    uart_puts("FAIL ");
    uart_puts(what);
    uart_puts(": len ");
    uart_put_dec(len);
    uart_puts(" src ");
    uart_put_udec(src);
    uart_puts("\n");
}

static int hub(unsigned modules)
{
    unsigned acks[FRAMES] = {0};
    uint32_t seen[FRAMES] = {0}; /* bit a: the ack of module a (a < 32) */
    unsigned want = FRAMES * (modules - 1u), good = 0;
    int bad = 0;

    if (modules < 2) {
        say("FAIL broadcast needs two modules or more");
        return 1;
    }
    for (uint32_t seq = 0; seq < FRAMES; seq++)
        bus_send(CAIRN_BUS_BROADCAST, &seq, sizeof seq);

    while (good < want) {
        struct ack a = {0, 0};
        uint8_t src = 0;
        int n = bus_recv_wait(&src, &a, sizeof a);
        if (n != (int)sizeof a || a.seq >= FRAMES || a.addr != src || src == 0 ||
            src >= modules) {
            fail_frame("ack", n, src);
            bad = 1;
            continue;
        }
        uint32_t bit = src < 32u ? 1u << src : 0u;
        if (seen[a.seq] & bit) {
            uart_puts("FAIL duplicate ack seq ");
            uart_put_udec(a.seq);
            uart_puts(" from ");
            uart_put_udec(src);
            uart_puts("\n");
            bad = 1;
            continue;
        }
        seen[a.seq] |= bit;
        acks[a.seq]++;
        good++;
    }
    for (unsigned k = 0; k < FRAMES; k++) {
        uart_puts("seq ");
        uart_put_udec(k);
        uart_puts(" acks ");
        uart_put_udec(acks[k]);
        uart_puts("\n");
    }
    bus_flush();
    say("broadcast done");
    return bad;
}

__attribute__((noreturn)) static void leaf(unsigned addr)
{
    for (;;) {
        uint32_t seq = 0;
        uint8_t src = 0xFF;
        int n = bus_recv_wait(&src, &seq, sizeof seq);
        if (n != (int)sizeof seq || src != 0) {
            fail_frame("broadcast", n, src);
            continue;
        }
        uart_puts("m");
        uart_put_udec(addr);
        uart_puts(" got ");
        uart_put_udec(seq);
        uart_puts(" from 0\n");
        struct ack a = {seq, addr};
        bus_send(0, &a, sizeof a);
    }
}

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    unsigned addr = (unsigned)start;
    if (addr == 0)
        return hub(bus_modules());
    leaf(addr);
}
