/*
 * Cairn OS armv6m port: a storm of posting interrupts against a task whose queue never
 * empties (every job posts the next), on real exception hardware (cairn-sim and QEMU).
 *
 * SysTick comes every PERIOD_MIN to PERIOD_MIN + PERIOD_SPAN cycles, a period that moves on
 * each time, so over the run its requests land on every instruction of the dispatch loop,
 * between S's handlers too (slower than S's jobs, so the pool never fills).
 * Each posts S a message from the interrupt. S outranks the idle level, so the interrupt's
 * end would pend PendSV; but when the dispatch loop is between two of S's handlers it
 * dequeues next anyway, and a nested dispatch there never returned while S stayed
 * saturated: one more level of stack per such interrupt, until the stack ran into .bss.
 * The check: the lowest stack pointer any interrupt saw stays within STACK_BOUND bytes of
 * main's, and every message ran. Past STACK_LIMIT the storm stops (the test fails instead
 * of overwriting the kernel). The transcript does not depend on timing, but for one line:
 * on cairn-sim (cycle-exact) many interrupts came during the jobs; QEMU's SysTick runs
 * slower against its instruction count.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "scb.h"
#include "systick.h"

enum { S = 2 };
#define JOBS 3000u
/* main's call into the kernel, one dispatch loop, S's handler, an interrupt and its
 * PendSV's fabricated frame, with room to spare; a nested dispatch costs about 80. */
#define STACK_BOUND 512u
#define STACK_LIMIT 2048u
#define STORMS_MAX (4u * JOBS)
#define PERIOD_MIN 1500u
#define PERIOD_SPAN 1001u

static uint64_t heap[256];
static volatile uint32_t jobs, irq_runs, posted, refused, storms, stopped;
static volatile uintptr_t main_sp, lowest_sp = UINTPTR_MAX;

static inline uintptr_t sp_now(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

static void storm_arm(uint32_t period)
{
    SYST_RVR = period;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

void systick_handler(void)
{
    uintptr_t sp = sp_now();
    if (sp < lowest_sp)
        lowest_sp = sp;
    if (main_sp - sp > STACK_LIMIT) {
        SYST_CSR = 0;
        stopped = 1;
        return;
    }
    if (++storms >= STORMS_MAX) {
        SYST_CSR = 0; /* S stopped posting its jobs: the run ends, its checks fail */
        stopped = 1;
    }
    SYST_RVR = PERIOD_MIN + (storms * 37u) % PERIOD_SPAN; /* from the next period on */
    cairn_isr_enter(15);
    if (cairn_post(S, CAIRN_PORT(1), 0, 0) == CAIRN_OK)
        posted++;
    else
        refused++;
    cairn_isr_exit();
}

static cairn_ret_t s_handler(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0)) {
        if (++jobs < JOBS)
            refused += cairn_post(S, CAIRN_PORT(0), 0, 0) != CAIRN_OK;
        else
            SYST_CSR = 0; /* the last job: the storm ends with it */
    } else if (msg->port == CAIRN_PORT(1)) {
        irq_runs++;
    }
    return CAIRN_OK;
}

int main(void)
{
    test_begin("armv6m-dispatch-storm");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    check_eq("create S", (uint32_t)cairn_task_create(S, s_handler, 0, 3, 0, 0, 0), 0);
    check_eq("init S", (uint32_t)cairn_task_init(S, 0, 0), 0);

    main_sp = sp_now();
    storm_arm(PERIOD_MIN);
    check_eq("first job", (uint32_t)cairn_post(S, CAIRN_PORT(0), 0, 0), 0);
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR;
    cairn_dispatch();

    check_eq("jobs", jobs, JOBS);
    check_eq("posts refused (the pool full)", refused, 0);
    check_yes("the storm ran to the end", !stopped);
    check_yes("stack within the bound below main's", main_sp - lowest_sp <= STACK_BOUND);
    check_yes("every posted message ran", irq_runs == posted);
    check_eq("S is not on the stack", (uint32_t)cairn_current_task(), CAIRN_TASK_NONE);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    say(storms > JOBS / 4u ? "interrupts during the jobs: many" : "interrupts during the jobs: few");
    return test_end();
}
