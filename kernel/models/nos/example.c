/*
 * The shared workload on NOS: interrupts stay masked (PRIMASK) for the whole run and the
 * stimulus is polled from SysTick's pending bit, a LOW interrupt as in SimBed's set-up;
 * sensing is a periodic HARD job that stops re-inserting itself after the last one; the
 * run ends when the workload is done (ex_done). sleep() is WFI with
 * PRIMASK set until timer0's alarm or the stimulus is pending. Ticks are milliseconds.
 */
#include <stddef.h>
#include <stdbool.h>

#include "check.h"
#include "cpu.h"
#include "nos.h"
#include "startup.h"
#include "uart.h"
#include "workload.h"

#define LINE_STIMULUS 1u

static struct nos_exec x;
static struct nos_event sense_ev;

static uint32_t now_ms(void *ctx)
{
    (void)ctx;
    return ex_now_ms();
}

static uint32_t status(void *ctx)
{
    (void)ctx;
    return ex_stimulus_pending() ? 1u << LINE_STIMULUS : 0u;
}

static void handle(void *ctx, unsigned line)
{
    (void)ctx;
    if (line == LINE_STIMULUS) {
        ex_stimulus_clear();
        ex_stimulus_arrived();
        ex_forward();
    }
}

static void nap(void *ctx, int32_t delta)
{
    (void)ctx;
    if (delta != NOS_INDEFINITE)
        ex_alarm_at_us((x.time + (uint32_t)delta) * 1000u);
    if (!ex_stimulus_pending())
        cpu_wfi(); /* PRIMASK is set: wakes on the pending line, takes nothing */
    ex_alarm_stop();
}

static const struct nos_ops ops = {now_ms, status, handle, nap};

static void sense(struct nos_exec *q, struct nos_event *ev)
{
    ex_sense();
    if (!ex_sensing_done())
        nos_insert(q, ev, SENSE_MS, sense, NULL, NOS_HARD);
}

int main(void)
{
    test_begin("model-nos");
    ex_clock_start();
    cpu_irq_disable();
    nos_init(&x, &ops, NULL, 0u, 1u << LINE_STIMULUS);
    nos_insert(&x, &sense_ev, SENSE_MS, sense, NULL, NOS_HARD);
    ex_stimulus_start();
    while (!ex_done())
        nos_pass(&x);
    cpu_irq_enable();
    ex_publish(0, x.passes);
    ex_publish(1, x.sleeps);
    ex_publish(2, x.missed);
    uart_puts("hard=");
    uart_put_udec(x.hard_runs);
    uart_puts(" low_irqs=");
    uart_put_udec(x.low_irqs);
    uart_puts("\n");
    check_eq("queue errors", x.errors, 0);
    return ex_report("nos", 0);
}
