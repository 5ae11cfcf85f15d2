#include <stddef.h>

#include "fake_port.h"
#include "model_port.h"

unsigned fake_irq_depth;
unsigned fake_waits;
unsigned fake_waits_unmasked;
void (*fake_interrupt)(void);

void fake_port_reset(void)
{
    fake_irq_depth = 0;
    fake_waits = 0;
    fake_waits_unmasked = 0;
    fake_interrupt = NULL;
}

uint32_t model_irq_save(void)
{
    return fake_irq_depth++;
}

void model_irq_restore(uint32_t state)
{
    fake_irq_depth = state;
}

void model_wait_for_interrupt(void)
{
    fake_waits++;
    if (fake_irq_depth == 0)
        fake_waits_unmasked++;
    /* The handler runs as if taken at the restore that follows: unmasked. */
    unsigned depth = fake_irq_depth;
    fake_irq_depth = 0;
    if (fake_interrupt != NULL)
        fake_interrupt();
    fake_irq_depth = depth;
}
