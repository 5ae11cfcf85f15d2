/*
 * SimBed's set-up with no OS (LIMIT, section 2.2): timer0 interrupts every tick and its
 * handler runs the tasks and the control loop that are due; the AP-IPC interrupt, at a
 * higher NVIC priority, answers at once; main() only sleeps. A task's input and output jobs
 * are two calls, each at its own rate.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmsdk_timer.h"
#include "limit.h"
#include "nvic.h"
#include "rtos.h"
#include "uart.h"

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

static void respond(void *arg)
{
    (void)arg;
    rtos_apipc_respond();
}

static struct limit_work input_work[RTOS_MAX_TASKS], output_work[RTOS_MAX_TASKS];
static struct limit_work cl_work = {.fn = control_loop};
static struct limit_work apipc_work = {.fn = respond};
static uint32_t ticks, releases;
static const bool never = false;

/* The same work as the models' separate jobs, in their order: the due input jobs, then the
 * due output jobs. */
static void run_jobs(uint32_t n)
{
    if (rtos_job_due(RTOS_JOB_INPUT, n))
        for (unsigned k = 0; k < rtos_params.tasks; k++)
            limit_call(&input_work[k]);
    if (rtos_job_due(RTOS_JOB_OUTPUT, n))
        for (unsigned k = 0; k < rtos_params.tasks; k++)
            limit_call(&output_work[k]);
}

void irq8_handler(void) /* timer0, every tick */
{
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    ticks++;
    if (ticks % rtos_params.period == 0u)
        run_jobs(releases++);
    if (rtos_params.cl_period > 0u && ticks % rtos_params.cl_period == 0u)
        limit_call(&cl_work);
}

void irq20_handler(void)
{
    for (uint32_t n = rtos_apipc_take(); n > 0; n--)
        limit_call(&apipc_work);
}

void rtos_model_report(void)
{
    uart_puts("limit nested=");
    uart_put_udec(cl_work.nested + apipc_work.nested);
    uart_puts("\n");
}

int main(void)
{
    rtos_boot("limit");
    for (unsigned k = 0; k < rtos_params.tasks; k++) {
        input_work[k] = (struct limit_work){.fn = input_job, .arg = (void *)(uintptr_t)k};
        output_work[k] = (struct limit_work){.fn = output_job, .arg = (void *)(uintptr_t)k};
    }
    nvic_set_priority(RTOS_IRQ_ALARM, NVIC_PRIO_LOW);
    rtos_apipc_enable(NVIC_PRIO_HIGH);
    rtos_alarm_every(1);
    limit_idle(&never);
    return 1;
}
