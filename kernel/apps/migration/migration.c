/*
 * Task migration while messages flow (docs/migration.md): the pipeline sensor -> filter ->
 * logger on the three modules of experiments/devices/migration.toml, whose filter moves
 * from the slow module to the fast one and back.
 *
 * Module 0 ("slow") holds the filter, module 1 ("fast") the logger, module 2 the sensor.
 * The sensor samples every millisecond; after MIGRATION_AWAY samples it asks for the
 * filter to move to module 1 (its REQUEST goes to the filter's module), after
 * MIGRATION_BACK samples for it to move back to module 0. The filter keeps a moving
 * average of the last four samples in its state, which moves with it (its SERIALIZE
 * handler hands a copy). The logger prints one line per sample and checks that the
 * samples come once each and in order; after MIGRATION_SAMPLES it prints its view and
 * exits a little later (LINGER_US). The accounting the test asserts comes from the simulator's trace
 * (python/cairn/net_trace.py), not from these lines.
 */
#include <stdint.h>

#include "cairn/app.h"
#include "cairn/mem.h"
#include "cairn/migrate.h"
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

#ifndef MIGRATION_SAMPLES
#define MIGRATION_SAMPLES 40
#endif
#ifndef MIGRATION_AWAY
#define MIGRATION_AWAY 10
#endif
#ifndef MIGRATION_BACK
#define MIGRATION_BACK 25
#endif

/* A build with MIGRATION_MARKER_PIN toggles that marker pin at every sample the logger
 * takes, so the simulator measures the pipeline's output jitter across the moves (the
 * flagship demo, experiments/flagship/). */
#ifdef MIGRATION_MARKER_PIN
#include "cairn_io.h"
#define LOGGER_MARK() (CAIRN_GPIO_TGL = 1u << (MIGRATION_MARKER_PIN))
#else
#define LOGGER_MARK() ((void)0)
#endif

/* The bus of experiments/devices/migration.toml (change both together): its slot and
 * modules give the TDMA round; a retransmission waits two rounds and the receiver's
 * handling, which on the slow module is the longer part. */
#define BUS_SLOT_US 8u
#define BUS_MODULES 3u
#define HANDLING_US 2000u
#define RETRANSMIT_US (2u * BUS_SLOT_US * BUS_MODULES + HANDLING_US)

enum { SENSOR, FILTER, LOGGER };

#define FILTER_ID (FILTER + 1) /* the application manager's IDs start at 1, in order */

struct sample {
    uint16_t k;
    uint16_t value;
    uint16_t avg;
};

static cairn_ret_t send_sample(const struct sample *s)
{
    struct sample *p = cairn_malloc(sizeof *p);
    if (!p)
        return CAIRN_ENOMEM;
    *p = *s;
    return cairn_send(0, p, sizeof *p);
}

/* ---- sensor (module 2): the samples and the migration policy ----------------------------- */

struct sensor_state {
    uint16_t k;
};

static cairn_ret_t sensor_task(void *state, cairn_msg_t *msg)
{
    struct sensor_state *st = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        return cairn_timer_start(0, CAIRN_TICKS_PER_SECOND / 1000u, true);
    case CAIRN_PORT_TIMEOUT0: {
        struct sample s = {.k = ++st->k, .value = (uint16_t)((st->k * 37u + 11u) % 100u)};
        if (st->k >= MIGRATION_SAMPLES)
            cairn_timer_stop(0);
        cairn_ret_t r = send_sample(&s);
        if (st->k == MIGRATION_AWAY)
            (void)cairn_migrate(FILTER_ID, 1);
        else if (st->k == MIGRATION_BACK)
            (void)cairn_migrate(FILTER_ID, 0);
        return r;
    }
    }
    return CAIRN_OK;
}

/* ---- filter (movable): a moving average ---------------------------------------------------- */

struct filter_state {
    uint16_t last[4];
    uint16_t n;
};

static cairn_ret_t filter_task(void *state, cairn_msg_t *msg)
{
    struct filter_state *st = state;
    if (msg->port == CAIRN_PORT_SERIALIZE) {
        struct filter_state *b = cairn_malloc(sizeof *b);
        if (!b)
            return CAIRN_ENOMEM; /* no block: the migration fails, the filter resumes */
        *b = *st;
        return cairn_migrate_state(b, sizeof *b);
    }
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct sample))
        return CAIRN_OK;
    struct sample s = *(const struct sample *)msg->payload;
    st->last[st->n++ % 4u] = s.value;
    unsigned n = st->n < 4u ? st->n : 4u, sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += st->last[i];
    s.avg = (uint16_t)(sum / n);
    return send_sample(&s);
}

