/*
 * A sensing pipeline on Cairn OS: sensor -> filter -> logger, the same task code on one
 * module or spread over three (docs/distributed.md, "One application, one module or
 * three").
 *
 * The sensor samples every millisecond (a periodic virtual timer) and sends the sample
 * on its output port; the filter keeps a moving average of the last four samples and
 * sends sample and average on; the logger prints one line per sample,
 *
 *     sample <k> value <v> avg <a>
 *
 * and after PIPELINE_SAMPLES lines prints "pipeline done" and exits (semihosting, status
 * 0). Only the application description's placement (.module of each task) differs
 * between the builds: build/fw/pipeline.elf has every task on module 0 and runs alone;
 * build/fw/pipeline-spread.elf (-DPIPELINE_SPREAD=1) puts the sensor on module 0, the
 * filter on module 1 and the logger on module 2, and runs on the three modules of
 * experiments/devices/pipeline-three.toml. Every module runs the same ELF and the same
 * description; the application manager creates the local tasks and remote TCBs for the
 * others.
 *
 * build/fw/pipeline-load.elf (-DPIPELINE_LOAD=1, experiments/devices/pipeline-load.toml)
 * boots with no application, only the application manager (cairn/appmgr.h) whose task
 * images are the three programs below. A loader task on module 0 writes the spread
 * description on the wire 1 ms after boot and sends it to its manager, which patches it,
 * broadcasts it to modules 1 and 2 and starts it everywhere; the loader prints the
 * manager's report,
 *
 *     loader: <n> bytes to the application manager
 *     loader: started on modules 0 1 2 as tasks 1 2 3
 *
 * or, when a module refused or did not answer, "loader: failed at step <s>, error <e>,
 * modules <m...>" and exits with status 3. The logger prints the same lines as above.
 */
#include <stdint.h>

#include "cairn/app.h"
#include "cairn/app_wire.h"
#include "cairn/appmgr.h"
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

#if PIPELINE_UART
#include "board.h"
#include "cairn/serial_frame.h"
#include "nvic.h"
#endif

#ifndef PIPELINE_SAMPLES
#define PIPELINE_SAMPLES 8
#endif

/* The placement: which module each task lives on. */
#if PIPELINE_SPREAD || PIPELINE_LOAD || PIPELINE_UART
#define SENSOR_AT 0
#define FILTER_AT 1
#define LOGGER_AT 2
#else
#define SENSOR_AT 0
#define FILTER_AT 0
#define LOGGER_AT 0
#endif

struct sample {
    uint16_t k;
    uint16_t value;
    uint16_t avg;
};

/* Sends a copy of s on output port 0: a heap payload, given away by the send. */
static cairn_ret_t send_sample(const struct sample *s)
{
    struct sample *p = cairn_malloc(sizeof *p);
    if (!p)
        return CAIRN_ENOMEM;
    *p = *s;
    return cairn_send(0, p, sizeof *p);
}

/* ---- sensor ------------------------------------------------------------------------- */

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
        if (st->k >= PIPELINE_SAMPLES)
            cairn_timer_stop(0);
        return send_sample(&s);
    }
    }
    return CAIRN_OK;
}

/* ---- filter ------------------------------------------------------------------------- */

struct filter_state {
    uint16_t last[4];
    uint16_t n;
};

static cairn_ret_t filter_task(void *state, cairn_msg_t *msg)
{
    struct filter_state *st = state;
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

/* ---- logger ------------------------------------------------------------------------- */

static cairn_ret_t logger_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0) || msg->len != sizeof(struct sample))
        return CAIRN_OK;
    const struct sample *s = msg->payload;
    uart_puts("sample ");
    uart_put_udec(s->k);
    uart_puts(" value ");
    uart_put_udec(s->value);
    uart_puts(" avg ");
    uart_put_udec(s->avg);
    uart_putc('\n');
    if (s->k >= PIPELINE_SAMPLES) {
        uart_puts("pipeline done\n");
        sh_exit(0);
    }
    return CAIRN_OK;
}

/* ---- the application description ----------------------------------------------------- */

enum { SENSOR, FILTER, LOGGER };

