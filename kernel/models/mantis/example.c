/*
 * The shared workload (kernel/models/example/workload.h) on the MANTIS-like model, as
 * "A performance analysis of MANTIS and TinyOS", section IV.C, sets it up for MANTIS:
 * the sensing job and the forwarding work
 * are threads, the forwarding thread a level above the sensing one; the stimulus
 * interrupt resumes the forwarding thread, which suspends again when the packet is
 * forwarded; the sensing thread sleeps until its next release. Each thread ends after
 * its last job of the workload (ex_done: the run ends on counts). With both blocked, main
 * (Cairn's message level, idle) is MANTIS's idle thread: cairn_idle sleeps until an
 * interrupt. Cairn's kernel owns timer0 (its virtual timers) and starts timer1 as
 * workload.h's clock; SysTick is the stimulus.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/sched.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "board.h"
#include "cairn_armv6m.h"
#include "check.h"
#include "mantis.h"
#include "nvic.h"
#include "scb.h"
#include "uart.h"
#include "workload.h"

#define TICKS_PER_MS (BOARD_CORE_CLOCK_HZ / 1000u)
#define SYSTICK_EXCEPTION 15u /* for the event log */

enum { FORWARD_ID = 3, SENSE_ID = 4 };

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t forward_stack[512], sense_stack[512];
static struct mos_period sense_period;

void systick_handler(void) /* the stimulus ("a packet arrives") */
{
    cairn_isr_enter(SYSTICK_EXCEPTION);
    ex_stimulus_arrived();
    (void)mos_thread_resume(FORWARD_ID); /* one pending already: they coalesce */
    cairn_isr_exit();
}

static void forward_main(void *arg)
{
    (void)arg;
    /* Forwards every stimulus that arrived, so one run serves resumes that coalesced. */
    while (ex_stats.forwarded < STIMULI && mos_thread_suspend() == CAIRN_OK)
        while (ex_stats.forwarded < ex_stats.stimuli)
            ex_forward();
}

static void sense_main(void *arg)
{
    (void)arg;
    (void)mos_period_init(&sense_period, 0, SENSE_MS * TICKS_PER_MS); /* releases at 10, 20, .. ms */
    while (!ex_sensing_done()) {
        (void)mos_period_sleep(&sense_period);
        ex_sense();
    }
}

int main(void)
{
    test_begin("model-mantis");
    cairn_port_init(); /* timer1 from 0: workload.h's clock */
    ex_mark_clock_start();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    scb_set_systick_priority(NVIC_PRIO_LOW);
    check_eq("forwarding thread", (uint32_t)mos_thread_new(FORWARD_ID, "forward", forward_main, 0,
                                                           forward_stack, sizeof forward_stack,
                                                           MOS_PRIO_HIGH), 0);
    check_eq("sensing thread", (uint32_t)mos_thread_new(SENSE_ID, "sense", sense_main, 0,
                                                        sense_stack, sizeof sense_stack,
                                                        MOS_PRIO_NORMAL), 0);
    ex_stimulus_start();
    uint32_t idle_passes = 0;
    int code = -1;
    while (cairn_thread_join(SENSE_ID, &code) == CAIRN_EAGAIN) {
        cairn_idle();
        idle_passes++;
    }
    while (cairn_thread_join(FORWARD_ID, &code) == CAIRN_EAGAIN) {
        cairn_idle();
        idle_passes++;
    }
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    ex_publish(0, st.switches);
    ex_publish(1, idle_passes);
    ex_publish(2, sense_period.overruns);
    ex_publish(3, mos_stats.resumed);
    ex_publish(4, mos_stats.resume_coalesced);
    check_eq("layer errors", mos_stats.errors, 0);
    check_eq("mailbox full", st.mailbox_full, 0);
    check_eq("stack overflows", st.overflows, 0);
    check_eq("every stimulus resumed the forwarding thread", mos_stats.resumed, ex_stats.stimuli);
    return ex_report("mantis", mos_stats.resume_lost + st.mailbox_full);
}