/* ---- logger (module 1) ---------------------------------------------------------------------- */

struct logger_state {
    uint16_t next, bad;
};

/* After its last sample the logger's module goes on answering for a while before it stops:
 * a peer may still be waiting for a frame of this module (an acknowledgement or a
 * migration's answer lost on the way), and a stopped module answers nothing. 200 ms of the
 * nominal clock is longer than the slow module's whole retransmission schedule (its tries
 * and the query period, 12.8 ms each there), as TCP's TIME_WAIT outlasts the peer's. */
#define LINGER_US 200000u

static cairn_ret_t logger_task(void *state, cairn_msg_t *msg)
{
    struct logger_state *st = state;
    if (msg->port == CAIRN_PORT_TIMEOUT(0))
        sh_exit(st->bad ? 1 : 0);
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct sample))
        return CAIRN_OK;
    LOGGER_MARK();
    const struct sample *s = msg->payload;
    if (s->k != st->next + 1u)
        st->bad++;
    st->next = s->k;
    uart_puts("sample ");
    uart_put_udec(s->k);
    uart_puts(" value ");
    uart_put_udec(s->value);
    uart_puts(" avg ");
    uart_put_udec(s->avg);
    uart_putc('\n');
    if (s->k >= MIGRATION_SAMPLES) {
        uart_puts("logger: ");
        uart_put_udec(s->k);
        uart_puts(" samples, ");
        uart_put_udec(st->bad);
        uart_puts(" out of order\n");
        uint32_t linger = (uint32_t)((uint64_t)CAIRN_TICKS_PER_SECOND * LINGER_US / 1000000u);
        if (cairn_timer_set(cairn_current_task(), 0, linger, false) != CAIRN_OK)
            sh_exit(st->bad ? 1 : 0);
    }
    return CAIRN_OK;
}

/* ---- the application description ------------------------------------------------------------ */

static const cairn_program_t programs[] = {
    [SENSOR] = CAIRN_PROGRAM(sensor_task, struct sensor_state),
    [FILTER] = CAIRN_PROGRAM(filter_task, struct filter_state),
    [LOGGER] = CAIRN_PROGRAM(logger_task, struct logger_state),
};
static const cairn_app_route_t sensor_out[] = {CAIRN_TO(FILTER, CAIRN_PORT(0))};
static const cairn_app_route_t filter_out[] = {CAIRN_TO(LOGGER, CAIRN_PORT(0))};
static const cairn_task_desc_t tasks[] = {
    [SENSOR] = {.prog = SENSOR, .prio = 1, .module = 2, CAIRN_OUT(sensor_out)},
    [FILTER] = {.prog = FILTER, .prio = 2, .module = 0, .flags = CAIRN_TASK_MOVABLE, CAIRN_OUT(filter_out)},
    [LOGGER] = {.prog = LOGGER, .prio = 3, .module = 1},
};
static const cairn_app_desc_t migration_app = {CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks)};

static const cairn_migrate_task_t movable[] = {{FILTER_ID, filter_task}};

static uint64_t heap[2048]; /* 16 KiB, 8-byte aligned */

int main(void)
{
    cairn_ret_t r = app_boot(heap, sizeof heap);
    if (r != CAIRN_OK)
        return app_fail("cairn_net_init", r);
    if ((r = cairn_app_start(&migration_app, 0)) != CAIRN_OK)
        return app_fail("cairn_app_start", r);
    const cairn_migrate_config_t cfg = {
        .tasks = movable,
        .count = 1,
        .retransmit_ticks = (uint32_t)((uint64_t)CAIRN_TICKS_PER_SECOND * RETRANSMIT_US / 1000000u),
        .tries = 6,
        .hw_hz = CAIRN_TICKS_PER_SECOND,
    };
    if ((r = cairn_migrate_start(&cfg)) != CAIRN_OK)
        return app_fail("cairn_migrate_start", r);
    if ((r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    cairn_run();
}