static const cairn_program_t programs[] = {
    [SENSOR] = CAIRN_PROGRAM(sensor_task, struct sensor_state),
    [FILTER] = CAIRN_PROGRAM(filter_task, struct filter_state),
    [LOGGER] = CAIRN_PROGRAM_STATELESS(logger_task),
};
#if !PIPELINE_UART /* there the description comes from the link (python/cairn/serial_load.py) */
static const cairn_app_route_t sensor_out[] = {CAIRN_TO(FILTER, CAIRN_PORT(0))};
static const cairn_app_route_t filter_out[] = {CAIRN_TO(LOGGER, CAIRN_PORT(0))};
static const cairn_task_desc_t tasks[] = {
    [SENSOR] = {.prog = SENSOR, .prio = 1, .module = SENSOR_AT, CAIRN_OUT(sensor_out)},
    [FILTER] = {.prog = FILTER, .prio = 2, .module = FILTER_AT, CAIRN_OUT(filter_out)},
    [LOGGER] = {.prog = LOGGER, .prio = 3, .module = LOGGER_AT},
};
static const cairn_app_desc_t pipeline_app = {CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks)};
#endif

static uint64_t heap[1024]; /* 8 KiB, 8-byte aligned */

#if PIPELINE_LOAD || PIPELINE_UART
/* ---- loading at run time -------------------------------------------------------------- */

/* Below the application manager's ID, above the IDs the pipeline gets (the lowest free). */
#define LOADER_ID ((cairn_task_id_t)(CAIRN_TASK_APPMGR - 1))
#define LOAD_AFTER_TICKS (CAIRN_TICKS_PER_SECOND / 1000u)
/* The managers send a step again every millisecond (a round trip takes about a fifth of
 * one here), four times in all. */
#define RETRY_TICKS (CAIRN_TICKS_PER_SECOND / 1000u)
#define TRIES 4u
#define LOAD_MAX 128u

static void put_modules(uint32_t mask)
{
    for (unsigned m = 0; m < 32u; m++)
        if ((mask >> m) & 1u) {
            uart_putc(' ');
            uart_put_udec(m);
        }
}

static cairn_ret_t report(const cairn_appmgr_report_t *rep)
{
    if (rep->status == CAIRN_OK) {
        uart_puts("loader: started on modules");
        put_modules(rep->acked);
        uart_puts(" as tasks");
        for (unsigned i = 0; i < rep->num_tasks; i++) {
            uart_putc(' ');
            uart_put_udec(rep->ids[i]);
        }
        uart_putc('\n');
        return CAIRN_OK;
    }
    uart_puts("loader: failed at step ");
    uart_put_udec(rep->step);
    uart_puts(", error -");
    uart_put_udec((unsigned)-rep->status);
    uart_puts(", modules");
    put_modules(rep->failed);
    uart_putc('\n');
    sh_exit(3);
    return CAIRN_OK;
}

#if PIPELINE_UART
/* The description arrives on UART0 as one serial frame (cairn/serial_frame.h): the receive
 * interrupt feeds the decoder and posts each finished or refused frame to the loader, which
 * hands a CRC-checked description to its manager. A link that brings no good frame within
 * UART_WAIT_TICKS ends the run (status 3) with the decoder's counters, so a corrupt frame
 * shows as refused and no application starts. */
#define UART_WAIT_TICKS (CAIRN_TICKS_PER_SECOND / 20u)
#define PORT_FRAME CAIRN_PORT(1)
#define PORT_REFUSED CAIRN_PORT(2)

static cairn_serial_rx_t rx;
static uint8_t rx_buf[LOAD_MAX];

void irq0_handler(void) /* UART0 RX */
{
    uint8_t byte = (uint8_t)UART0->data;
    UART0->intstatus = UART_INT_RX; /* reading DATA does not clear it */
    int got = cairn_serial_rx_feed(&rx, byte);
    if (got == CAIRN_SERIAL_FRAME)
        (void)cairn_post(LOADER_ID, PORT_FRAME, rx_buf, rx.len);
    else if (got == CAIRN_SERIAL_REFUSED)
        (void)cairn_post(LOADER_ID, PORT_REFUSED, 0, 0);
}

