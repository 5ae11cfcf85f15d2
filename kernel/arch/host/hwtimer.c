/* Host port: hardware timer model (see hwtimer.h). */
#include "hwtimer.h"

#include "cairn/arch_timer.h"
#include "cairn/sched.h"

/* IRQ number the host timer reports to the scheduler (CMSDK timer0's on mps2-an385). */
#define HOST_TIMER_IRQ 8u

static struct {
    uint32_t now;
    uint32_t deadline;
    uint32_t lock;
    bool armed;
    bool pending;
    bool in_isr;
    unsigned isr_count;
    unsigned storm; /* interrupts since the counter last moved */
} hw;

/* More interrupts than this without the counter moving is a kernel bug (an
 * interrupt storm): stop the test instead of hanging. */
#define STORM_LIMIT 100000u

void cairn_host_thread_pending(void) __attribute__((weak));

static void deliver(void)
{
    while (hw.pending && !hw.lock && !hw.in_isr) {
        if (++hw.storm > STORM_LIMIT)
            __builtin_trap();
        hw.pending = false;
        hw.in_isr = true;
        hw.isr_count++;
        /* Bracketed like every interrupt, so timers due on the same tick are
         * dispatched by priority when the interrupt exits. */
        cairn_isr_enter(HOST_TIMER_IRQ);
        cairn_timer_isr();
        cairn_isr_exit();
        hw.in_isr = false;
    }
    /* A thread switch the interrupt requested runs once it has returned, as a
     * pended PendSV does (weak: the timer-only test builds have no threads). */
    if (!hw.in_isr && cairn_host_thread_pending)
        cairn_host_thread_pending();
}

bool host_timer_in_isr(void)
{
    return hw.in_isr;
}

static void raise_irq(void)
{
    hw.pending = true;
    deliver();
}

void host_timer_reset(uint32_t start)
{
    hw = (__typeof__(hw)){0};
    hw.now = start & CAIRN_HWTIMER_MASK;
}

uint32_t arch_timer_now(void)
{
    return hw.now;
}

void arch_timer_arm(uint32_t deadline)
{
    deadline &= CAIRN_HWTIMER_MASK;
    uint32_t dist = (deadline - hw.now) & CAIRN_HWTIMER_MASK;
    if (dist == 0 || dist > CAIRN_HWTIMER_HALF) {
        hw.armed = false;
        raise_irq();
        return;
    }
    hw.deadline = deadline;
    hw.armed = true;
}

void arch_timer_disarm(void)
{
    hw.armed = false;
}

uint32_t arch_timer_lock(void)
{
    uint32_t s = hw.lock;
    hw.lock = 1;
    return s;
}

void arch_timer_unlock(uint32_t state)
{
    hw.lock = state;
    deliver();
}

void host_timer_advance(uint32_t ticks)
{
    hw.storm = 0;
    while (ticks) {
        uint32_t dist = (hw.deadline - hw.now) & CAIRN_HWTIMER_MASK;
        if (hw.armed && dist != 0 && dist <= ticks) {
            hw.now = (hw.now + dist) & CAIRN_HWTIMER_MASK;
            ticks -= dist;
            hw.armed = false;
            raise_irq();
        } else {
            hw.now = (hw.now + ticks) & CAIRN_HWTIMER_MASK;
            ticks = 0;
        }
    }
}

void host_timer_set(uint32_t now)
{
    hw.now = now & CAIRN_HWTIMER_MASK;
}

bool host_timer_armed(uint32_t *deadline)
{
    if (hw.armed && deadline)
        *deadline = hw.deadline;
    return hw.armed;
}

bool host_timer_pending(void)
{
    return hw.pending;
}

unsigned host_timer_isr_count(void)
{
    return hw.isr_count;
}
