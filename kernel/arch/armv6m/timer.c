/*
 * Cairn OS armv6m port: the hardware timer of the virtual timers on mps2-an385.
 *
 * The counter is CMSDK timer1, a 32-bit down counter at PCLK with RELOAD =
 * 0xFFFFFFFF: it wraps every 2^32 ticks, so now = ~VALUE is a free-running 32-bit
 * up-counter (CAIRN_HWTIMER_BITS = 32) and wrap-around is plain modular
 * arithmetic. The compare is CMSDK timer0 (IRQ 8), loaded with the distance to the
 * deadline: it interrupts when it counts down to 0. The few cycles between
 * reading the counter and loading timer0 make the interrupt that much late,
 * never early (the virtual timers only require "not early, and within
 * CAIRN_HWTIMER_HALF").
 */
#include <stdint.h>

#include "cairn/arch.h"
#include "cairn/arch_timer.h"
#include "cairn/sched.h"

#include "cairn_armv6m.h"
#include "cmsdk_timer.h"
#include "nvic.h"
#include "scb.h"

_Static_assert(CAIRN_HWTIMER_BITS == 32, "the armv6m port's counter is 32 bits");

#define COUNTER CMSDK_TIMER1
#define COMPARE CMSDK_TIMER0

void cairn_port_init(void)
{
    COMPARE->ctrl = 0;
    COMPARE->reload = 0xFFFFFFFFu;
    COMPARE->intstatus = CMSDK_TIMER_INT;
    COUNTER->ctrl = 0;
    COUNTER->reload = 0xFFFFFFFFu; /* also loads VALUE: now = 0 */
    COUNTER->ctrl = CMSDK_TIMER_CTRL_EN;
    scb_set_pendsv_priority(NVIC_PRIO_LOWEST);
    scb_set_svcall_priority(NVIC_PRIO_HIGHEST);
    nvic_set_priority(IRQ_TIMER0, NVIC_PRIO_LOW);
    nvic_clear_pending(IRQ_TIMER0);
    nvic_enable(IRQ_TIMER0);
}

uint32_t arch_timer_now(void)
{
    return ~COUNTER->value;
}

void arch_timer_arm(uint32_t deadline)
{
    uint32_t s = arch_irq_save();
    uint32_t dist = deadline - arch_timer_now();
    if (dist == 0 || dist > CAIRN_HWTIMER_HALF) {
        COMPARE->ctrl = 0;
        nvic_set_pending(IRQ_TIMER0);
    } else {
        COMPARE->value = dist;
        COMPARE->intstatus = CMSDK_TIMER_INT; /* an expiry of the old deadline */
        COMPARE->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    }
    arch_irq_restore(s);
}

void arch_timer_disarm(void)
{
    COMPARE->ctrl = 0;
    COMPARE->intstatus = CMSDK_TIMER_INT;
}

void irq8_handler(void)
{
    /* One shot: stop the compare (cairn_timer_isr re-arms it) and drop the line. */
    COMPARE->ctrl = 0;
    COMPARE->intstatus = CMSDK_TIMER_INT;
    cairn_isr_enter(CAIRN_ARMV6M_TIMER_IRQ);
    cairn_timer_isr();
    cairn_isr_exit();
}