static void put_counters(void)
{
    uart_puts("frames ");
    uart_put_udec(rx.frames);
    uart_puts(", crc errors ");
    uart_put_udec(rx.crc_errors);
    uart_puts(", bad length ");
    uart_put_udec(rx.bad_length);
    uart_puts(", noise ");
    uart_put_udec(rx.noise);
    uart_putc('\n');
}

static void uart_rx_start(void)
{
    cairn_serial_rx_init(&rx, rx_buf, LOAD_MAX);
    nvic_clear_pending(IRQ_UART0_RX);
    nvic_enable(IRQ_UART0_RX);
    UART0->ctrl |= UART_CTRL_RXEN | UART_CTRL_RXINTEN;
}

static cairn_ret_t loader_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        return cairn_timer_start(0, UART_WAIT_TICKS, false);
    case CAIRN_PORT_TIMEOUT0:
        uart_puts("uart: no description, ");
        put_counters();
        sh_exit(3);
        return CAIRN_OK;
    case PORT_REFUSED:
        uart_puts("uart: frame refused, ");
        put_counters();
        return CAIRN_OK;
    case PORT_FRAME: {
        cairn_timer_stop(0);
        uint8_t *load = cairn_malloc(1u + msg->len);
        if (!load)
            return CAIRN_ENOMEM;
        load[0] = CAIRN_PORT(0); /* where the report comes back */
        __builtin_memcpy(load + 1, msg->payload, msg->len);
        uart_puts("loader: ");
        uart_put_udec(msg->len);
        uart_puts(" bytes to the application manager\n");
        return cairn_post(CAIRN_TASK_APPMGR, CAIRN_APPMGR_PORT_LOAD, load, 1u + msg->len);
    }
    case CAIRN_PORT(0):
        if (msg->len == sizeof(cairn_appmgr_report_t))
            return report(msg->payload);
    }
    return CAIRN_OK;
}
#else
static cairn_ret_t loader_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        return cairn_timer_start(0, LOAD_AFTER_TICKS, false);
    case CAIRN_PORT_TIMEOUT0: {
        uint8_t *load = cairn_malloc(1u + LOAD_MAX);
        if (!load)
            return CAIRN_ENOMEM;
        load[0] = CAIRN_PORT(0); /* where the report comes back */
        int n = cairn_app_wire_write(&pipeline_app, load + 1, LOAD_MAX);
        if (n < 0) {
            cairn_free(load);
            return app_fail("cairn_app_wire_write", n);
        }
        uart_puts("loader: ");
        uart_put_udec((unsigned)n);
        uart_puts(" bytes to the application manager\n");
        return cairn_post(CAIRN_TASK_APPMGR, CAIRN_APPMGR_PORT_LOAD, load, 1u + (unsigned)n);
    }
    case CAIRN_PORT(0):
        if (msg->len == sizeof(cairn_appmgr_report_t))
            return report(msg->payload);
    }
    return CAIRN_OK;
}

#endif

int main(void)
{
    cairn_ret_t r = app_boot(heap, sizeof heap);
    if (r != CAIRN_OK)
        return app_fail("cairn_net_init", r);
    r = cairn_appmgr_start(programs, (uint8_t)CAIRN_COUNT(programs), RETRY_TICKS, TRIES);
    if (r != CAIRN_OK)
        return app_fail("cairn_appmgr_start", r);
    if (cairn_net_address() == 0) {
        r = cairn_task_create(LOADER_ID, loader_task, 0, 1, 0, 0, 0);
        if (r == CAIRN_OK)
            r = cairn_task_init(LOADER_ID, 0, 0);
        if (r != CAIRN_OK)
            return app_fail("loader", r);
#if PIPELINE_UART
        uart_rx_start();
#endif
    }
    if ((r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    cairn_run();
}
#else
int main(void)
{
    /* Alone (no bus) every task must be here: the description says so or app_start fails. */
    cairn_ret_t net = app_boot(heap, sizeof heap);
    if (net != CAIRN_OK && net != CAIRN_ENOROUTE)
        return app_fail("cairn_net_init", net);
    cairn_ret_t r = cairn_app_start(&pipeline_app, 0);
    if (r != CAIRN_OK)
        return app_fail("cairn_app_start", r);
    if (net == CAIRN_OK && (r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    cairn_run();
}
#endif
