/*
 * SimBed's set-up on the Echidna-style executive, as section 2.4.2 describes it: every
 * task and the control loop are periodic objects; the AP-IPC interrupt only signals a
 * port that a 1 ms object polls (so several interrupts can pile up before one is
 * answered). The idle loop polls the clock: Echidna cannot doze (section 4). A task is two
 * objects, one per job, each at the job's own period.
 */
#include <stddef.h>
#include <stdint.h>

#include "coop.h"
#include "nvic.h"
#include "rtos.h"
#include "uart.h"

static struct coop_exec exec;
static struct coop_object input_obj[RTOS_MAX_TASKS], output_obj[RTOS_MAX_TASKS], cl_obj, apipc_obj;
static struct coop_port apipc;

static uint32_t now_ticks(void *ctx)
{
    (void)ctx;
    return rtos_now_ticks();
}

void irq20_handler(void)
{
    for (uint32_t n = rtos_apipc_take(); n > 0; n--)
        coop_port_signal(&apipc);
}

static void input_job(void *arg)
{
    rtos_job((unsigned)(uintptr_t)arg, RTOS_JOB_INPUT);
}

static void output_job(void *arg)
{
    rtos_job((unsigned)(uintptr_t)arg, RTOS_JOB_OUTPUT);
}

static void control_loop(void *arg)
{
    (void)arg;
    rtos_control_loop();
}

static void poll_apipc(void *arg)
{
    (void)arg;
    for (uint32_t n = coop_port_take(&apipc); n > 0; n--)
        rtos_apipc_respond();
}

void rtos_model_report(void)
{
    uint32_t late = 0;
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        late += input_obj[k].late + output_obj[k].late;
    uart_puts("coop dispatched=");
    uart_put_udec(exec.dispatched);
    uart_puts(" late=");
    uart_put_udec(late);
    uart_puts(" most apipc per poll=");
    uart_put_udec(apipc.max_batch);
    uart_puts("\n");
}

int main(void)
{
    rtos_boot("coop");
    coop_init(&exec, now_ticks, NULL);
    coop_add(&exec, &apipc_obj, 1, 1, poll_apipc, NULL);
    /* Added before the output objects: of two due with the same deadline the executive runs
     * the first added, so an input job precedes its release's output job. */
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        coop_add(&exec, &input_obj[k], rtos_job_period_ticks(RTOS_JOB_INPUT),
                 rtos_job_first_ticks(RTOS_JOB_INPUT), input_job, (void *)(uintptr_t)k);
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        coop_add(&exec, &output_obj[k], rtos_job_period_ticks(RTOS_JOB_OUTPUT),
                 rtos_job_first_ticks(RTOS_JOB_OUTPUT), output_job, (void *)(uintptr_t)k);
    if (rtos_params.cl_period > 0u)
        coop_add(&exec, &cl_obj, rtos_params.cl_period, rtos_params.cl_period, control_loop, NULL);
    rtos_apipc_enable(NVIC_PRIO_LOW);
    for (;;)
        (void)coop_dispatch(&exec);
}
