/*
 * Board glue and the shared work of the model examples (workload.h).
 */
#include "workload.h"

#include "board.h"
#include "check.h"
#include "cmsdk_timer.h"
#include "nvic.h"
#include "scb.h"
#include "systick.h"
#include "uart.h"

#define CYCLES_PER_US (BOARD_CORE_CLOCK_HZ / 1000000u)

struct ex_stats ex_stats;
static uint32_t stim_start_us;

void ex_clock_start(void)
{
    CMSDK_TIMER1->ctrl = 0;
    CMSDK_TIMER1->reload = 0xFFFFFFFFu;
    CMSDK_TIMER1->value = 0xFFFFFFFFu;
    CMSDK_TIMER1->ctrl = CMSDK_TIMER_CTRL_EN;
}

uint32_t ex_now_us(void)
{
    return (0xFFFFFFFFu - CMSDK_TIMER1->value) / CYCLES_PER_US;
}

uint32_t ex_now_ms(void)
{
    return ex_now_us() / 1000u;
}

void ex_alarm_at_us(uint32_t at_us)
{
    uint32_t now = ex_now_us();
    uint32_t wait = (int32_t)(at_us - now) > 0 ? at_us - now : 1u;
    CMSDK_TIMER0->ctrl = 0;
    /* RELOAD first: writing it also loads VALUE (CMSDK timer, as QEMU models it). */
    CMSDK_TIMER0->reload = wait * CYCLES_PER_US;
    CMSDK_TIMER0->value = wait * CYCLES_PER_US;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    nvic_enable(IRQ_TIMER0);
}

void ex_alarm_every_us(uint32_t period_us)
{
    CMSDK_TIMER0->ctrl = 0;
    CMSDK_TIMER0->reload = period_us * CYCLES_PER_US;
    CMSDK_TIMER0->value = period_us * CYCLES_PER_US;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    nvic_enable(IRQ_TIMER0);
}

void ex_alarm_stop(void)
{
    CMSDK_TIMER0->ctrl = 0;
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    nvic_clear_pending(IRQ_TIMER0);
}

void ex_stimulus_start(void)
{
    stim_start_us = ex_now_us();
    SYST_RVR = STIM_US * CYCLES_PER_US - 1u;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

void ex_stimulus_stop(void)
{
    SYST_CSR = 0u;
    ex_stimulus_clear();
}

uint32_t ex_stim_time_us(uint32_t k)
{
    return stim_start_us + (k + 1u) * STIM_US;
}

bool ex_stimulus_pending(void)
{
    return (SCB_ICSR & ICSR_PENDSTSET) != 0u;
}

void ex_stimulus_clear(void)
{
    SCB_ICSR = ICSR_PENDSTCLR;
}

static void spin(uint32_t turns)
{
    for (volatile uint32_t i = 0; i < turns; i++)
        ;
}

void ex_sense(void)
{
    uint32_t late = ex_now_us() - (ex_stats.sensed + 1u) * SENSE_MS * 1000u;
    if ((int32_t)late > 0 && late > ex_stats.max_sense_late_us)
        ex_stats.max_sense_late_us = late;
    spin(SENSE_WORK);
    ex_stats.sensed++;
}

void ex_forward(void)
{
    uint32_t delay = ex_now_us() - ex_stim_time_us(ex_stats.forwarded);
    if (delay > ex_stats.max_forward_delay_us)
        ex_stats.max_forward_delay_us = delay;
    spin(FORWARD_WORK);
    ex_stats.forwarded++;
}

int ex_report(const char *model, uint32_t stimuli_seen, uint32_t lost)
{
    (void)model;
    uart_puts("sensed=");
    uart_put_udec(ex_stats.sensed);
    uart_puts(" forwarded=");
    uart_put_udec(ex_stats.forwarded);
    uart_puts(" max_forward_delay_us=");
    uart_put_udec(ex_stats.max_forward_delay_us);
    uart_puts(" max_sense_late_us=");
    uart_put_udec(ex_stats.max_sense_late_us);
    uart_puts("\n");
    check_eq("sensing jobs", ex_stats.sensed, RUN_MS / SENSE_MS);
    check_eq("stimuli", stimuli_seen, RUN_MS * 1000u / STIM_US);
    check_eq("forwarded", ex_stats.forwarded, stimuli_seen);
    check_eq("lost", lost, 0);
    check_yes("each packet forwarded before the next arrives",
              ex_stats.max_forward_delay_us < STIM_US);
    return test_end();
}
