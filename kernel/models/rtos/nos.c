/*
 * SimBed's set-up on NOS (section 2.4.3): the tasks are HARD jobs and the control loop a
 * SOFT job, each putting its own event back with its period counted from the pass that
 * ran it (an event per job of a task, each with the job's own period); AP-IPC is a
 * LOW interrupt line, polled with interrupts masked. The loop sleeps
 * (WFI with PRIMASK set) until timer0's alarm at the first job or a pending AP-IPC line,
 * or, without doze (IN[6] = 0), polls the clock and the line until then.
 */
#include <stddef.h>
#include <stdint.h>

#include "cairn_io.h"
#include "cpu.h"
#include "nos.h"
#include "nvic.h"
#include "rtos.h"
#include "uart.h"

static struct nos_exec x;
static struct nos_event input_ev[RTOS_MAX_TASKS], output_ev[RTOS_MAX_TASKS], cl_ev;

static uint32_t now(void *ctx)
{
    (void)ctx;
    return rtos_now_ticks();
}

static uint32_t status(void *ctx)
{
    (void)ctx;
    return CAIRN_STIM_STATUS & (1u << RTOS_LINE_APIPC);
}

static void handle(void *ctx, unsigned line)
{
    (void)ctx;
    (void)line;
    uint32_t n = rtos_apipc_take();
    nvic_clear_pending(RTOS_IRQ_APIPC);
    for (; n > 0; n--)
        rtos_apipc_respond();
}

static void nap(void *ctx, int32_t delta)
{
    (void)ctx;
    if (!rtos_params.doze) { /* SimBed's NOS without the doze instruction: poll */
        while (status(NULL) == 0u &&
               (delta == NOS_INDEFINITE || (int32_t)(rtos_now_ticks() - x.time) < delta))
            ;
        return;
    }
    if (delta != NOS_INDEFINITE)
        rtos_alarm_at(x.time + (uint32_t)delta);
    if (status(NULL) == 0u)
        cpu_wfi(); /* PRIMASK is set: wakes on the pending line, takes nothing */
    rtos_alarm_stop();
}

static const struct nos_ops ops = {now, status, handle, nap};

static void input_job(struct nos_exec *q, struct nos_event *ev)
{
    rtos_job((unsigned)(uintptr_t)ev->data, RTOS_JOB_INPUT);
    nos_insert(q, ev, (int32_t)rtos_job_period_ticks(RTOS_JOB_INPUT), input_job, ev->data,
               NOS_HARD);
}

static void output_job(struct nos_exec *q, struct nos_event *ev)
{
    rtos_job((unsigned)(uintptr_t)ev->data, RTOS_JOB_OUTPUT);
    nos_insert(q, ev, (int32_t)rtos_job_period_ticks(RTOS_JOB_OUTPUT), output_job, ev->data,
               NOS_HARD);
}

static void control_loop(struct nos_exec *q, struct nos_event *ev)
{
    rtos_control_loop();
    nos_insert(q, ev, (int32_t)rtos_params.cl_period, control_loop, NULL, NOS_SOFT);
}

void rtos_model_report(void)
{
    uart_puts("nos passes=");
    uart_put_udec(x.passes);
    uart_puts(" missed=");
    uart_put_udec(x.missed);
    uart_puts(" low_irqs=");
    uart_put_udec(x.low_irqs);
    uart_puts(" sleeps=");
    uart_put_udec(x.sleeps);
    uart_puts("\n");
}

int main(void)
{
    rtos_boot("nos");
    cpu_irq_disable();
    nos_init(&x, &ops, NULL, 0u, 1u << RTOS_LINE_APIPC);
    /* The callout queue keeps events due together in the order they went in, and an input
     * job puts itself back before its release's output job does: an input job keeps
     * preceding its release's output job. */
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        nos_insert(&x, &input_ev[k], (int32_t)rtos_job_first_ticks(RTOS_JOB_INPUT), input_job,
                   (void *)(uintptr_t)k, NOS_HARD);
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        nos_insert(&x, &output_ev[k], (int32_t)rtos_job_first_ticks(RTOS_JOB_OUTPUT), output_job,
                   (void *)(uintptr_t)k, NOS_HARD);
    if (rtos_params.cl_period > 0u)
        nos_insert(&x, &cl_ev, (int32_t)rtos_params.cl_period, control_loop, NULL, NOS_SOFT);
    rtos_apipc_enable(NVIC_PRIO_LOW); /* pends (and wakes WFI), never taken */
    for (;;)
        (void)nos_pass(&x);
}
