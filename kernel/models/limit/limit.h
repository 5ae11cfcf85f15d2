/*
 * "LIMIT", the lower bound of "SimBed" (section 2.2): the application's work with no OS.
 * Interrupt handlers call the work directly (the aperiodic work from the device's
 * handler, the periodic work from the timer's), and the main loop only sleeps. There is
 * no queue, no priority and no deadline bookkeeping: a harness records how often each
 * piece of work ran so the same application can be compared with the scheduled models.
 */
#ifndef CAIRN_MODEL_LIMIT_H
#define CAIRN_MODEL_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct limit_work {
    void (*fn)(void *arg);
    void *arg;
    uint32_t runs;
    uint32_t nested; /* calls that began while another call of this work was running */
    bool running;
};

/* From an interrupt handler (or the main loop): run the work now, to completion. */
void limit_call(struct limit_work *w);
/* The main loop: sleep until `*stop` is set; every interrupt wakes it to re-check. */
void limit_idle(volatile const bool *stop);

#endif
