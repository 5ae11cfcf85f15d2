/*
 * The delta callout queue: a doubly linked list where each event stores the time from
 * its predecessor, so charging elapsed time touches the first event only.
 */
#include <stddef.h>

#include "nos.h"

void nos_init(struct nos_exec *x, const struct nos_ops *ops, void *ctx, uint32_t high_mask,
              uint32_t low_mask)
{
    *x = (struct nos_exec){.now = ops->now, .irq_status = ops->irq_status,
                           .handle_interrupt = ops->handle_interrupt, .sleep = ops->sleep,
                           .ctx = ctx, .high_mask = high_mask, .low_mask = low_mask};
    x->time = x->now(x->ctx);
}

bool nos_insert(struct nos_exec *x, struct nos_event *ev, int32_t delay,
                void (*execute)(struct nos_exec *, struct nos_event *), void *data,
                enum nos_priority priority)
{
    if (ev == NULL || execute == NULL || ev->queued || delay < 0 ||
        (priority != NOS_HARD && priority != NOS_SOFT)) {
        x->errors++;
        return false;
    }
    ev->execute = execute;
    ev->data = data;
    ev->priority = (uint8_t)priority;
    /* Walk while the next event is due no later than the new one: remaining is the new
     * event's time relative to the event before the insertion point. */
    int32_t remaining = delay;
    struct nos_event *prev = NULL, *p = x->calloutq;
    while (p != NULL && p->delta <= remaining) {
        remaining -= p->delta;
        prev = p;
        p = p->next;
    }
    ev->delta = remaining;
    ev->prev = prev;
    ev->next = p;
    if (p != NULL) {
        p->delta -= remaining;
        p->prev = ev;
    }
    if (prev != NULL)
        prev->next = ev;
    else
        x->calloutq = ev;
    ev->queued = true;
    return true;
}

bool nos_remove(struct nos_exec *x, struct nos_event *ev)
{
    if (ev == NULL || !ev->queued) {
        x->errors++;
        return false;
    }
    if (ev->next != NULL) {
        ev->next->delta += ev->delta;
        ev->next->prev = ev->prev;
    }
    if (ev->prev != NULL)
        ev->prev->next = ev->next;
    else
        x->calloutq = ev->next;
    ev->prev = ev->next = NULL;
    ev->queued = false;
    return true;
}

void nos_update(struct nos_exec *x)
{
    uint32_t t = x->now(x->ctx);
    if (x->calloutq != NULL)
        x->calloutq->delta -= (int32_t)(t - x->time);
    x->time = t;
}

int32_t nos_due(const struct nos_exec *x, const struct nos_event *ev)
{
    int32_t t = 0;
    for (const struct nos_event *p = x->calloutq; p != NULL; p = p->next) {
        t += p->delta;
        if (p == ev)
            return t;
    }
    return 0;
}
