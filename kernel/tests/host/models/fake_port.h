/*
 * The models' CPU port for host tests: a masking depth instead of PRIMASK, and a wait
 * that calls the test's "interrupt" (or fails the test if there is none to deliver).
 */
#ifndef CAIRN_MODEL_FAKE_PORT_H
#define CAIRN_MODEL_FAKE_PORT_H

#include <stdint.h>

extern unsigned fake_irq_depth;   /* > 0 while masked */
extern unsigned fake_waits;       /* model_wait_for_interrupt calls */
extern unsigned fake_waits_unmasked; /* ... made with interrupts enabled: a race */
/* Called from model_wait_for_interrupt: the interrupt that wakes it. */
extern void (*fake_interrupt)(void);
void fake_port_reset(void);

#endif
