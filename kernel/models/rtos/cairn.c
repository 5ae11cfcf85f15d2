/*
 * SimBed's set-up on Cairn OS's message kernel, in CoMOS's style: a release task with
 * one periodic virtual timer posts to every task of the set (all share the period), the
 * control loop is a task with its own timer, and the AP-IPC interrupt is bound to a
 * message to the answering task one priority above the others, so it preempts them on
 * the same stack. A task gets a message per job (port 0 input, port 1 output). The idle
 * loop sleeps until the next timer or interrupt.
 */
#include <stdint.h>

#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "nvic.h"
#include "rtos.h"
#include "uart.h"

enum { FIRST_TASK = 1, RELEASE_TASK = 9, CL_TASK = 10, APIPC_TASK = 11 };
enum { WORK_PRIO = 1, APIPC_PRIO = 2 };

CAIRN_IRQ_MESSAGE(irq20_handler, RTOS_IRQ_APIPC, APIPC_TASK, CAIRN_PORT(0))

static uint64_t heap[384];
static uint32_t releases;

static cairn_ret_t task(void *state, cairn_msg_t *msg)
{
    (void)state;
    unsigned k = (unsigned)(msg->dst - FIRST_TASK);
    if (msg->port == CAIRN_PORT(0))
        rtos_job(k, RTOS_JOB_INPUT);
    else if (msg->port == CAIRN_PORT(1))
        rtos_job(k, RTOS_JOB_OUTPUT);
    return CAIRN_OK;
}

/* A message per due job: every task's input job, then the output jobs (the queue is FIFO
 * within a priority, so an output job runs after the input job of its release). */
static void post_jobs(uint32_t n)
{
    for (unsigned j = RTOS_JOB_INPUT; j <= RTOS_JOB_OUTPUT; j++)
        if (rtos_job_due((enum rtos_job)j, n))
            for (unsigned k = 0; k < rtos_params.tasks; k++)
                (void)cairn_post((cairn_task_id_t)(FIRST_TASK + k), CAIRN_PORT(j), 0, 0);
}

static cairn_ret_t release(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT_INIT)
        return cairn_timer_start(0, rtos_params.period * rtos_params.tick_cycles, true);
    if (msg->port == CAIRN_PORT_TIMEOUT0)
        post_jobs(releases++);
    return CAIRN_OK;
}

static cairn_ret_t control_loop(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT_INIT)
        return cairn_timer_start(0, rtos_params.cl_period * rtos_params.tick_cycles, true);
    if (msg->port == CAIRN_PORT_TIMEOUT0)
        rtos_control_loop();
    return CAIRN_OK;
}

static cairn_ret_t apipc(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0)) {
        for (uint32_t n = rtos_apipc_take(); n > 0; n--)
            rtos_apipc_respond();
        cairn_irq_unmask(RTOS_IRQ_APIPC); /* served: a stale latch goes too */
    }
    return CAIRN_OK;
}

void rtos_model_report(void)
{
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    uart_puts("cairn pool_full=");
    uart_put_udec(st.pool_full);
    uart_puts("\n");
}

static void start(cairn_task_id_t id, cairn_handler_t h, cairn_prio_t prio)
{
    (void)cairn_task_create(id, h, 0, prio, 0, 0, 0);
    (void)cairn_task_init(id, 0, 0);
}

int main(void)
{
    rtos_boot("cairn");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    for (unsigned k = 0; k < rtos_params.tasks; k++)
        start((cairn_task_id_t)(FIRST_TASK + k), task, WORK_PRIO);
    start(APIPC_TASK, apipc, APIPC_PRIO);
    if (rtos_params.cl_period > 0u)
        start(CL_TASK, control_loop, WORK_PRIO);
    start(RELEASE_TASK, release, WORK_PRIO);
    rtos_apipc_enable(NVIC_PRIO_LOW);
    for (;;)
        cairn_idle();
}
