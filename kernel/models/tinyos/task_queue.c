/*
 * The FIFO task queue. Posting and taking are short PRIMASK sections: a post may come
 * from an interrupt handler while a task is being taken.
 */
#include <stddef.h>

#include "model_port.h"
#include "tinyos.h"

void tos_init(struct tos_sched *s)
{
    *s = (struct tos_sched){0};
}

bool tos_post(struct tos_sched *s, tos_task_fn fn, void *arg)
{
    uint32_t irq = model_irq_save();
    bool ok = fn != NULL && s->count < TOS_QUEUE_LEN;
    if (ok) {
        uint32_t tail = (s->head + s->count) % TOS_QUEUE_LEN;
        s->q[tail].fn = fn;
        s->q[tail].arg = arg;
        s->count++;
        s->posted++;
    } else {
        s->rejected++;
    }
    model_irq_restore(irq);
    return ok;
}

bool tos_run_next_task(struct tos_sched *s)
{
    uint32_t irq = model_irq_save();
    if (s->count == 0) {
        model_irq_restore(irq);
        return false;
    }
    tos_task_fn fn = s->q[s->head].fn;
    void *arg = s->q[s->head].arg;
    s->head = (s->head + 1u) % TOS_QUEUE_LEN;
    s->count--;
    model_irq_restore(irq);
    fn(arg);
    s->ran++;
    return true;
}

uint32_t tos_queued(const struct tos_sched *s)
{
    return s->count;
}
