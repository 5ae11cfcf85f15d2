/*
 * Energy firmware, DS10152 Table 62 (ADC): 1000 on-demand conversions of ADC channel 0 (the
 * channel energy_adc.toml defines); each read of DATA(0) is one conversion. Exits 0 when the
 * scenario's one channel is there, 1 otherwise.
 */
#include <stdint.h>

#include "cairn_io.h"

int main(void)
{
    volatile uint32_t sink = 0u;
    if (CAIRN_ADC_NCHAN != 1u)
        return 1;
    for (uint32_t i = 0u; i < 1000u; i++)
        sink = CAIRN_ADC_DATA(0);
    (void)sink;
    return 0;
}
