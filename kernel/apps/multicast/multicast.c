/*
 * Multicast across five modules on Cairn OS (docs/distributed.md, "Multicast"): a source
 * on module 0 sends MULTICAST_ROUNDS messages, 1 ms apart, on an output port connected to
 * a group whose members live on all five modules (two each on modules 0 and 2, with
 * different priorities). Each message goes once on the bus, as a broadcast; every module
 * delivers it to its own members, highest priority first, the sender's module too. Each
 * member prints
 *
 *     m<module> <member> prio <p> got <round>
 *
 * and module 0 exits (status 0) 1 ms after the last round. Runs on the five modules of
 * experiments/devices/multicast-five.toml, every module with this one ELF.
 */
#include <stdint.h>

#include "cairn/app.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/net.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "cairn/arch_timer.h"
#include "cairn_armv6m.h"
#include "semihost.h"
#include "uart.h"

#include "../support/app_boot.h"
#include "../support/app_fail.h"

#ifndef MULTICAST_ROUNDS
#define MULTICAST_ROUNDS 4
#endif

#define MS (CAIRN_TICKS_PER_SECOND / 1000u)

struct source_state {
    uint32_t round;
};

static cairn_ret_t source_task(void *state, cairn_msg_t *msg)
{
    struct source_state *st = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        return cairn_timer_start(0, MS, true);
    case CAIRN_PORT_TIMEOUT0: {
        uint32_t *p = cairn_malloc(sizeof *p);
        if (!p)
            return CAIRN_ENOMEM;
        *p = ++st->round;
        if (st->round >= MULTICAST_ROUNDS) {
            cairn_timer_stop(0);
            cairn_timer_start(1, MS, false);
        }
        return cairn_send(0, p, sizeof *p);
    }
    case CAIRN_PORT_TIMEOUT1:
        uart_puts("multicast done\n");
        sh_exit(0);
    }
    return CAIRN_OK;
}

struct member_init {
    char name;
};

struct member_state {
    char name;
};

static cairn_ret_t member_task(void *state, cairn_msg_t *msg)
{
    struct member_state *st = state;
    if (msg->port == CAIRN_PORT_INIT) {
        st->name = ((const struct member_init *)msg->payload)->name;
        return CAIRN_OK;
    }
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(uint32_t))
        return CAIRN_OK;
    uart_putc('m');
    uart_put_udec(cairn_net_address());
    uart_putc(' ');
    uart_putc(st->name);
    uart_puts(" prio ");
    uart_put_udec(cairn_task_prio(cairn_current_task()));
    uart_puts(" got ");
    uart_put_udec(*(const uint32_t *)msg->payload);
    uart_putc('\n');
    return CAIRN_OK;
}

enum { SOURCE_PROG, MEMBER_PROG };
static const cairn_program_t programs[] = {
    [SOURCE_PROG] = CAIRN_PROGRAM(source_task, struct source_state),
    [MEMBER_PROG] = CAIRN_PROGRAM(member_task, struct member_state),
};
static const cairn_app_route_t source_out[] = {CAIRN_TO_GROUP(0)};
static const struct member_init names[] = {{'a'}, {'b'}, {'c'}, {'d'}, {'e'}, {'f'}, {'g'}};
#define MEMBER(i, at, p) {.prog = MEMBER_PROG, .prio = (p), .module = (at), CAIRN_INIT_DATA(names[i])}
static const cairn_task_desc_t tasks[] = {
    {.prog = SOURCE_PROG, .prio = 1, .module = 0, CAIRN_OUT(source_out)},
    MEMBER(0, 0, 2), MEMBER(1, 0, 4), MEMBER(2, 1, 1), MEMBER(3, 2, 1),
    MEMBER(4, 2, 5), MEMBER(5, 3, 3), MEMBER(6, 4, 2),
};
static const cairn_member_desc_t members[] = {
    {.group = 0, .task = 1, .port = CAIRN_PORT(0)}, {.group = 0, .task = 2, .port = CAIRN_PORT(0)},
    {.group = 0, .task = 3, .port = CAIRN_PORT(0)}, {.group = 0, .task = 4, .port = CAIRN_PORT(0)},
    {.group = 0, .task = 5, .port = CAIRN_PORT(0)}, {.group = 0, .task = 6, .port = CAIRN_PORT(0)},
    {.group = 0, .task = 7, .port = CAIRN_PORT(0)},
};
static const cairn_app_desc_t multicast_app = {
    CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
};

static uint64_t heap[1024];

int main(void)
{
    cairn_ret_t r = app_boot(heap, sizeof heap);
    if (r != CAIRN_OK)
        return app_fail("cairn_net_init", r);
    if ((r = cairn_app_start(&multicast_app, 0)) != CAIRN_OK)
        return app_fail("cairn_app_start", r);
    if ((r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    cairn_run();
}
