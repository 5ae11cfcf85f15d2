/*
 * SimBed's set-up on the MANTIS-like model: a thread per task of the set, woken each
 * period by a release thread at the top level that sleeps on the period's grid (one timer
 * for the whole set, as the tasks share the period); the control loop a low-level thread
 * with its own periodic sleep; the AP-IPC interrupt resumes an answering thread a level
 * above the tasks, so it preempts them. A task's thread runs its jobs as separate turns of
 * the round robin.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cairn/arch.h"
#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/sched.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "mantis.h"
#include "nvic.h"
#include "rtos.h"
#include "uart.h"

#define STACK 320u
#define STIMULUS_EXCEPTION (16u + RTOS_IRQ_APIPC) /* for the event log */

enum { FIRST_TASK = 1, RELEASE_ID = 9, CL_ID = 10, APIPC_ID = 11 };

static _Alignas(8) uint8_t heap[8192];
static _Alignas(8) uint8_t stacks[RTOS_MAX_TASKS + 3u][STACK];
static struct mos_period release_period, cl_period;

/* AP-IPC interrupts not answered yet: resumes coalesce, so the thread answers all of them
 * per run. */
static volatile uint32_t apipc_pending;

void irq20_handler(void)
{
    cairn_isr_enter(STIMULUS_EXCEPTION);
    uint32_t n = rtos_apipc_take();
    if (n) {
        apipc_pending += n;
        (void)mos_thread_resume(APIPC_ID);
    }
    cairn_isr_exit();
}

/* A task's thread counts its wake-ups as releases (resumes coalesce: a thread behind
 * misses releases, and its jobs' outputs stay those of the releases it ran) and runs the
 * jobs due at each. Thread IDs run out before a thread per job would fit (8 tasks, 16 jobs),
 * so between the input job and an output job due with it the thread yields: every thread
 * woken with it runs its input job first (the ready queue is FIFO). */
static uint32_t wakes[RTOS_MAX_TASKS];

static void run_jobs(unsigned k)
{
    uint32_t n = wakes[k]++;
    bool output = rtos_job_due(RTOS_JOB_OUTPUT, n);
    if (rtos_job_due(RTOS_JOB_INPUT, n)) {
        rtos_job(k, RTOS_JOB_INPUT);
        if (output)
            cairn_thread_yield();
    }
    if (output)
        rtos_job(k, RTOS_JOB_OUTPUT);
}

static void task_main(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    while (mos_thread_suspend() == CAIRN_OK)
        run_jobs(k);
}

static void release_main(void *arg)
{
    (void)arg;
    (void)mos_period_init(&release_period, arch_timer_now(),
                          rtos_params.period * rtos_params.tick_cycles);
    for (;;) {
        (void)mos_period_sleep(&release_period);
        for (unsigned k = 0; k < rtos_params.tasks; k++)
            (void)mos_thread_resume((cairn_task_id_t)(FIRST_TASK + k));
    }
}

static void cl_main(void *arg)
{
    (void)arg;
    (void)mos_period_init(&cl_period, arch_timer_now(),
                          rtos_params.cl_period * rtos_params.tick_cycles);
    for (;;) {
        (void)mos_period_sleep(&cl_period);
        rtos_control_loop();
    }
}

static void apipc_main(void *arg)
{
    (void)arg;
    while (mos_thread_suspend() == CAIRN_OK) {
        uint32_t s = arch_irq_save();
        uint32_t n = apipc_pending;
        apipc_pending = 0;
        arch_irq_restore(s);
        for (; n > 0; n--)
            rtos_apipc_respond();
    }
}

void rtos_model_report(void)
{
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    uart_puts("mantis switches=");
    uart_put_udec(st.switches);
    uart_puts(" resume_lost=");
    uart_put_udec(mos_stats.resume_lost);
    uart_puts(" coalesced=");
    uart_put_udec(mos_stats.resume_coalesced);
    uart_puts(" overruns=");
    uart_put_udec(release_period.overruns);
    uart_puts(" errors=");
    uart_put_udec(mos_stats.errors);
    uart_puts("\n");
}

int main(void)
{
    rtos_boot("mantis");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    /* Round robin among the task threads on a slice of one tick: Cairn's default (1000
     * cycles) would interleave every FIR job; the paper gives no length. */
    cairn_thread_set_slice(rtos_params.tick_cycles);
    unsigned s = 0;
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        (void)mos_thread_new((cairn_task_id_t)(FIRST_TASK + k), "task", task_main,
                             (void *)(uintptr_t)k, stacks[s++], STACK, MOS_PRIO_NORMAL);
    (void)mos_thread_new(APIPC_ID, "apipc", apipc_main, 0, stacks[s++], STACK, MOS_PRIO_HIGH);
    if (rtos_params.cl_period > 0u)
        (void)mos_thread_new(CL_ID, "cl", cl_main, 0, stacks[s++], STACK, MOS_PRIO_LOW);
    (void)mos_thread_new(RELEASE_ID, "release", release_main, 0, stacks[s++], STACK,
                         MOS_PRIO_KERNEL);
    rtos_apipc_enable(NVIC_PRIO_LOW);
    for (;;)
        cairn_idle();
}
