/*
 * Device test: unicast round trips between two modules, and the round-trip time.
 *
 * Module 0 sends 8 pings of 8 bytes (sequence number, its complement) to module 1 and
 * after each polls STATUS.RX_AVAIL for the pong, timing the round trip in its own core
 * cycles with SysTick (processor clock, reload 0xFFFFFF, down-counting): from just before
 * TX_SEND to just after RX_AVAIL is seen. It prints "ping <seq> rtt <cycles>" for each
 * (exact on cairn-sim, so deterministic), then "pingpong done" and returns 0.
 * Module 1 sleeps (WFI, RX interrupt) until a frame comes, checks that the sequence
 * numbers come in order, echoes the payload to its source and prints "pong <seq>",
 * forever. Both print "module <addr> of <n>" first; modules 2 and up have no role and
 * return 0. Any mismatch prints a "FAIL ..." line (module 0 then returns 1).
 */
#include <stdint.h>

#include "bus.h"
#include "check.h"
#include "systick.h"
#include "uart.h"

#define PINGS 8

struct ping {
    uint32_t seq;
    uint32_t check; /* ~seq */
};

static void say_u(const char *a, uint32_t v, const char *b)
{
    uart_puts(a);
    uart_put_udec(v);
    uart_puts(b);
}

static int hub(void)
{
    int bad = 0;
    SYST_CSR = 0;
    SYST_RVR = SYST_MAX_RELOAD;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_CLKSOURCE;

    for (uint32_t seq = 0; seq < PINGS; seq++) {
        struct ping p = {seq, ~seq};
        bus_compose(1, &p, sizeof p);
        uint32_t t0 = SYST_CVR;
        bus_commit();
        while ((CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_RX_AVAIL) == 0)
            ;
        uint32_t t1 = SYST_CVR;
        uint32_t rtt = (t0 - t1) & SYST_MAX_RELOAD;

        struct ping q = {0, 0};
        uint8_t src = 0xFF;
        int n = bus_try_recv(&src, &q, sizeof q);
        say_u("ping ", seq, " rtt ");
        say_u("", rtt, "\n");
        if (n != (int)sizeof q || src != 1 || q.seq != seq || q.check != ~seq) {
            say_u("FAIL pong ", seq, ": len ");
            uart_put_dec(n);
            say_u(" src ", src, " seq ");
            say_u("", q.seq, "\n");
            bad = 1;
        }
    }
    say("pingpong done");
    return bad;
}

static void leaf(void)
{
    uint32_t expect = 0;
    for (;;) {
        struct ping p = {0, 0};
        uint8_t src = 0xFF;
        int n = bus_recv_wait(&src, &p, sizeof p);
        bus_send(src, &p, sizeof p);
        say_u("pong ", p.seq, "\n");
        if (n != (int)sizeof p || p.seq != expect || p.check != ~p.seq) {
            say_u("FAIL ping ", p.seq, ": expect ");
            say_u("", expect, " len ");
            uart_put_dec(n);
            uart_puts("\n");
        }
        expect = p.seq + 1;
    }
}

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    unsigned addr = (unsigned)start;
    say_u("module ", addr, " of ");
    say_u("", bus_modules(), "\n");
    if (addr == 0)
        return hub();
    if (addr == 1)
        leaf();
    return 0;
}
