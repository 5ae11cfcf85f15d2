/*
 * Checkpoint migration on a device of a slow and a fast module (docs/checkpoint.md,
 * "Firmware"): a long computation (CKPT_ITERATIONS steps over a state block of
 * CKPT_STATE_BYTES, a migration point every CKPT_POINT_EVERY steps) is placed on module
 * 0; the master (also on module 0) applies the break-even policy at each load report and
 * moves it to a faster module when that pays. The module that finishes prints
 *
 *     checksum 0x<acc> at <us> us
 *
 * the destination prints the migration cost it measured when it restarts, and module 0
 * prints the migration table's figures and exits. Alone (no bus) the computation runs
 * where it is: the same checksum. One ELF runs on every module; each learns its clock
 * from the simulator (SYS_TICKFREQ) and the device's time from its cycle counter
 * (SYS_ELAPSED counts from the device's start on every module).
 */
#include <stdint.h>

#include "cairn/bus.h"
#include "cairn/checkpoint.h"
#include "cairn/mem.h"
#include "cairn/net.h"
#include "cairn/sched.h"
#include "cairn/timer.h"
#include "cairn/trace.h"

#include "cairn_armv6m.h"
#include "semihost.h"
#include "uart.h"

#include "../support/app_boot.h"
#include "../support/app_fail.h"

#ifndef CKPT_ITERATIONS
#define CKPT_ITERATIONS 200000u
#endif
#ifndef CKPT_POINT_EVERY
#define CKPT_POINT_EVERY 1000u
#endif
#ifndef CKPT_STATE_BYTES
#define CKPT_STATE_BYTES 1024u
#endif
/* The master's cost model before it has measured a migration (docs/checkpoint.md). */
#ifndef CKPT_COST_BASE_NS
#define CKPT_COST_BASE_NS 5000000u
#endif
#ifndef CKPT_COST_PER_BYTE_PS
#define CKPT_COST_PER_BYTE_PS 1000000u
#endif
/* Migration points per load report to the master. */
#ifndef CKPT_POINTS_PER_REPORT
#define CKPT_POINTS_PER_REPORT 1u
#endif
/*
 * CKPT_TIME_POINTS=1 (build/fw/checkpoint-overhead.elf) brackets each migration point with
 * trace-port words, POINT_IN and POINT_OUT, and first writes one empty pair, CALIBRATE then
 * POINT_OUT, so that the store's own cycles can be taken off: the cost of a point with no
 * request pending, and of one that also sends a load report (docs/checkpoint.md, "Overheads").
 */
#ifndef CKPT_TIME_POINTS
#define CKPT_TIME_POINTS 0
#endif
#if CKPT_TIME_POINTS
#define CKPT_EV_POINT_IN (CAIRN_EV_USER + 0x10u)
#define CKPT_EV_POINT_OUT (CAIRN_EV_USER + 0x11u)
#define CKPT_EV_CALIBRATE (CAIRN_EV_USER + 0x12u)
#endif

struct work {
    uint32_t i, acc;
#if CKPT_STATE_BYTES > 8
    uint8_t buf[CKPT_STATE_BYTES - 8];
#endif
};
_Static_assert(sizeof(struct work) == (CKPT_STATE_BYTES > 8 ? CKPT_STATE_BYTES : 8), "state size");

static struct work work;
static uint32_t clock_hz;

static uint64_t now_ns(void)
{
    uint64_t cycles;
    sh_elapsed(&cycles);
    return cycles * 1000000000ull / clock_hz;
}

static void put_time(const char *what, uint32_t ns)
{
    uart_puts(what);
    uart_putc(' ');
    uart_put_udec((uint32_t)((uint64_t)ns * clock_hz / 1000000000u));
    uart_puts(" cycles ");
    uart_put_udec(ns / 1000u);
    uart_puts(" us\n");
}

