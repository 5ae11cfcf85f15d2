/*
 * The tree node on the TinyOS-like model, as the paper's section IV.C sets it up for
 * TinyOS: each interrupt routine creates a task (a packet task per packet received, a
 * sensing task per sensing request) and the FIFO scheduler runs them to completion, so a
 * packet that arrives during a sensing task waits for it (the paper's Fig. 5).
 */
#include <stdbool.h>
#include <stddef.h>

#include "nvic.h"
#include "tinyos.h"
#include "tree.h"
#include "uart.h"

static struct tos_sched sched;
static const bool never = false;

static void forward_task(void *arg)
{
    (void)arg;
    (void)tree_forward();
}

static void sense_task(void *arg)
{
    (void)arg;
    tree_sense();
}

void irq18_handler(void) /* a packet arrives */
{
    for (uint32_t n = tree_receive(); n > 0; n--)
        if (!tos_post(&sched, forward_task, NULL))
            tree_unreceive();
}

void irq19_handler(void) /* the sensing trigger */
{
    for (uint32_t n = tree_sense_requests(); n > 0; n--)
        (void)tos_post(&sched, sense_task, NULL); /* a refusal is counted in sched */
}

void tree_model_report(void)
{
    uart_puts("tinyos posted=");
    uart_put_udec(sched.posted);
    uart_puts(" rejected=");
    uart_put_udec(sched.rejected);
    uart_puts(" sleeps=");
    uart_put_udec(sched.sleeps);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("tinyos");
    tos_init(&sched);
    tree_enable_irqs(NVIC_PRIO_LOW, NVIC_PRIO_LOW);
    tos_run(&sched, &never);
    return 1;
}
