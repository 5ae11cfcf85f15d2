/*
 * The MANTIS-like layer over Cairn threads (mantis.h): levels, suspend and resume, the
 * periodic sleep.
 */
#include "mantis.h"

#include "cairn/arch_timer.h"
#include "cairn/sched.h"
#include "cairn/sem.h"

struct mos_stats mos_stats;

/* A slot of the thread table: the thread's task ID (CAIRN_TASK_NONE: never used) and the
 * binary semaphore its resumes give. */
struct mos_thread {
    cairn_task_id_t id;
    cairn_sem_t resume;
};
static struct mos_thread table[MOS_THREADS];

static struct mos_thread *slot_of(cairn_task_id_t id)
{
    if (id == CAIRN_TASK_NONE)
        return 0;
    for (unsigned i = 0; i < MOS_THREADS; i++)
        if (table[i].id == id)
            return &table[i];
    return 0;
}

/* id's old slot, else one never used or whose thread has exited (its task is gone). */
static struct mos_thread *free_slot(cairn_task_id_t id)
{
    struct mos_thread *s = slot_of(id);
    for (unsigned i = 0; !s && i < MOS_THREADS; i++)
        if (table[i].id == CAIRN_TASK_NONE || !cairn_task_exists(table[i].id))
            s = &table[i];
    return s;
}

bool mos_level_prio(unsigned level, cairn_prio_t *prio)
{
    if (level >= MOS_LEVELS) {
        mos_stats.errors++;
        return false;
    }
    *prio = (cairn_prio_t)(MOS_CAIRN_PRIO_BASE + level);
    return true;
}

cairn_ret_t mos_thread_new(cairn_task_id_t id, const char *name, cairn_thread_fn_t fn, void *arg,
                           void *stack, size_t stack_size, unsigned level)
{
    cairn_prio_t prio;
    if (!mos_level_prio(level, &prio))
        return CAIRN_EINVAL;
    cairn_ret_t r;
    struct mos_thread *s;
    if (cairn_task_exists(id)) {
        r = cairn_thread_create(id, name, fn, arg, stack, stack_size, prio, NULL, 0); /* refused */
    } else if ((s = free_slot(id)) == 0) {
        r = CAIRN_EFULL;
    } else {
        /* The semaphore before the thread: the thread runs at once when it outranks the
         * caller, and may suspend. */
        s->id = id;
        (void)cairn_sem_init(&s->resume, 0, 1);
        r = cairn_thread_create(id, name, fn, arg, stack, stack_size, prio, NULL, 0);
        if (r != CAIRN_OK)
            s->id = CAIRN_TASK_NONE;
    }
    if (r == CAIRN_OK)
        mos_stats.created++;
    else
        mos_stats.errors++;
    return r;
}

cairn_ret_t mos_thread_suspend(void)
{
    struct mos_thread *s = slot_of(cairn_thread_self());
    if (!s)
        return CAIRN_EINVAL;
    return cairn_sem_take(&s->resume, CAIRN_THREAD_FOREVER);
}

bool mos_thread_resume(cairn_task_id_t id)
{
    struct mos_thread *s = slot_of(id);
    if (!s || !cairn_task_exists(id)) {
        mos_stats.resume_lost++;
        return false;
    }
    mos_stats.resumed++;
    if (cairn_sem_give(&s->resume) == CAIRN_EFULL)
        mos_stats.resume_coalesced++; /* one is pending: the thread runs once for both */
    return true;
}

bool mos_period_init(struct mos_period *p, uint32_t start, uint32_t period)
{
    if (period == 0 || period > CAIRN_HWTIMER_HALF) {
        mos_stats.errors++;
        return false;
    }
    p->next = start & CAIRN_HWTIMER_MASK;
    p->period = period;
    p->overruns = 0;
    return true;
}

uint32_t mos_period_advance(struct mos_period *p, uint32_t now)
{
    p->next = (p->next + p->period) & CAIRN_HWTIMER_MASK;
    uint32_t ahead = (p->next - now) & CAIRN_HWTIMER_MASK;
    if (ahead > CAIRN_HWTIMER_HALF) { /* behind now: run late, stay on the grid */
        p->overruns++;
        return 0;
    }
    return ahead;
}

cairn_ret_t mos_period_sleep(struct mos_period *p)
{
    return cairn_thread_sleep(mos_period_advance(p, arch_timer_now()));
}
