/*
 * The executive: objects in a list in the order they were added; dispatch picks the
 * released one with the earliest deadline.
 */
#include <stddef.h>

#include "coop.h"

static bool before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

void coop_init(struct coop_exec *e, uint32_t (*now)(void *ctx), void *ctx)
{
    *e = (struct coop_exec){.now = now, .ctx = ctx};
}

bool coop_add(struct coop_exec *e, struct coop_object *o, uint32_t period, uint32_t phase,
              void (*cycle)(void *arg), void *arg)
{
    bool bad = o == NULL || cycle == NULL || period == 0u;
    for (struct coop_object *p = e->objects; !bad && p != NULL; p = p->next)
        bad = p == o;
    if (bad) {
        e->errors++;
        return false;
    }
    *o = (struct coop_object){.cycle = cycle, .arg = arg, .period = period,
                              .release = e->now(e->ctx) + phase};
    struct coop_object **tail = &e->objects;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = o;
    return true;
}

bool coop_dispatch(struct coop_exec *e)
{
    uint32_t now = e->now(e->ctx);
    struct coop_object *pick = NULL;
    for (struct coop_object *o = e->objects; o != NULL; o = o->next) {
        if (before(now, o->release))
            continue;
        if (pick == NULL || before(o->release + o->period, pick->release + pick->period))
            pick = o;
    }
    if (pick == NULL) {
        e->idle_decisions++;
        return false;
    }
    uint32_t release = pick->release;
    uint32_t deadline = release + pick->period;
    if (now - release > pick->max_start_delay)
        pick->max_start_delay = now - release;
    pick->release = deadline;
    pick->cycle(pick->arg);
    pick->runs++;
    e->dispatched++;
    if (before(deadline, e->now(e->ctx)))
        pick->late++;
    return true;
}

uint32_t coop_idle_ticks(struct coop_exec *e)
{
    uint32_t now = e->now(e->ctx);
    uint32_t best = UINT32_MAX;
    for (struct coop_object *o = e->objects; o != NULL; o = o->next) {
        uint32_t wait = before(now, o->release) ? o->release - now : 0u;
        if (wait < best)
            best = wait;
    }
    return best;
}
