/*
 * The tree node on Cairn OS's message kernel (docs/kernel.md): forwarding and sensing are
 * tasks, each stimulus line an interrupt bound to a message to its task, the forwarding
 * task one priority above the sensing task. A packet's message preempts a sensing
 * handler on the same stack (no thread switch: the interrupt returns straight into the
 * forwarding handler); the idle loop sleeps when nothing is queued.
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
#include "tree.h"
#include "uart.h"

enum { SENSE_TASK = 1, FORWARD_TASK = 2 };
enum { SENSE_PRIO = 1, FORWARD_PRIO = 2 };

/* Level-sensitive: masked from the interrupt until the task has served the line. */
CAIRN_IRQ_MESSAGE(irq18_handler, TREE_IRQ_PACKET, FORWARD_TASK, CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE(irq19_handler, TREE_IRQ_SENSE, SENSE_TASK, CAIRN_PORT(0))

static uint64_t heap[256];

static cairn_ret_t forward_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0)) {
        for (uint32_t n = tree_receive(); n > 0; n--)
            (void)tree_forward();
        cairn_irq_unmask(TREE_IRQ_PACKET);
    }
    return CAIRN_OK;
}

static cairn_ret_t sense_task(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0)) {
        uint32_t n = tree_sense_requests();
        cairn_irq_unmask(TREE_IRQ_SENSE);
        for (; n > 0; n--)
            tree_sense();
    }
    return CAIRN_OK;
}

void tree_model_report(void)
{
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    uart_puts("cairn pool_full=");
    uart_put_udec(st.pool_full);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("cairn");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    (void)cairn_task_create(FORWARD_TASK, forward_task, 0, FORWARD_PRIO, 0, 0, 0);
    (void)cairn_task_create(SENSE_TASK, sense_task, 0, SENSE_PRIO, 0, 0, 0);
    (void)cairn_task_init(FORWARD_TASK, 0, 0);
    (void)cairn_task_init(SENSE_TASK, 0, 0);
    tree_enable_irqs(NVIC_PRIO_LOW, NVIC_PRIO_LOW);
    for (;;)
        cairn_idle();
}