static cairn_ret_t compute(cairn_ckpt_ctx_t *ctx, void *state, bool restarted)
{
    struct work *w = state;
    if (!restarted) {
        w->i = 0;
        w->acc = 0x12345678u;
#if CKPT_STATE_BYTES > 8
        for (unsigned k = 0; k < sizeof w->buf; k++)
            w->buf[k] = (uint8_t)(k * 13u + 7u);
#endif
#if CKPT_TIME_POINTS
        CAIRN_TRACE(CKPT_EV_CALIBRATE, 0, 0);
        CAIRN_TRACE(CKPT_EV_POINT_OUT, 0, 0);
#endif
    } else if (ctx->cost_ns) {
        put_time("restarted: migration cost", ctx->cost_ns);
        put_time("restarted: T_reboot", ctx->reboot_ns);
    }
    while (w->i < CKPT_ITERATIONS) {
        uint32_t acc = w->acc * 1664525u + 1013904223u + w->i;
#if CKPT_STATE_BYTES > 8
        unsigned k = w->i % sizeof w->buf;
        acc ^= w->buf[k];
        w->buf[k] = (uint8_t)(acc >> 24);
#endif
        w->acc = acc;
        w->i++;
#if CKPT_TIME_POINTS
        if (w->i % CKPT_POINT_EVERY == 0) {
            CAIRN_TRACE(CKPT_EV_POINT_IN, 0, 0);
            bool stop = cairn_ckpt_point(ctx, w->i);
            CAIRN_TRACE(CKPT_EV_POINT_OUT, 0, 0);
            if (stop)
                return CAIRN_CKPT_STOP;
        }
#else
        if (w->i % CKPT_POINT_EVERY == 0 && cairn_ckpt_point(ctx, w->i))
            return CAIRN_CKPT_STOP;
#endif
    }
    uart_puts("checksum ");
    uart_put_hex(w->acc);
    uart_puts(" at ");
    uart_put_udec((uint32_t)(now_ns() / 1000u));
    uart_puts(" us\n");
    return CAIRN_OK;
}

static cairn_ckpt_ctx_t ctx = {.run = compute, .state = &work, .size = sizeof work,
                               .total = CKPT_ITERATIONS};
static cairn_ckpt_node_t node;

static void done(cairn_ckpt_node_t *n, uint8_t id, uint8_t module)
{
    const cairn_ckpt_entry_t *e = &n->table[id];
    uart_puts("done on module ");
    uart_put_udec(module);
    uart_puts(" migrations ");
    uart_put_udec(e->migrations);
    uart_puts(" stays ");
    uart_put_udec(e->stays);
    uart_puts(" resumes ");
    uart_put_udec(e->resumes);
    uart_putc('\n');
    if (e->migrations) {
        put_time("master: migration cost", e->cost_ns);
        put_time("master: freezing time", (uint32_t)e->freeze_ns);
    } else if (e->stays) {
        uart_puts("master: predicted stay ");
        uart_put_udec((uint32_t)(e->predicted_stay_ns / 1000u));
        uart_puts(" us, go ");
        uart_put_udec((uint32_t)(e->predicted_go_ns / 1000u));
        uart_puts(" us\n");
    }
    sh_exit(0);
}

static uint64_t heap[2048]; /* 16 KiB: the chunks waiting for the bus */

int main(void)
{
    clock_hz = (uint32_t)sh_tickfreq();
    cairn_ret_t net = app_boot(heap, sizeof heap);
    if (net != CAIRN_OK && net != CAIRN_ENOROUTE)
        return app_fail("cairn_net_init", net);
    cairn_ckpt_config_t cfg = {
        .modules = net == CAIRN_OK ? cairn_bus_modules() : 1,
        .master_module = 0, .master_id = 1, .slave_base = 2, .runner_id = 12,
        .daemon_prio = 100, .runner_prio = 1, .clock_hz = clock_hz, .now_ns = now_ns,
        /* Timer ticks are this module's cycles. */
        .resume_ticks = clock_hz / 20u, .retry_ticks = clock_hz / 50000u,
        .report_units = CKPT_POINT_EVERY * CKPT_POINTS_PER_REPORT,
        .cost_base_ns = CKPT_COST_BASE_NS, .cost_per_byte_ps = CKPT_COST_PER_BYTE_PS,
        .on_done = done,
    };
    cairn_ckpt_ctx_t *comps[] = {&ctx};
    cairn_ret_t r = cairn_ckpt_start(&node, &cfg, comps, 1);
    if (r != CAIRN_OK)
        return app_fail("cairn_ckpt_start", r);
    if (net == CAIRN_OK && (r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    if (node.address == cfg.master_module && (r = cairn_ckpt_launch(&node, 0, 0)) != CAIRN_OK)
        return app_fail("cairn_ckpt_launch", r);
    cairn_run();
}
