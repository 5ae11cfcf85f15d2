/*
 * The MANTIS-like layer over Cairn threads (mantis.h): levels, suspend and resume, the
 * periodic sleep.
 */
#include "mantis.h"

#include "cairn/arch_timer.h"
#include "cairn/msg.h"

struct mos_stats mos_stats;

/* The port a resume arrives on; the thread only counts that something came. */
#define MOS_RESUME_PORT CAIRN_PORT(0)

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
    cairn_ret_t r = cairn_thread_create(id, name, fn, arg, stack, stack_size, prio, NULL, 0);
    if (r == CAIRN_OK)
        mos_stats.created++;
    else
        mos_stats.errors++;
    return r;
}

cairn_ret_t mos_thread_suspend(void)
{
    cairn_msg_t m;
    return cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
}

bool mos_thread_resume(cairn_task_id_t id)
{
    if (cairn_post(id, MOS_RESUME_PORT, NULL, 0) != CAIRN_OK) {
        mos_stats.resume_lost++;
        return false;
    }
    mos_stats.resumed++;
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
