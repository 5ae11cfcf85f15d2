/*
 * The shared workload with no OS (SimBed's LIMIT): timer0 interrupts every SENSE_MS and
 * its handler senses; the stimulus handler forwards; main() only sleeps. Each source
 * stops itself after its last event of the run.
 */
#include <stddef.h>
#include <stdbool.h>

#include "check.h"
#include "cmsdk_timer.h"
#include "limit.h"
#include "startup.h"
#include "uart.h"
#include "workload.h"

static void sense(void *arg) { (void)arg; ex_sense(); }
static void forward(void *arg) { (void)arg; ex_forward(); }

static struct limit_work sense_work = {.fn = sense};
static struct limit_work forward_work = {.fn = forward};
static volatile bool sense_done, stim_done, done;

void irq8_handler(void) /* timer0, every SENSE_MS */
{
    limit_call(&sense_work);
    if (ex_sensing_done()) {
        ex_alarm_stop();
        sense_done = true;
    } else {
        CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    }
    done = sense_done && stim_done;
}

void systick_handler(void)
{
    ex_stimulus_arrived();
    limit_call(&forward_work);
    stim_done = ex_stats.stimuli == STIMULI;
    done = sense_done && stim_done;
}

int main(void)
{
    test_begin("model-limit");
    ex_clock_start();
    ex_alarm_every_us(SENSE_MS * 1000u);
    ex_stimulus_start();
    limit_idle(&done);
    check_eq("nested calls", sense_work.nested + forward_work.nested, 0);
    check_eq("forwarding calls", forward_work.runs, ex_stats.stimuli);
    return ex_report("limit", 0);
}
