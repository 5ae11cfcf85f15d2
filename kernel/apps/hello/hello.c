/*
 * The CoMOS hello world (CoMOS paper, Listings 1 and 2) on Cairn OS.
 *
 * A timer task starts a periodic virtual timer of 1/8 s on INIT; each TIMEOUT0
 * sends "Hello World" on its output port 0, which the application description
 * connects to multicast group 0; the hello task, the group's only member (on
 * PORT0), prints one line per message on UART0:
 *
 *     <milliseconds since boot, 3 decimals> Hello World
 *
 * "Boot" is cairn_port_init, which starts the hardware counter; the time printed
 * is the counter when the hello task's handler runs (so each stamp is the timer's
 * deadline plus the interrupt-to-handler latency).
 *
 * Forever by default; built with -DHELLO_LINES=N it exits through semihosting
 * (SYS_EXIT_EXTENDED, status 0) after N lines, for tests.
 */
#include <stdint.h>

#include "cairn/app.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "cairn/arch_timer.h"
#include "cairn_armv6m.h"
#include "semihost.h"
#include "uart.h"

#ifndef HELLO_LINES
#define HELLO_LINES 0 /* forever */
#endif

/* ---- the timer task (CoMOS Listing 1) ------------------------------------------- */

struct timer_init {
    uint32_t period; /* ticks */
};

struct timer_state {
    uint32_t period;
};

static cairn_ret_t timer_task(void *state, cairn_msg_t *msg)
{
    struct timer_state *s = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT: {
        const struct timer_init *init = msg->payload;
        s->period = init->period;
        return cairn_timer_start(0, s->period, true);
    }
    case CAIRN_PORT_TIMEOUT0:
        return cairn_send(0, "Hello World", sizeof "Hello World");
    }
    return CAIRN_OK;
}

/* ---- the hello task: prints what it receives, time-stamped ------------------------ */

struct hello_state {
    uint32_t last;  /* counter at the previous line */
    uint32_t high;  /* counter wraps (2^32 ticks = 171.8 s at 25 MHz) */
    uint32_t lines;
};

static void put_udec_width(uint32_t v, unsigned width)
{
    char buf[10];
    unsigned n = 0;
    do {
        buf[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v && n < sizeof buf);
    while (n < width && n < sizeof buf)
        buf[n++] = '0';
    while (n)
        uart_putc(buf[--n]);
}

static cairn_ret_t hello_task(void *state, cairn_msg_t *msg)
{
    struct hello_state *s = state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    uint32_t now = arch_timer_now();
    if (now < s->last)
        s->high++;
    s->last = now;
    uint64_t ticks = ((uint64_t)s->high << 32) | now;
    uint64_t us = ticks / (CAIRN_TICKS_PER_SECOND / 1000000u);
    put_udec_width((uint32_t)(us / 1000u), 1);
    uart_putc('.');
    put_udec_width((uint32_t)(us % 1000u), 3);
    uart_putc(' ');
    uart_puts(msg->payload);
    uart_putc('\n');
#if HELLO_LINES > 0
    if (++s->lines >= HELLO_LINES)
        sh_exit(0);
#endif
    return CAIRN_OK;
}

/* ---- the application (CoMOS Listing 2) ------------------------------------------- */

enum { TIMER_PROG, HELLO_PROG };

static const cairn_program_t programs[] = {
    [TIMER_PROG] = CAIRN_PROGRAM(timer_task, struct timer_state),
    [HELLO_PROG] = CAIRN_PROGRAM(hello_task, struct hello_state),
};
static const struct timer_init timer_init = {.period = CAIRN_TICKS_PER_SECOND / 8};
static const cairn_app_route_t timer_out[] = {CAIRN_TO_GROUP(0)}; /* output 0 -> group 0 */
static const cairn_task_desc_t tasks[] = {
    {.prog = TIMER_PROG, .prio = 1, .flags = CAIRN_TASK_MOVABLE, CAIRN_OUT(timer_out),
     CAIRN_INIT_DATA(timer_init)},
    {.prog = HELLO_PROG, .prio = 1, .flags = CAIRN_TASK_MOVABLE},
};
static const cairn_member_desc_t members[] = {
    {.group = 0, .task = 1, .port = CAIRN_PORT(0)}, /* group 0 -> task 1, PORT0 */
};
static const cairn_app_desc_t hello_app = {
    CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
};

static uint64_t heap[1024]; /* 8 KiB, 8-byte aligned */

int main(void)
{
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    cairn_ret_t r = cairn_app_start(&hello_app, 0);
    if (r != CAIRN_OK) {
        uart_puts("FAIL cairn_app_start ");
        uart_put_dec(r);
        uart_putc('\n');
        return 1;
    }
    cairn_run();
}
