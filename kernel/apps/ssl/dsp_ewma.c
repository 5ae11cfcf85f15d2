/* FBD's moving average of the temperature readings. */
#include "dsp.h"

uint32_t dsp_ewma(uint32_t avg_x16, uint32_t reading)
{
    return avg_x16 - (avg_x16 >> 3) + ((reading * 16u) >> 3);
}
