/*
 * The CoMOS appendix's non-splittable job (the paper's Figure 1): L instructions by a
 * deadline D, then idle or standby until D. No OS: the scenario gives the job at time 0 on
 * input ports (IN[0] = loop iterations, IN[1] = 1 for standby, i.e. WFI with SLEEPDEEP,
 * 0 for idle, plain WFI) and marks the deadline with stimulus line 0 (one firing at D). The
 * firmware exits (status 0) at the deadline, so the run's energy is the job's over [0, D];
 * status 1 when the deadline came before the work was done.
 */
#include <stdint.h>

#include "cairn_io.h"
#include "nvic.h"
#include "scb.h"
#include "semihost.h"

static volatile uint32_t deadline;

void irq18_handler(void)
{
    CAIRN_STIM_CLEAR = 1u;
    deadline = 1u;
}

int main(void)
{
    uint32_t iterations = CAIRN_PORT_IN(0);
    uint32_t standby = CAIRN_PORT_IN(1);
    nvic_enable(CAIRN_IRQ_STIM(0));
    /* The work: a fixed loop, 4 instructions an iteration. */
    __asm volatile("1: subs %0, %0, #1\n\tnop\n\tnop\n\tbne 1b" : "+l"(iterations) : : "cc");
    if (deadline)
        sh_exit(1);
    if (standby)
        SCB_SCR |= SCR_SLEEPDEEP;
    for (;;) {
        __asm volatile("cpsid i" ::: "memory");
        if (deadline)
            break;
        __asm volatile("wfi\n\tcpsie i" ::: "memory"); /* the pending line wakes the WFI */
    }
    sh_exit(0);
}
