/*
 * Fig. 1's control loop, one pass per call. Two changes from the figure, both needed for
 * it to be correct as printed:
 *  - an event is taken out of the queue before it executes (Unix's callout does the
 *    same), so a periodic job can put its own event back while it runs; the figure frees
 *    the entry after execute(), which would unlink the re-inserted event;
 *  - after each HARD job the walk restarts at the head: the figure's walk keeps a running
 *    sum t while the job may insert events and update_calloutq() shifts the first delta,
 *    so the sum no longer matches the list. Restarting runs the same set of jobs: every
 *    HARD job due, earliest first.
 */
#include <stddef.h>

#include "nos.h"

static void run(struct nos_exec *x, struct nos_event *ev, int32_t due)
{
    nos_remove(x, ev);
    if (due < 0) {
        ev->missed++;
        x->missed++;
        if ((uint32_t)-due > ev->max_lateness)
            ev->max_lateness = (uint32_t)-due;
    }
    ev->runs++;
    ev->execute(x, ev);
    nos_update(x);
}

static struct nos_event *first_due_hard(struct nos_exec *x, int32_t *due)
{
    int32_t t = 0;
    for (struct nos_event *p = x->calloutq; p != NULL; p = p->next) {
        t += p->delta;
        if (t > 0)
            return NULL;
        if (p->priority == NOS_HARD) {
            *due = t;
            return p;
        }
    }
    return NULL;
}

static unsigned lowest_line(uint32_t bits)
{
    unsigned n = 0;
    while ((bits & 1u) == 0u) {
        bits >>= 1;
        n++;
    }
    return n;
}

enum nos_step nos_pass(struct nos_exec *x)
{
    x->passes++;
    int32_t due;
    for (struct nos_event *ev; (ev = first_due_hard(x, &due)) != NULL;) {
        x->hard_runs++;
        run(x, ev, due);
    }

    uint32_t high = x->irq_status(x->ctx) & x->high_mask;
    if (high != 0u) {
        x->high_irqs++;
        x->handle_interrupt(x->ctx, lowest_line(high));
        nos_update(x);
        return NOS_STEP_HIGH_IRQ;
    }

    if (x->calloutq != NULL && x->calloutq->delta <= 0) {
        x->job_runs++;
        run(x, x->calloutq, x->calloutq->delta);
        return NOS_STEP_JOB;
    }

    uint32_t low = x->irq_status(x->ctx) & x->low_mask;
    if (low != 0u) {
        x->low_irqs++;
        x->handle_interrupt(x->ctx, lowest_line(low));
        nos_update(x);
        return NOS_STEP_LOW_IRQ;
    }

    x->sleeps++;
    x->sleep(x->ctx, x->calloutq != NULL ? x->calloutq->delta : NOS_INDEFINITE);
    nos_update(x);
    return NOS_STEP_SLEPT;
}
