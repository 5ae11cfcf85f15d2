/*
 * A minimal preemptive round-robin scheduler that keeps its current task the
 * way FreeRTOS does (a global `pxCurrentTCB` pointing at a `TCB_t` whose
 * `pcTaskName` is an inline char array), so that cairn-sim's `--rtos freertos`
 * can follow it. SysTick pends PendSV every TICK_CYCLES cycles; PendSV saves
 * r4-r11 on the outgoing process stack and switches to the next task. Three
 * tasks (alpha, beta, gamma) do 1, 2 and 3 units of work per slice-sized
 * chunk; a task that has finished yields at once.
 *
 * Second copy of the pointer, for the generic form: `rr_kernel.cpus[1].current`
 * (a member of an array element of a struct, like Zephyr's
 * `_kernel.cpus[0].current`); each TCB also carries `pcLabel`, a pointer to a
 * string, for the pointer-name case. `xSchedulerRunning` (static, as in
 * FreeRTOS) only becomes 1 after some start-up work done with pxCurrentTCB
 * already set, for the `freertos` built-in's running gate.
 *
 * The transcript reports each task's switch-in count and the tick count, which
 * the simulator's trace must match (python/tests/test_rtos.py,
 * sim/cairn-sim/tests/rtos.rs). Timing-dependent: cairn-sim only.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cpu.h"
#include "scb.h"
#include "semihost.h"
#include "startup.h"
#include "systick.h"
#include "uart.h"

#define TICK_CYCLES 4000u
#define N_TASKS 3
#define STACK_WORDS 128

typedef struct tskTaskControlBlock {
    volatile uint32_t *pxTopOfStack; /* saved PSP while switched out */
    const char *pcLabel;             /* another name, through a pointer */
    uint32_t ulRuns;                 /* times switched in */
    uint32_t ulWork;                 /* work chunks still to do */
    char pcTaskName[10];
} TCB_t;

TCB_t *volatile pxCurrentTCB;
/* Like FreeRTOS: 0 until the scheduler starts (the first task is current before that). */
static volatile long xSchedulerRunning;

struct rr_cpu {
    uint32_t nested;
    TCB_t *current;
};
struct rr_kernel {
    uint32_t ticks;
    struct rr_cpu cpus[2];
};
struct rr_kernel rr_kernel;

static TCB_t tcbs[N_TASKS] = {
    {0, "lbl-alpha", 0, 6, "alpha"},
    {0, "lbl-beta", 0, 12, "beta"},
    {0, "lbl-gamma", 0, 18, "gamma"},
};
static uint64_t stacks[N_TASKS][STACK_WORDS / 2];
static volatile uint32_t finished;
static volatile uint32_t sink;

void systick_handler(void)
{
    rr_kernel.ticks++;
    SCB_ICSR = ICSR_PENDSVSET;
}

static void yield(void)
{
    SCB_ICSR = ICSR_PENDSVSET;
    cpu_sync();
}

/* Called by PendSV with the outgoing task's saved stack pointer; returns the
 * incoming one. The store to pxCurrentTCB is the switch the simulator sees. */
__attribute__((used)) uint32_t rr_switch(uint32_t sp)
{
    TCB_t *cur = pxCurrentTCB;
    cur->pxTopOfStack = (volatile uint32_t *)sp;
    TCB_t *next = &tcbs[(uint32_t)(cur - tcbs + 1) % N_TASKS];
    next->ulRuns++;
    pxCurrentTCB = next;
    rr_kernel.cpus[1].current = next;
    return (uint32_t)next->pxTopOfStack;
}

/* Saved context on a process stack (low to high address): r4-r7, r8-r11,
 * then the hardware frame r0-r3, r12, lr, pc, xpsr. */
__attribute__((naked)) void pendsv_handler(void)
{
    __asm__ volatile(
        "mrs   r0, psp\n\t"
        "subs  r0, #32\n\t"
        "mov   r1, r0\n\t"
        "stmia r1!, {r4-r7}\n\t"
        "mov   r4, r8\n\t"
        "mov   r5, r9\n\t"
        "mov   r6, r10\n\t"
        "mov   r7, r11\n\t"
        "stmia r1!, {r4-r7}\n\t"
        "push  {r2, lr}\n\t"
        "bl    rr_switch\n\t"
        "pop   {r2, r3}\n\t"
        "adds  r0, #16\n\t"
        "ldmia r0!, {r4-r7}\n\t"
        "mov   r8, r4\n\t"
        "mov   r9, r5\n\t"
        "mov   r10, r6\n\t"
        "mov   r11, r7\n\t"
        "msr   psp, r0\n\t"
        "subs  r0, #32\n\t"
        "ldmia r0!, {r4-r7}\n\t"
        "bx    r3\n\t");
}

static void work_chunk(void)
{
    for (uint32_t i = 0; i < 200; i++)
        sink += i;
}

/* Start-up work done with pxCurrentTCB already set but the scheduler not yet
 * running (FreeRTOS does the same between xTaskCreate and vTaskStartScheduler). */
static void spin_before_start(void)
{
    for (uint32_t i = 0; i < 50; i++)
        sink += i;
}

static void report(void)
{
    for (unsigned i = 0; i < N_TASKS; i++) {
        uart_puts("task ");
        uart_puts(tcbs[i].pcTaskName);
        uart_puts(" runs=");
        uart_put_udec(tcbs[i].ulRuns);
        uart_puts("\n");
    }
    uart_puts("ticks=");
    uart_put_udec(rr_kernel.ticks);
    uart_puts("\n");
}

/* Every task runs this; it finds its own TCB through pxCurrentTCB. */
static void task_main(void)
{
    TCB_t *self = pxCurrentTCB;
    while (self->ulWork > 0) {
        work_chunk();
        self->ulWork--;
    }
    cpu_irq_disable();
    uint32_t done = ++finished;
    cpu_irq_enable();
    if (done == N_TASKS) {
        SYST_CSR = 0;
        report();
        check_eq("finished", finished, N_TASKS);
        sh_exit((uint32_t)test_end());
    }
    for (;;)
        yield();
}

static void trap_return(void)
{
    sh_exit(98);
}

int main(void)
{
    test_begin("rtos_tasks");
    scb_set_pendsv_priority(0xFF);
    scb_set_systick_priority(0x80);
    /* Tasks 1 and 2 start from a frame PendSV restores; task 0 starts here. */
    for (unsigned i = 1; i < N_TASKS; i++) {
        uint32_t *sp = (uint32_t *)&stacks[i][STACK_WORDS / 2] - 16;
        for (unsigned k = 0; k < 16; k++)
            sp[k] = 0;
        sp[8 + 5] = (uint32_t)trap_return;        /* lr */
        sp[8 + 6] = (uint32_t)task_main & ~1u;    /* pc */
        sp[8 + 7] = 0x01000000u;                  /* xpsr: Thumb */
        tcbs[i].pxTopOfStack = sp;
    }
    tcbs[0].ulRuns = 1;
    pxCurrentTCB = &tcbs[0];
    rr_kernel.cpus[1].current = &tcbs[0];
    spin_before_start();
    xSchedulerRunning = 1;
    SYST_RVR = TICK_CYCLES - 1;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
    cpu_run_on_psp(task_main, (uint32_t *)&stacks[0][STACK_WORDS / 2]);
    return 97;
}
