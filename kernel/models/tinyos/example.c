/*
 * The shared workload (kernel/models/example/workload.h) on the TinyOS-like model:
 * the stimulus interrupt posts a forwarding task; a periodic virtual timer posts the
 * sensing task, which stops it after the last job; the run ends when the workload is
 * done (ex_done). Timer service on timer0.
 */
#include <stddef.h>
#include <stdbool.h>

#include "check.h"
#include "startup.h"
#include "tinyos.h"
#include "uart.h"
#include "workload.h"

static struct tos_sched sched;
static struct tos_timers timers;
static struct tos_timer sense_timer;
static uint32_t lost;
static volatile bool done;

static void arm(void *ctx, bool armed, uint32_t at_ms)
{
    (void)ctx;
    if (armed)
        ex_alarm_at_us(at_ms * 1000u);
    else
        ex_alarm_stop();
}

void irq8_handler(void) /* timer0: the timer service's hardware timer */
{
    ex_alarm_stop();
    tos_timers_fired(&timers, ex_now_ms());
}

static void forward_task(void *arg)
{
    (void)arg;
    ex_forward();
    done = ex_done();
}

void systick_handler(void) /* the stimulus ("a packet arrives") */
{
    ex_stimulus_arrived();
    if (!tos_post(&sched, forward_task, NULL))
        lost++;
}

static void sense_task(void *arg)
{
    (void)arg;
    ex_sense();
    if (ex_sensing_done())
        tos_timer_stop(&timers, &sense_timer);
    done = ex_done();
}

int main(void)
{
    test_begin("model-tinyos");
    ex_clock_start();
    tos_init(&sched);
    tos_timers_init(&timers, &sched, arm, NULL);
    uint32_t now = ex_now_ms();
    tos_timer_start(&timers, &sense_timer, now, SENSE_MS, SENSE_MS, sense_task, NULL);
    ex_stimulus_start();
    tos_run(&sched, &done);
    ex_publish(0, sched.sleeps);
    ex_publish(1, sched.posted); /* a late timer may post one more sensing task */
    check_eq("posts refused", sched.rejected, 0);
    check_yes("every posted task ran", sched.ran == sched.posted);
    return ex_report("tinyos", lost + sense_timer.lost);
}
