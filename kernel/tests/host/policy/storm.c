#include "storm.h"

#include "cairn/arch_timer.h"
#include "cairn/policy.h"
#include "hwtimer.h"
#include "one_stack.h"

static uint32_t lcg;
static unsigned ntasks;
static struct storm_counts counts;

static uint32_t rnd(uint32_t n)
{
    lcg = lcg * 1103515245u + 12345u;
    return (lcg >> 16) % n;
}

static void storm_hook(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT)
        return;
    counts.handled++;
    unsigned d = assert_one_stack();
    if (d > counts.max_depth)
        counts.max_depth = d;
    if (rnd(3) == 0 && counts.sent < 400) {
        cairn_task_id_t to = (cairn_task_id_t)(1 + rnd(ntasks));
        cairn_ret_t ret = rnd(2) ? cairn_post(to, CAIRN_PORT(0), NULL, 0)
                                 : cairn_post_deadline(to, CAIRN_PORT(0), NULL, 0, 1 + rnd(500));
        if (ret == CAIRN_OK)
            counts.sent++;
    }
}

static void isr_storm(void *arg)
{
    (void)arg;
    for (unsigned i = rnd(4); i > 0; i--)
        if (cairn_post((cairn_task_id_t)(1 + rnd(ntasks)), CAIRN_PORT(0), NULL, 0) == CAIRN_OK)
            counts.sent++;
}

static void storm_isr_hook(struct rec *r, cairn_msg_t *msg)
{
    storm_hook(r, msg);
    if (msg->port != CAIRN_PORT_INIT && rnd(4) == 0)
        ktest_irq(isr_storm, NULL);
}

void storm_start(unsigned tasks, uint32_t seed)
{
    ntasks = tasks;
    lcg = seed;
    counts = (struct storm_counts){0};
}

rec_hook_t storm_hook_of(unsigned i)
{
    return i % 2 ? storm_isr_hook : storm_hook;
}

struct storm_counts storm_run(unsigned rounds)
{
    counts = (struct storm_counts){0};
    for (unsigned round = 0; round < rounds; round++) {
        host_timer_set(arch_timer_now() + rnd(100));
        ktest_irq(isr_storm, NULL);
        cairn_dispatch();
    }
    return counts;
}
