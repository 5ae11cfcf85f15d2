/*
 * Board glue and the shared work of the model examples (workload.h).
 */
#include "workload.h"

#include "board.h"
#include "cairn_io.h"
#include "check.h"
#include "cmsdk_timer.h"
#include "nvic.h"
#include "scb.h"
#include "systick.h"
#include "uart.h"

#define CYCLES_PER_US (BOARD_CORE_CLOCK_HZ / 1000000u)

struct ex_stats ex_stats;

void ex_mark_clock_start(void)
{
    CAIRN_GPIO_SET = 1u << EX_PIN_CLOCK;
}

void ex_publish(unsigned port, uint32_t value)
{
    CAIRN_PORT_OUT(port) = value;
}

void ex_clock_start(void)
{
    CMSDK_TIMER1->ctrl = 0;
    CMSDK_TIMER1->reload = 0xFFFFFFFFu;
    CMSDK_TIMER1->value = 0xFFFFFFFFu;
    CMSDK_TIMER1->ctrl = CMSDK_TIMER_CTRL_EN;
    ex_mark_clock_start();
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
    CAIRN_GPIO_SET = 1u << EX_PIN_STIMULUS; /* before the start: no arrival precedes its due time */
    SYST_RVR = STIM_US * CYCLES_PER_US - 1u;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

void ex_stimulus_stop(void)
{
    SYST_CSR = 0u;
    ex_stimulus_clear();
}

void ex_stimulus_arrived(void)
{
    if (++ex_stats.stimuli == STIMULI)
        ex_stimulus_stop();
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
    if (ex_sensing_done())
        return;
    CAIRN_GPIO_TGL = 1u << EX_PIN_SENSE;
    spin(SENSE_WORK);
    ex_stats.sensed++;
}

void ex_forward(void)
{
    CAIRN_GPIO_TGL = 1u << EX_PIN_FORWARD;
    spin(FORWARD_WORK);
    ex_stats.forwarded++;
}

bool ex_sensing_done(void)
{
    return ex_stats.sensed == SENSED;
}

bool ex_done(void)
{
    return ex_sensing_done() && ex_stats.stimuli == STIMULI && ex_stats.forwarded == STIMULI;
}

int ex_report(const char *model, uint32_t lost)
{
    (void)model;
    uart_puts("sensed=");
    uart_put_udec(ex_stats.sensed);
    uart_puts(" stimuli=");
    uart_put_udec(ex_stats.stimuli);
    uart_puts(" forwarded=");
    uart_put_udec(ex_stats.forwarded);
    uart_puts("\n");
    check_eq("sensing jobs", ex_stats.sensed, SENSED);
    check_eq("stimuli", ex_stats.stimuli, STIMULI);
    check_eq("forwarded", ex_stats.forwarded, ex_stats.stimuli);
    check_eq("lost", lost, 0);
    return test_end();
}
