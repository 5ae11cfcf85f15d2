/*
 * SimBed's set-up on the TinyOS-like model: a periodic virtual timer per task and for the
 * control loop posts its task; the AP-IPC interrupt posts one answering task per
 * interrupt; the FIFO scheduler runs them to completion and sleeps when the queue is
 * empty. The timer service runs on timer0. A task's output job is a post of its own where
 * it follows the input job.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvic.h"
#include "rtos.h"
#include "tinyos.h"
#include "uart.h"

static struct tos_sched sched;
static struct tos_timers timers;
static struct tos_timer task_timer[RTOS_MAX_TASKS], cl_timer;
static uint32_t apipc_lost;
static const bool never = false;

static void arm(void *ctx, bool armed, uint32_t at)
{
    (void)ctx;
    if (armed)
        rtos_alarm_at(at);
    else
        rtos_alarm_stop();
}

void irq8_handler(void) /* timer0: the timer service's hardware timer */
{
    rtos_alarm_stop();
    tos_timers_fired(&timers, rtos_now_ticks());
}

/* A task's timer fires every period (each expiry a post); the input job posts the
 * output job where both are due. So at most one post per task waits for the queue, whose 8
 * entries (TinyOS 1.x's) a post per job of 8 tasks would overflow. */
static uint32_t releases[RTOS_MAX_TASKS], output_lost;

static void output_job(void *arg)
{
    rtos_job((unsigned)(uintptr_t)arg, RTOS_JOB_OUTPUT);
}

static void release_job(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    uint32_t n = releases[k]++;
    bool output = rtos_job_due(RTOS_JOB_OUTPUT, n);
    if (!rtos_job_due(RTOS_JOB_INPUT, n)) {
        if (output)
            output_job(arg);
        return;
    }
    rtos_job(k, RTOS_JOB_INPUT);
    if (output && !tos_post(&sched, output_job, arg))
        output_lost++;
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

void irq20_handler(void)
{
    for (uint32_t n = rtos_apipc_take(); n > 0; n--)
        if (!tos_post(&sched, respond, NULL))
            apipc_lost++;
}

void rtos_model_report(void)
{
    uint32_t lost = 0;
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        lost += task_timer[k].lost;
    uart_puts("tinyos posted=");
    uart_put_udec(sched.posted);
    uart_puts(" rejected=");
    uart_put_udec(sched.rejected);
    uart_puts(" timer_lost=");
    uart_put_udec(lost + cl_timer.lost);
    uart_puts(" apipc_lost=");
    uart_put_udec(apipc_lost);
    uart_puts(" output_lost=");
    uart_put_udec(output_lost);
    uart_puts("\n");
}

int main(void)
{
    rtos_boot("tinyos");
    tos_init(&sched);
    tos_timers_init(&timers, &sched, arm, NULL);
    uint32_t now = rtos_now_ticks();
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        tos_timer_start(&timers, &task_timer[k], now, rtos_params.period, rtos_params.period,
                        release_job, (void *)(uintptr_t)k);
    if (rtos_params.cl_period > 0u)
        tos_timer_start(&timers, &cl_timer, now, rtos_params.cl_period, rtos_params.cl_period,
                        control_loop, NULL);
    nvic_set_priority(RTOS_IRQ_ALARM, NVIC_PRIO_LOW);
    rtos_apipc_enable(NVIC_PRIO_LOW);
    tos_run(&sched, &never);
    return 1;
}
