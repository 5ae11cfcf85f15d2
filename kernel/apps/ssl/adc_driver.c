/* The module's ADC driver (adc_driver.h). */
#include "adc_driver.h"

#include "cairn/msg.h"
#include "cairn/sched.h"

#include "cairn_io.h"
#include "nvic.h"

#include "ssl.h"

#define MAX_REQUESTS 4u

static struct request {
    int16_t *x;
    uint8_t channel;
    cairn_task_id_t task;
} requests[MAX_REQUESTS];
static unsigned num_requests, filled;

cairn_ret_t adc_driver_request(cairn_task_id_t task, unsigned channel, int16_t *x)
{
    unsigned nchan = CAIRN_ADC_NCHAN;
    if (nchan == 0u)
        return CAIRN_EINVAL;
    nvic_disable(CAIRN_IRQ_ADC);
    if (num_requests == MAX_REQUESTS) {
        nvic_enable(CAIRN_IRQ_ADC);
        return CAIRN_EFULL;
    }
    requests[num_requests++] = (struct request){.x = x, .channel = (uint8_t)(channel % nchan), .task = task};
    if (num_requests == 1u) {
        filled = 0;
        CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
        CAIRN_ADC_CTRL = CAIRN_ADC_CTRL_PERIODIC | CAIRN_ADC_CTRL_IRQEN;
    }
    nvic_enable(CAIRN_IRQ_ADC);
    return CAIRN_OK;
}

void irq17_handler(void)
{
    cairn_isr_enter(CAIRN_IRQ_ADC);
    CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
    for (unsigned r = 0; r < num_requests; r++)
        requests[r].x[filled] = (int16_t)(((int32_t)CAIRN_ADC_DATA(requests[r].channel) - 2048) * 8);
    if (++filled == DSP_N) {
        CAIRN_ADC_CTRL = 0;
        for (unsigned r = 0; r < num_requests; r++)
            cairn_post(requests[r].task, CAIRN_PORT(1), 0, 0);
        num_requests = 0;
    }
    cairn_isr_exit();
}
