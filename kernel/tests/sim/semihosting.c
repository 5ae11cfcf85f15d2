/*
 * Semihosting calls (BKPT 0xAB): console output, the ":tt" stream, clocks and
 * SYS_EXIT_EXTENDED. Exits with status 3 on success (1 on a failed check), so
 * the harness also checks that the exit code is passed through.
 *
 * Console output from SYS_WRITEC/SYS_WRITE0/SYS_WRITE is part of the
 * transcript; see docs/firmware-tests.md for the QEMU options that put it on
 * stdout in order with UART0.
 */
#include <stdint.h>

#include "check.h"
#include "semihost.h"
#include "uart.h"

#define EXIT_CODE 3

static void spin(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++)
        ;
}

int main(void)
{
    test_begin("semihosting");

    say("uart0: before semihosting console output");
    sh_writec('s');
    sh_writec('h');
    sh_writec(':');
    sh_writec(' ');
    sh_writec('w');
    sh_writec('r');
    sh_writec('i');
    sh_writec('t');
    sh_writec('e');
    sh_writec('c');
    sh_writec('\n');
    sh_write0("sh: write0 line\n");
    say("uart0: after write0");

    int32_t h = sh_open(":tt", SH_MODE_W);
    check_yes("open :tt mode 4 gives a handle", h != -1);
    static const char msg[] = "sh: write to :tt\n";
    uint32_t left = sh_write(h, msg, sizeof msg - 1);
    check_eq("write :tt bytes not written", left, 0);
    say("uart0: after write");

    uint32_t c1 = sh_clock();
    spin(20000);
    uint32_t c2 = sh_clock();
    check_yes("clock not error", c1 != UINT32_MAX && c2 != UINT32_MAX);
    check_yes("clock monotonic", c2 >= c1);

    uint32_t t = sh_time();
    check_yes("time not error", t != UINT32_MAX);

    int32_t freq = sh_tickfreq();
    check_yes("tickfreq positive", freq > 0);

    uint64_t e1 = 0, e2 = 0;
    int32_t r1 = sh_elapsed(&e1);
    spin(20000);
    int32_t r2 = sh_elapsed(&e2);
    check_yes("elapsed returns 0", r1 == 0 && r2 == 0);
    check_yes("elapsed increases", e2 > e1);

    if (test_end() != 0)
        return 1;
    say("exit code 3");
    sh_exit(EXIT_CODE);
}
