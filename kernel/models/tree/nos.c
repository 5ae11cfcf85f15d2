/*
 * The tree node on NOS: interrupts stay masked for the whole run and both stimulus lines
 * are polled by the control loop, as SimBed's NOS does; packets are the HIGH line (the
 * paper gives forwarding the priority), the sensing trigger the LOW line. Nothing is in
 * the callout queue, so the loop sleeps (WFI with PRIMASK set, woken by a pending line)
 * whenever neither line is pending. A handled line is non-preemptive: a packet that
 * arrives during a sensing job waits for it.
 */
#include <stddef.h>

#include "cairn_io.h"
#include "cpu.h"
#include "nos.h"
#include "nvic.h"
#include "tree.h"
#include "uart.h"

static struct nos_exec x;

static uint32_t now(void *ctx)
{
    (void)ctx;
    return tree_now_cycles() / tree_params.tick_cycles;
}

static uint32_t status(void *ctx)
{
    (void)ctx;
    return CAIRN_STIM_STATUS & ((1u << TREE_LINE_PACKET) | (1u << TREE_LINE_SENSE));
}

static void handle(void *ctx, unsigned line)
{
    (void)ctx;
    if (line == TREE_LINE_PACKET) {
        uint32_t n = tree_receive(); /* clears the line */
        nvic_clear_pending(TREE_IRQ_PACKET);
        for (; n > 0; n--)
            (void)tree_forward();
    } else {
        uint32_t n = tree_sense_requests();
        nvic_clear_pending(TREE_IRQ_SENSE);
        for (; n > 0; n--)
            tree_sense();
    }
}

static void nap(void *ctx, int32_t delta)
{
    (void)ctx;
    (void)delta; /* no job is ever queued: sleep until a line is pending */
    if (status(NULL) == 0u)
        cpu_wfi();
}

static const struct nos_ops ops = {now, status, handle, nap};

void tree_model_report(void)
{
    uart_puts("nos passes=");
    uart_put_udec(x.passes);
    uart_puts(" high_irqs=");
    uart_put_udec(x.high_irqs);
    uart_puts(" low_irqs=");
    uart_put_udec(x.low_irqs);
    uart_puts(" sleeps=");
    uart_put_udec(x.sleeps);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("nos");
    cpu_irq_disable();
    nos_init(&x, &ops, NULL, 1u << TREE_LINE_PACKET, 1u << TREE_LINE_SENSE);
    tree_enable_irqs(NVIC_PRIO_LOW, NVIC_PRIO_LOW); /* pend (and wake WFI), never taken */
    for (;;)
        (void)nos_pass(&x);
}
