/*
 * The shared workload on NOS: interrupts stay masked (PRIMASK) for the whole run and the
 * stimulus is polled from SysTick's pending bit, a LOW interrupt as in SimBed's set-up;
 * sensing is a periodic HARD job; a HARD job at RUN_MS ends the run. sleep() is WFI with
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
static struct nos_event sense_ev, stop_ev;
static uint32_t stimuli;
static bool done;

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
        stimuli++;
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
    if (!done)
        nos_insert(q, ev, SENSE_MS, sense, NULL, NOS_HARD);
}

static void stop(struct nos_exec *q, struct nos_event *ev)
{
    (void)q;
    (void)ev;
    ex_stimulus_stop();
    done = true;
}

int main(void)
{
    test_begin("model-nos");
    ex_clock_start();
    cpu_irq_disable();
    nos_init(&x, &ops, NULL, 0u, 1u << LINE_STIMULUS);
    nos_insert(&x, &sense_ev, SENSE_MS, sense, NULL, NOS_HARD);
    nos_insert(&x, &stop_ev, RUN_MS, stop, NULL, NOS_HARD);
    ex_stimulus_start();
    while (!done)
        nos_pass(&x);
    nos_remove(&x, &sense_ev);
    cpu_irq_enable();
    uart_puts("passes=");
    uart_put_udec(x.passes);
    uart_puts(" hard=");
    uart_put_udec(x.hard_runs);
    uart_puts(" low_irqs=");
    uart_put_udec(x.low_irqs);
    uart_puts(" sleeps=");
    uart_put_udec(x.sleeps);
    uart_puts(" missed=");
    uart_put_udec(x.missed);
    uart_puts("\n");
    check_eq("missed deadlines", x.missed, 0);
    check_eq("queue errors", x.errors, 0);
    return ex_report("nos", stimuli, 0);
}
