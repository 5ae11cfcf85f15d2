/*
 * Virtual timers over one hardware timer, kept in a list by expiry. Times are 32-bit
 * ticks compared by signed difference, so they may wrap.
 */
#include <stddef.h>

#include "model_port.h"
#include "tinyos.h"

static bool before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

static void unlink(struct tos_timers *t, struct tos_timer *tm)
{
    for (struct tos_timer **p = &t->list; *p != NULL; p = &(*p)->next) {
        if (*p == tm) {
            *p = tm->next;
            break;
        }
    }
    tm->next = NULL;
    tm->active = false;
}

static void link_sorted(struct tos_timers *t, struct tos_timer *tm)
{
    struct tos_timer **p = &t->list;
    while (*p != NULL && !before(tm->expiry, (*p)->expiry))
        p = &(*p)->next; /* equal expiries keep start order */
    tm->next = *p;
    *p = tm;
    tm->active = true;
}

static void rearm(struct tos_timers *t)
{
    if (t->arm != NULL)
        t->arm(t->ctx, t->list != NULL, t->list != NULL ? t->list->expiry : 0u);
}

void tos_timers_init(struct tos_timers *t, struct tos_sched *s,
                     void (*arm)(void *ctx, bool armed, uint32_t at), void *ctx)
{
    *t = (struct tos_timers){.sched = s, .arm = arm, .ctx = ctx};
}

bool tos_timer_start(struct tos_timers *t, struct tos_timer *tm, uint32_t now, uint32_t delay,
                     uint32_t period, tos_task_fn fn, void *arg)
{
    if (tm == NULL || fn == NULL)
        return false;
    uint32_t irq = model_irq_save();
    if (tm->active)
        unlink(t, tm);
    tm->expiry = now + delay;
    tm->period = period;
    tm->fn = fn;
    tm->arg = arg;
    link_sorted(t, tm);
    rearm(t);
    model_irq_restore(irq);
    return true;
}

void tos_timer_stop(struct tos_timers *t, struct tos_timer *tm)
{
    uint32_t irq = model_irq_save();
    if (tm->active)
        unlink(t, tm);
    rearm(t);
    model_irq_restore(irq);
}

void tos_timers_fired(struct tos_timers *t, uint32_t now)
{
    uint32_t irq = model_irq_save();
    while (t->list != NULL && !before(now, t->list->expiry)) {
        struct tos_timer *tm = t->list;
        unlink(t, tm);
        tm->fired++;
        if (!tos_post(t->sched, tm->fn, tm->arg))
            tm->lost++;
        if (tm->period > 0u) {
            tm->expiry += tm->period;
            link_sorted(t, tm);
        }
    }
    rearm(t);
    model_irq_restore(irq);
}
