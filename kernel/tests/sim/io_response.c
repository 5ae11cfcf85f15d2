/*
 * Stimulus -> response on the Cairn I/O devices (cairn-sim only, with the scenario
 * kernel/tests/sim/io_response.toml): each firing of stimulus line 0 is answered by
 * writing its sequence number (COUNT[0]) to output port 0, and timer0 toggles marker pin 0
 * every 100 us. The core sleeps between events, so every answer takes the same number of
 * cycles: python/tests/test_io_measure.py checks the measured delay, jitter, VCD and
 * io-log against that.
 */
#include <stdint.h>

#include "board.h"
#include "cairn_io.h"
#include "check.h"
#include "cmsdk_timer.h"
#include "nvic.h"

#define N_STIMULI 20u
#define TOGGLE_CYCLES 2500u /* 100 us at 25 MHz */

/* Give up after this many toggles (a run without the scenario gets no stimulus). */
#define MAX_TOGGLES (4u * N_STIMULI + 10u)

static volatile uint32_t answered;
static volatile uint32_t toggles;

void irq18_handler(void)
{
    uint32_t seq = CAIRN_STIM_COUNT(0);
    CAIRN_STIM_CLEAR = 1u;
    CAIRN_PORT_OUT(0) = seq;
    answered++;
}

void irq8_handler(void)
{
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    CAIRN_GPIO_TGL = 1u;
    toggles++;
}

int main(void)
{
    test_begin("io_response");
    CMSDK_TIMER0->reload = TOGGLE_CYCLES - 1u;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    nvic_enable(IRQ_TIMER0);
    nvic_enable(CAIRN_IRQ_STIM(0));
    while (answered < N_STIMULI && toggles < MAX_TOGGLES)
        __asm__ volatile("wfi");
    CMSDK_TIMER0->ctrl = 0;
    check_eq("answered", answered, N_STIMULI);
    check_eq("last sequence", CAIRN_PORT_OUT(0), N_STIMULI);
    check_eq("stimulus count", CAIRN_STIM_COUNT(0), N_STIMULI);
    return test_end();
}
