/*
 * A periodic task set for the breakdown-utilisation experiment on cairn-sim
 * (docs/analysis.md, "The simulated check"): build/fw/taskset-{fp,edf,csd2,csd3}.elf, the same
 * code under each scheduling policy (docs/policies.md). N message tasks, each released by a
 * periodic virtual timer; each job spins a calibrated C_i cycles and then writes
 * (i << 24) | job to output port 0, so the simulator's I/O log holds every completion with its
 * exact cycle. Deadlines are implicit (D_i = T_i) and judged in Python from that log
 * (python/cairn/emeralds/taskset.py), never by this firmware.
 *
 * The parameters come from the scenario, so a sweep needs no rebuild: IN[0] = N at 0 s, then
 * task i's period (IN[1], cycles), busy cycles (IN[2]) and level | queue << 8 (IN[3]) delivered
 * together, one task after another, after the calibration is done. Levels are the tasks'
 * priorities (fixed priority) or SRP preemption levels (EDF, CSD); the queue matters to CSD only.
 *
 * Every task is released at one instant (the critical instant of the analysis): the timers
 * are set with interrupts masked, all to expire at one counter value `base`. OUT[1] = base and
 * OUT[2] = the counter read just before that store let Python map the counter onto the
 * simulator's cycles.
 */
#include <stdint.h>

#include "cairn/arch.h"
#include "cairn/arch_timer.h"
#include "cairn/cairn.h"
#include "cairn/policy.h"

#include "../../core/kernel.h" /* cairn__timer_set_first: one first expiry for every task */

#include "cairn_armv6m.h"
#include "cairn_io.h"
#include "semihost.h"
#include "uart.h"

#define MAX_SET 15u
#define CAL_TURNS 1024u
#define TASK_PORTS 0xEu        /* IN[1..3]: one task's parameters */
#define RELEASE_LEAD 50000u    /* counter ticks from the decision to the common release */
#define JOB_BITS 24u

struct periodic {
    uint32_t period, turns, index, job;
};

static struct periodic set[MAX_SET];
static uint32_t turn_cycles_x256; /* one turn of spin(), in 1/256 cycle */
static uint64_t heap[768];

static void spin(uint32_t turns)
{
    __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+l"(turns) : : "cc");
}

/* Not inlined: both calls must cost the same around the loop. */
__attribute__((noinline)) static uint32_t time_spin(uint32_t turns)
{
    uint32_t t0 = arch_timer_now();
    spin(turns);
    return arch_timer_now() - t0;
}

static uint32_t turns_of(uint32_t cycles)
{
    uint32_t turns = (uint32_t)(((uint64_t)cycles * 256u) / turn_cycles_x256);
    return turns > 0u ? turns : 1u;
}

static __attribute__((noreturn)) void fail(const char *why)
{
    uart_puts("taskset: ");
    uart_puts(why);
    uart_puts("\n");
    sh_exit(2);
}

static cairn_ret_t job(void *state, cairn_msg_t *msg)
{
    struct periodic *t = state;
    if (msg->port == CAIRN_PORT_TIMEOUT0) {
        t->job++;
        spin(t->turns);
        CAIRN_PORT_OUT(0) = (t->index << JOB_BITS) | t->job;
    }
    return CAIRN_OK;
}

static void calibrate(void)
{
    uint32_t s = arch_irq_save();
    uint32_t once = time_spin(CAL_TURNS);
    uint32_t twice = time_spin(2u * CAL_TURNS);
    arch_irq_restore(s);
    turn_cycles_x256 = (twice - once) * 256u / CAL_TURNS;
}

/* Task i's parameters, waiting for their delivery. */
static void read_task(uint32_t i)
{
    while ((CAIRN_PORT_IN_STATUS & TASK_PORTS) != TASK_PORTS) {
    }
    uint32_t period = CAIRN_PORT_IN(1), busy = CAIRN_PORT_IN(2), lq = CAIRN_PORT_IN(3);
    CAIRN_PORT_IN_CLEAR = TASK_PORTS;
    uint32_t level = lq & 0xFFu, queue = lq >> 8;
    if (period - 1u >= CAIRN_TIMER_MAX_TICKS || busy == 0u || level == 0u)
        fail("a task needs 0 < period < 2^31 cycles, busy cycles > 0 and a level > 0");
    cairn_task_id_t id = (cairn_task_id_t)(i + 1u);
    set[i] = (struct periodic){.period = period, .turns = turns_of(busy), .index = i};
    if (cairn_task_create(id, job, &set[i], (cairn_prio_t)level, 0, 0, 0) != CAIRN_OK)
        fail("task create");
#if CAIRN_POLICY != CAIRN_POLICY_FP
    if (cairn_task_deadline(id, period) != CAIRN_OK)
        fail("task deadline");
#endif
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    if (queue >= CAIRN_CSD_K || cairn_task_queue(id, (uint8_t)queue) != CAIRN_OK)
        fail("queue: must be below CAIRN_CSD_K");
#else
    (void)queue;
#endif
    if (cairn_task_init(id, 0, 0) != CAIRN_OK)
        fail("task init");
}

int main(void)
{
    if (!(CAIRN_PORT_IN_STATUS & 1u))
        fail("no task count on IN[0] (run with a scenario from python -m cairn.emeralds)");
    uint32_t n = CAIRN_PORT_IN(0);
    CAIRN_PORT_IN_CLEAR = 1u;
    if (n - 1u >= MAX_SET)
        fail("IN[0]: the task count must be 1..15");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    calibrate();
    for (uint32_t i = 0; i < n; i++)
        read_task(i);
    cairn_dispatch(); /* the INIT messages, before the first release */

    uint32_t s = arch_irq_save();
    uint32_t base = arch_timer_now() + RELEASE_LEAD;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t first = base - arch_timer_now();
        if (first - 1u >= RELEASE_LEAD ||
            cairn__timer_set_first((cairn_task_id_t)(i + 1u), 0, first, set[i].period) != CAIRN_OK)
            fail("the timers could not all be set for the common release");
    }
    uint32_t now = arch_timer_now();
    CAIRN_PORT_OUT(2) = now;
    CAIRN_PORT_OUT(1) = base;
    arch_irq_restore(s);
    for (;;)
        cairn_idle();
}
