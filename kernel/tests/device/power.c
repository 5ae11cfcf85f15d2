/*
 * Device test: module power control over the bus (two modules).
 *
 * Frames are 8 bytes: a command byte ('E' echo, 'O' power off), three zero bytes, and a
 * 32-bit sequence number. Module 1 prints "m1 boot" at every reset, then for each frame
 * (sleeping with WFI in between): 'O' prints "m1 off" and powers itself off (POWER = own
 * address, bit 8 clear); anything else prints "m1 echo <seq>" and is echoed to its source
 * (printed first, so that module 0 cannot power module 1 off in the middle of a line).
 * Module 0:
 *   1. sends ('E', 1) and waits for the echo;
 *   2. sends ('O', 0): module 1 powers itself off; module 0 spins 20000 iterations of a
 *      volatile counter, long enough for module 1 to be off;
 *   3. sends ('E', 2): a unicast frame powers module 1 on; it boots again, finds the frame
 *      waiting in its RX FIFO (the controller keeps it) and echoes it;
 *   4. powers module 1 off from here (POWER = 1, bit 8 clear), spins, powers it on
 *      (POWER = 1 | POWER_ON), sends ('E', 3) and waits for the echo;
 * printing "m0 echo <seq>" for each echo, then "power done"; returns 0 (1 after a FAIL
 * line). Module 1 never returns: at the end it sleeps with nothing to wake it.
 */
#include <stdint.h>

#include "bus.h"
#include "check.h"
#include "uart.h"

#define OFF_SPIN 20000u

struct cmd {
    uint8_t op;
    uint8_t pad[3];
    uint32_t seq;
};

static void spin(uint32_t n)
{
    for (volatile uint32_t i = 0; i < n; i++)
        ;
}

static void send_cmd(unsigned dest, char op, uint32_t seq)
{
    struct cmd c = {(uint8_t)op, {0, 0, 0}, seq};
    bus_send(dest, &c, sizeof c);
}

static int echo(uint32_t seq)
{
    struct cmd c = {0, {0, 0, 0}, 0};
    uint8_t src = 0xFF;
    send_cmd(1, 'E', seq);
    int n = bus_recv_wait(&src, &c, sizeof c);
    uart_puts("m0 echo ");
    uart_put_udec(c.seq);
    uart_puts("\n");
    if (n != (int)sizeof c || src != 1 || c.op != 'E' || c.seq != seq) {
        uart_puts("FAIL echo ");
        uart_put_udec(seq);
        uart_puts(": len ");
        uart_put_dec(n);
        uart_puts(" src ");
        uart_put_udec(src);
        uart_puts("\n");
        return 1;
    }
    return 0;
}

static int controller(void)
{
    int bad = 0;
    bad |= echo(1);

    send_cmd(1, 'O', 0); /* module 1 powers itself off */
    spin(OFF_SPIN);
    bad |= echo(2); /* the frame powers it on again */

    bus_power(1, 0); /* remote power off ... */
    spin(OFF_SPIN);
    bus_power(1, 1); /* ... and on */
    bad |= echo(3);

    bus_flush();
    say("power done");
    return bad;
}

__attribute__((noreturn)) static void module1(void)
{
    say("m1 boot");
    for (;;) {
        struct cmd c = {0, {0, 0, 0}, 0};
        uint8_t src = 0xFF;
        int n = bus_recv_wait(&src, &c, sizeof c);
        if (n >= 1 && c.op == 'O') {
            say("m1 off");
            bus_power(bus_address(), 0);
        }
        uart_puts("m1 echo ");
        uart_put_udec(c.seq);
        uart_puts("\n");
        bus_send(src, &c, (unsigned)n < sizeof c ? (unsigned)n : sizeof c);
    }
}

int main(void)
{
    int start = bus_start();
    if (start < 0)
        return 1;
    unsigned addr = (unsigned)start;
    if (addr == 0)
        return controller();
    if (addr == 1)
        module1();
    return 0;
}
