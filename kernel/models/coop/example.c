/*
 * The shared workload on the Echidna-style executive: a sensing object every SENSE_MS
 * and, as in SimBed's Echidna set-up, a 1 ms object that polls the stimulus port and
 * forwards what arrived, until the workload is done (ex_done). The idle loop polls the
 * clock, as Echidna's does (section 4 of the paper explains why it cannot doze). Ticks
 * are milliseconds.
 */
#include <stddef.h>
#include "check.h"
#include "coop.h"
#include "startup.h"
#include "uart.h"
#include "workload.h"

static struct coop_exec exec;
static struct coop_object sense_obj, poll_obj;
static struct coop_port radio;

static uint32_t now_ms(void *ctx)
{
    (void)ctx;
    return ex_now_ms();
}

void systick_handler(void)
{
    ex_stimulus_arrived();
    coop_port_signal(&radio);
}

static void sense(void *arg)
{
    (void)arg;
    ex_sense();
}

static void poll_radio(void *arg)
{
    (void)arg;
    for (uint32_t n = coop_port_take(&radio); n > 0; n--)
        ex_forward();
}

int main(void)
{
    test_begin("model-coop");
    ex_clock_start();
    coop_init(&exec, now_ms, NULL);
    coop_add(&exec, &sense_obj, SENSE_MS, SENSE_MS, sense, NULL);
    coop_add(&exec, &poll_obj, 1, 1, poll_radio, NULL);
    ex_stimulus_start();
    while (!ex_done())
        coop_dispatch(&exec);
    ex_publish(0, exec.dispatched);
    ex_publish(1, sense_obj.late + poll_obj.late);
    ex_publish(2, radio.max_batch);
    check_eq("port signalled per stimulus", radio.signalled, ex_stats.stimuli);
    return ex_report("coop", 0);
}
