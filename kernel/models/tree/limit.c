/*
 * The tree node with no OS (SimBed's LIMIT): the interrupt routines do the work
 * themselves. The packet interrupt has the higher NVIC priority, so forwarding preempts a
 * sensing job in hardware: the paper's section VI.A remedy of programming the urgent work
 * into an interrupt handler, and the lower bound of the other models' overhead.
 */
#include <stdbool.h>
#include <stddef.h>

#include "limit.h"
#include "nvic.h"
#include "tree.h"
#include "uart.h"

static void forward(void *arg)
{
    (void)arg;
    (void)tree_forward();
}

static void sense(void *arg)
{
    (void)arg;
    tree_sense();
}

static struct limit_work forward_work = {.fn = forward};
static struct limit_work sense_work = {.fn = sense};
static const bool never = false;

void irq18_handler(void) /* a packet arrives: forward it now */
{
    for (uint32_t n = tree_receive(); n > 0; n--)
        limit_call(&forward_work);
}

void irq19_handler(void) /* the sensing trigger */
{
    for (uint32_t n = tree_sense_requests(); n > 0; n--)
        limit_call(&sense_work);
}

void tree_model_report(void)
{
    uart_puts("limit nested=");
    uart_put_udec(forward_work.nested + sense_work.nested);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("limit");
    tree_enable_irqs(NVIC_PRIO_HIGH, NVIC_PRIO_LOW);
    limit_idle(&never);
    return 1;
}
