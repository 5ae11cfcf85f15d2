/*
 * The Thread-Metric-style figures (metric.h) on Cairn's own message kernel: tasks are
 * message handlers on one stack, a send is a preemption point, an interrupt is bound to a
 * message. Cooperative switch: the driver (priority 2) sends to B (priority 1), which is
 * queued, and ends; the dispatch after its end runs B. Preemptive switch: the driver sends
 * to H (priority 3), whose handler runs at once. Interrupt processing: the driver pends IRQ
 * 24, bound to E of its own priority (queued), and ends. Interrupt preemption: IRQ 25 is
 * bound to H: the interrupt returns into H's handler. Message: a 16-byte message to R
 * (priority 3), which reads it, call -> return. Synchronisation: a try-take and a give of a
 * semaphore of one unit (a handler cannot wait). Memory: cairn_malloc(128) and cairn_free.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cairn/cairn.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "metric.h"

enum { ID_DRV = 1, ID_B = 2, ID_H = 3, ID_E = 4, ID_R = 5 };

static _Alignas(8) uint8_t heap[4096];
static uint32_t rep;
static volatile uint32_t h_mark, sum;
static cairn_sem_t sem;
static const uint8_t payload16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, ID_E, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE_EDGE(irq25_handler, IRQ_SOFT1, ID_H, CAIRN_PORT(1))

static cairn_ret_t task_b(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        METRIC_MARK(METRIC_COOP, rep, 1);
    return CAIRN_OK;
}

static cairn_ret_t task_h(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT_INIT)
        METRIC_TRACE = h_mark;
    return CAIRN_OK;
}

static cairn_ret_t task_e(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        METRIC_MARK(METRIC_IRQ, rep, 1);
    return CAIRN_OK;
}

static cairn_ret_t task_r(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0) && msg->len == sizeof payload16)
        sum += ((const uint8_t *)msg->payload)[15];
    return CAIRN_OK;
}

static cairn_ret_t driver(void *state, cairn_msg_t *msg)
{
    (void)state;
    switch (msg->port) {
    case CAIRN_PORT(METRIC_COOP):
        (void)cairn_post(ID_B, CAIRN_PORT(0), 0, 0);
        METRIC_MARK(METRIC_COOP, rep, 0);
        break;
    case CAIRN_PORT(METRIC_PREEMPT):
        h_mark = METRIC_WORD(METRIC_PREEMPT, rep, 1);
        METRIC_MARK(METRIC_PREEMPT, rep, 0);
        (void)cairn_post(ID_H, CAIRN_PORT(0), 0, 0);
        break;
    case CAIRN_PORT(METRIC_IRQ):
        metric_pend(METRIC_IRQ, rep, IRQ_SOFT0);
        break;
    case CAIRN_PORT(METRIC_IRQ_PREEMPT):
        h_mark = METRIC_WORD(METRIC_IRQ_PREEMPT, rep, 1);
        metric_pend(METRIC_IRQ_PREEMPT, rep, IRQ_SOFT1);
        break;
    case CAIRN_PORT(METRIC_MESSAGE):
        METRIC_MARK(METRIC_MESSAGE, rep, 0);
        (void)cairn_post(ID_R, CAIRN_PORT(0), payload16, sizeof payload16);
        METRIC_MARK(METRIC_MESSAGE, rep, 1);
        break;
    case CAIRN_PORT(METRIC_SYNC): {
        METRIC_MARK(METRIC_SYNC, rep, 0);
        cairn_ret_t got = cairn_sem_try_take(&sem);
        (void)cairn_sem_give(&sem);
        METRIC_MARK(METRIC_SYNC, rep, 1);
        check_eq("sync take", (uint32_t)got, 0);
        break;
    }
    case CAIRN_PORT(METRIC_MEMORY): {
        METRIC_MARK(METRIC_MEMORY, rep, 0);
        void *p = cairn_malloc(128);
        cairn_free(p);
        METRIC_MARK(METRIC_MEMORY, rep, 1);
        check_eq("allocated", p != 0, 1);
        break;
    }
    default:
        break;
    }
    return CAIRN_OK;
}

int main(void)
{
    test_begin("metric-cairn");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    check_eq("sem", (uint32_t)cairn_sem_init(&sem, 1, 1), 0);
    check_eq("DRV", (uint32_t)cairn_task_create(ID_DRV, driver, 0, 2, 0, 0, 0), 0);
    check_eq("B", (uint32_t)cairn_task_create(ID_B, task_b, 0, 1, 0, 0, 0), 0);
    check_eq("H", (uint32_t)cairn_task_create(ID_H, task_h, 0, 3, 0, 0, 0), 0);
    check_eq("E", (uint32_t)cairn_task_create(ID_E, task_e, 0, 2, 0, 0, 0), 0);
    check_eq("R", (uint32_t)cairn_task_create(ID_R, task_r, 0, 3, 0, 0, 0), 0);
    for (cairn_task_id_t id = ID_DRV; id <= ID_R; id++)
        check_eq("init", (uint32_t)cairn_task_init(id, 0, 0), 0);
    cairn_dispatch();
    for (unsigned irq = IRQ_SOFT0; irq <= IRQ_SOFT1; irq++) {
        nvic_set_priority(irq, NVIC_PRIO_LOW);
        nvic_enable(irq);
    }
    for (rep = 0; rep < METRIC_REPS; rep++)
        metric_empty(rep);
    static const unsigned phases[] = {METRIC_COOP, METRIC_PREEMPT, METRIC_IRQ, METRIC_IRQ_PREEMPT,
                                      METRIC_MESSAGE, METRIC_SYNC, METRIC_MEMORY};
    for (unsigned i = 0; i < sizeof phases / sizeof phases[0]; i++)
        for (rep = 0; rep < METRIC_REPS; rep++)
            check_eq("post", (uint32_t)cairn_post(ID_DRV, CAIRN_PORT(phases[i]), 0, 0), 0);
    check_eq("messages read", sum, 16u * METRIC_REPS);
    return test_end();
}
