/*
 * The tree node on the MANTIS-like model, as the paper's section IV.C sets it up for
 * MANTIS: the sensing job and the packet forwarding are threads, forwarding a level
 * higher; each interrupt routine resumes its thread, which suspends again when its work
 * is done, so a packet preempts a sensing job at the cost of thread switches. With both
 * threads suspended, main (Cairn's message level, cairn_idle) is MANTIS's idle thread.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/sched.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "mantis.h"
#include "nvic.h"
#include "tree.h"
#include "uart.h"

#define STIMULUS_EXCEPTION(irq) (16u + (irq)) /* for the event log */

enum { FORWARD_ID = 3, SENSE_ID = 4 };

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t forward_stack[512], sense_stack[512];

void irq18_handler(void) /* a packet arrives: wake the forwarding thread per packet */
{
    cairn_isr_enter(STIMULUS_EXCEPTION(TREE_IRQ_PACKET));
    for (uint32_t n = tree_receive(); n > 0; n--)
        if (!mos_thread_resume(FORWARD_ID))
            tree_unreceive();
    cairn_isr_exit();
}

void irq19_handler(void) /* the sensing trigger */
{
    cairn_isr_enter(STIMULUS_EXCEPTION(TREE_IRQ_SENSE));
    for (uint32_t n = tree_sense_requests(); n > 0; n--)
        (void)mos_thread_resume(SENSE_ID); /* a refusal is counted in mos_stats */
    cairn_isr_exit();
}

static void forward_main(void *arg)
{
    (void)arg;
    /* Every packet in the buffer, not one per resume: resumes that come while one is
     * pending coalesce (a binary semaphore), so one run must serve them all. */
    while (mos_thread_suspend() == CAIRN_OK)
        while (tree_forward())
            ;
}

static void sense_main(void *arg)
{
    (void)arg;
    while (mos_thread_suspend() == CAIRN_OK)
        tree_sense();
}

void tree_model_report(void)
{
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    uart_puts("mantis switches=");
    uart_put_udec(st.switches);
    uart_puts(" resumed=");
    uart_put_udec(mos_stats.resumed);
    uart_puts(" resume_lost=");
    uart_put_udec(mos_stats.resume_lost);
    uart_puts(" errors=");
    uart_put_udec(mos_stats.errors);
    uart_puts("\n");
}

int main(void)
{
    tree_boot("mantis");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    (void)mos_thread_new(FORWARD_ID, "forward", forward_main, 0, forward_stack,
                         sizeof forward_stack, MOS_PRIO_HIGH);
    (void)mos_thread_new(SENSE_ID, "sense", sense_main, 0, sense_stack, sizeof sense_stack,
                         MOS_PRIO_NORMAL);
    tree_enable_irqs(NVIC_PRIO_LOW, NVIC_PRIO_LOW);
    for (;;)
        cairn_idle();
}
