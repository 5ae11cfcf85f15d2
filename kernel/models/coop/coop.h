/*
 * Cooperative periodic executive in the style of Echidna ("SimBed", sections 2.2 and
 * 2.4.2): the only schedulable unit is a periodic object with a period in ticks; each
 * release runs to completion and is never preempted. Interrupt work reaches the objects
 * only through ports (flags with a count) that an object polls, as the paper's 1 ms
 * AP-IPC polling process does.
 *
 * Order: earliest deadline first, the deadline of a release being the next release
 * (release + period). The paper calls Echidna representative of "dynamic-priority
 * cooperative RTOSs" (section 2.2); EDF is the dynamic-priority order that fits periodic
 * objects without priorities. Releases follow the intended times (release += period),
 * not the actual start: section 3 observes that Echidna does not spread late jobs out,
 * which this reproduces (a late object runs late, then early).
 */
#ifndef CAIRN_MODEL_COOP_H
#define CAIRN_MODEL_COOP_H

#include <stdbool.h>
#include <stdint.h>

struct coop_object {
    struct coop_object *next; /* in the executive's list */
    void (*cycle)(void *arg);
    void *arg;
    uint32_t period;  /* ticks, > 0 */
    uint32_t release; /* absolute tick of the pending release */
    uint32_t runs;
    uint32_t late;        /* releases that completed after their deadline */
    uint32_t max_start_delay; /* ticks between a release and its start, worst */
};

struct coop_exec {
    struct coop_object *objects;
    uint32_t (*now)(void *ctx); /* the clock, in ticks */
    void *ctx;
    uint32_t dispatched;
    uint32_t idle_decisions; /* coop_dispatch calls that found nothing released */
    uint32_t errors;         /* bad arguments refused */
};

void coop_init(struct coop_exec *e, uint32_t (*now)(void *ctx), void *ctx);
/* First release at now + phase, then every period. False (counted in errors) for a
 * NULL object or cycle, period 0, or an object already added. */
bool coop_add(struct coop_exec *e, struct coop_object *o, uint32_t period, uint32_t phase,
              void (*cycle)(void *arg), void *arg);
/* Run the released object with the earliest deadline (ties: the one added first) and
 * return true; false if nothing is released at now. */
bool coop_dispatch(struct coop_exec *e);
/* Ticks from now until the next release (0 if one is due): what an idle loop may wait. */
uint32_t coop_idle_ticks(struct coop_exec *e);

/* ---- Ports: interrupt -> periodic object ------------------------------------------ */
struct coop_port {
    volatile uint32_t pending; /* events signalled and not yet taken */
    uint32_t signalled;
    uint32_t max_batch; /* most events one take found: interrupts that piled up */
};

/* From an interrupt handler. */
void coop_port_signal(struct coop_port *p);
/* From a periodic object: how many events arrived since the last take (0: none). */
uint32_t coop_port_take(struct coop_port *p);

#endif
