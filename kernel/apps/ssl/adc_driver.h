/*
 * The module's ADC driver: a round of DSP_N periodic conversions written straight into
 * the buffers of the ADC tasks that asked for one (the driver's interrupt handler, not a
 * message per sample). When the round is complete it posts CAIRN_PORT(1) to each of those
 * tasks.
 */
#ifndef SSL_ADC_DRIVER_H
#define SSL_ADC_DRIVER_H

#include <stdint.h>

#include "cairn/types.h"

/* Channel `channel` of the module's ADC (taken modulo the channels it has) fills x[]. */
cairn_ret_t adc_driver_request(cairn_task_id_t task, unsigned channel, int16_t *x);

#endif
