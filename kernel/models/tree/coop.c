/*
 * The tree node on the Echidna-style executive: the interrupt routines only signal ports;
 * two 1 ms objects poll them, one forwarding the packets that arrived, one running the
 * sensing jobs requested (SimBed's Echidna set-up, section 2.4.2, where a 1 ms process
 * checks for the interrupt). Objects run to completion, so a packet waits for the poll
 * and for a sensing job in progress. The idle loop polls the clock, as Echidna's does
 * (SimBed, section 4: it cannot doze), so this model never sleeps.
 */
#include <stddef.h>

#include "coop.h"
#include "nvic.h"
#include "tree.h"
#include "uart.h"

static struct coop_exec exec;
static struct coop_object packet_obj, sense_obj;
static struct coop_port packets, senses;

static uint32_t now_ticks(void *ctx)
{
    (void)ctx;
    return tree_now_cycles() / tree_params.tick_cycles;
}

void irq18_handler(void)
{
    for (uint32_t n = tree_receive(); n > 0; n--)
        coop_port_signal(&packets);
}

void irq19_handler(void)
{
    for (uint32_t n = tree_sense_requests(); n > 0; n--)
        coop_port_signal(&senses);
}

static void poll_packets(void *arg)
{
    (void)arg;
    for (uint32_t n = coop_port_take(&packets); n > 0; n--)
        (void)tree_forward();
}

static void poll_senses(void *arg)
{
    (void)arg;
    for (uint32_t n = coop_port_take(&senses); n > 0; n--)
        tree_sense();
}

void tree_model_report(void)
{
    uart_puts("coop dispatched=");
    uart_put_udec(exec.dispatched);
    uart_puts(" most packets per poll=");
    uart_put_udec(packets.max_batch);
    uart_puts(" late=");
    uart_put_udec(packet_obj.late + sense_obj.late);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("coop");
    coop_init(&exec, now_ticks, NULL);
    /* Added first: on a tie (both released each tick) packets go first. */
    coop_add(&exec, &packet_obj, 1, 1, poll_packets, NULL);
    coop_add(&exec, &sense_obj, 1, 1, poll_senses, NULL);
    tree_enable_irqs(NVIC_PRIO_LOW, NVIC_PRIO_LOW);
    for (;;)
        (void)coop_dispatch(&exec);
}
