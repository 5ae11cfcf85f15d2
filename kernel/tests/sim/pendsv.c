/*
 * PendSV at the lowest priority: pended through ICSR.PENDSVSET, it runs only
 * once no other exception is active or pending at a higher priority. Then a
 * context switch between two thread stacks (the way an RTOS uses PendSV):
 * the handler saves r4-r11 on the outgoing process stack and restores them
 * from the incoming one.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "scb.h"
#include "semihost.h"
#include "startup.h"

static volatile uint32_t pendsv_runs;
static volatile uint32_t pendsv_ipsr;
static volatile uint32_t pendsv_exc_return;
static volatile uint32_t pendsv_set_in_handler;
__attribute__((used)) static volatile int switching; /* PendSV does context switches (read by the asm handler) */

static void pend_pendsv(void)
{
    SCB_ICSR = ICSR_PENDSVSET;
    cpu_sync();
}

/* PendSV outside the context-switch part (returns by exception return). */
__attribute__((used))
static void pendsv_plain(uint32_t exc_return)
{
    pendsv_runs++;
    pendsv_ipsr = cpu_get_ipsr();
    pendsv_exc_return = exc_return;
    pendsv_set_in_handler = (SCB_ICSR & ICSR_PENDSVSET) != 0;
    seq_add("P");
}

/* ---- context switch ---- */

#define N_TASKS 2
static uint32_t task_sp[N_TASKS];
static uint32_t current;
static uint32_t switches;

/* Called by the PendSV handler with the outgoing task's saved stack pointer;
 * returns the incoming one. */
__attribute__((used))
static uint32_t pendsv_switch(uint32_t sp)
{
    task_sp[current] = sp;
    current = (current + 1) % N_TASKS;
    switches++;
    return task_sp[current];
}

/* Saved context on a process stack (low to high address): r4-r7, r8-r11,
 * then the hardware frame r0-r3, r12, lr, pc, xpsr. */
__attribute__((naked)) void pendsv_handler(void)
{
    __asm__ volatile(
        "ldr  r0, =switching\n\t"
        "ldr  r0, [r0]\n\t"
        "cmp  r0, #0\n\t"
        "bne  1f\n\t"
        "mov  r0, lr\n\t"
        "ldr  r1, =pendsv_plain\n\t"
        "bx   r1\n"
        "1:\n\t"
        "mrs  r0, psp\n\t"
        "subs r0, #32\n\t"
        "mov  r1, r0\n\t"
        "stmia r1!, {r4-r7}\n\t"
        "mov  r4, r8\n\t"
        "mov  r5, r9\n\t"
        "mov  r6, r10\n\t"
        "mov  r7, r11\n\t"
        "stmia r1!, {r4-r7}\n\t"
        "push {r2, lr}\n\t"
        "bl   pendsv_switch\n\t"
        "pop  {r2, r3}\n\t"          /* r3 = EXC_RETURN */
        "adds r0, #16\n\t"
        "ldmia r0!, {r4-r7}\n\t"
        "mov  r8, r4\n\t"
        "mov  r9, r5\n\t"
        "mov  r10, r6\n\t"
        "mov  r11, r7\n\t"
        "msr  psp, r0\n\t"
        "subs r0, #32\n\t"
        "ldmia r0!, {r4-r7}\n\t"
        "bx   r3\n\t"
        ".ltorg\n");
}

/* Sets r4-r11 to seed+1..seed+8, yields (PendSV), and returns how many of
 * them differ afterwards. Preserves r4-r11 for its caller. */
__attribute__((naked)) static uint32_t yield_check_regs(uint32_t seed)
{
    (void)seed;
    __asm__ volatile(
        "push {r4-r7, lr}\n\t"
        "mov  r4, r8\n\t"
        "mov  r5, r9\n\t"
        "mov  r6, r10\n\t"
        "mov  r7, r11\n\t"
        "push {r4-r7}\n\t"
        "adds r1, r0, #5\n\t"
        "mov  r8, r1\n\t"
        "adds r1, r0, #6\n\t"
        "mov  r9, r1\n\t"
        "adds r1, r0, #7\n\t"
        "mov  r10, r1\n\t"
        "movs r1, r0\n\t"
        "adds r1, #8\n\t"
        "mov  r11, r1\n\t"
        "adds r4, r0, #1\n\t"
        "adds r5, r0, #2\n\t"
        "adds r6, r0, #3\n\t"
        "adds r7, r0, #4\n\t"
        "ldr  r1, =0xE000ED04\n\t"   /* ICSR */
        "ldr  r2, =0x10000000\n\t"   /* PENDSVSET */
        "str  r2, [r1]\n\t"
        "dsb\n\t"
        "isb\n\t"
        "movs r3, #0\n\t"
        "adds r1, r0, #1\n\t"
        "cmp  r4, r1\n\t"
        "beq  1f\n\t"
        "adds r3, #1\n"
        "1:\n\t"
        "adds r1, r0, #2\n\t"
        "cmp  r5, r1\n\t"
        "beq  2f\n\t"
        "adds r3, #1\n"
        "2:\n\t"
        "adds r1, r0, #3\n\t"
        "cmp  r6, r1\n\t"
        "beq  3f\n\t"
        "adds r3, #1\n"
        "3:\n\t"
        "adds r1, r0, #4\n\t"
        "cmp  r7, r1\n\t"
        "beq  4f\n\t"
        "adds r3, #1\n"
        "4:\n\t"
        "adds r1, r0, #5\n\t"
        "cmp  r8, r1\n\t"
        "beq  5f\n\t"
        "adds r3, #1\n"
        "5:\n\t"
        "adds r1, r0, #6\n\t"
        "cmp  r9, r1\n\t"
        "beq  6f\n\t"
        "adds r3, #1\n"
        "6:\n\t"
        "adds r1, r0, #7\n\t"
        "cmp  r10, r1\n\t"
        "beq  7f\n\t"
        "adds r3, #1\n"
        "7:\n\t"
        "movs r1, r0\n\t"
        "adds r1, #8\n\t"
        "cmp  r11, r1\n\t"
        "beq  8f\n\t"
        "adds r3, #1\n"
        "8:\n\t"
        "mov  r0, r3\n\t"
        "pop  {r4-r7}\n\t"
        "mov  r8, r4\n\t"
        "mov  r9, r5\n\t"
        "mov  r10, r6\n\t"
        "mov  r11, r7\n\t"
        "pop  {r4-r7, pc}\n\t"
        ".ltorg\n");
}

static void yield(void)
{
    pend_pendsv();
}

static uint64_t stack_a[128];
static uint64_t stack_b[128];
static volatile uint32_t regs_bad_a = 99, regs_bad_b = 99;
static volatile uint32_t task_b_done;

static void task_b(void)
{
    static const char *const steps[] = {"B1", "B2", "B3"};
    for (unsigned i = 0; i < 3; i++) {
        seq_add(steps[i]);
        yield();
    }
    regs_bad_b = yield_check_regs(0x2000);
    task_b_done = 1;
    for (;;)
        yield();
}

static void task_exit(void)
{
    say("FAIL task returned");
    sh_exit(1);
}

static void task_a(void)
{
    static const char *const steps[] = {"A1", "A2", "A3"};
    for (unsigned i = 0; i < 3; i++) {
        seq_add(steps[i]);
        yield();
    }
    regs_bad_a = yield_check_regs(0x1000);
    while (!task_b_done)
        yield();
    check_eq_hex("task a control", cpu_get_control(), CONTROL_SPSEL);
    check_yes("task a sp in its stack",
              cpu_get_sp() >= (uint32_t)(uintptr_t)stack_a &&
                  cpu_get_sp() < (uint32_t)(uintptr_t)&stack_a[128]);
}

/* Initial context of task B: r4-r11, then a hardware frame that "returns"
 * to task_b in Thread mode. */
static uint32_t make_initial_context(uint64_t *stack, unsigned words64, void (*entry)(void))
{
    uint32_t *top = (uint32_t *)&stack[words64];
    uint32_t *sp = top - 16;
    for (unsigned i = 0; i < 8; i++)
        sp[i] = 0x4000u + i;                                  /* r4-r11 */
    sp[8] = 0;                                                /* r0 */
    sp[9] = 0;                                                /* r1 */
    sp[10] = 0;                                               /* r2 */
    sp[11] = 0;                                               /* r3 */
    sp[12] = 0;                                               /* r12 */
    sp[13] = (uint32_t)(uintptr_t)task_exit;                  /* lr */
    sp[14] = (uint32_t)(uintptr_t)entry & ~1u;                /* pc */
    sp[15] = XPSR_T;                                          /* xpsr */
    return (uint32_t)(uintptr_t)sp;
}

/* ---- ordering with other exceptions ---- */

void irq24_handler(void) /* priority 0x40 */
{
    seq_add("H+");
    SCB_ICSR = ICSR_PENDSVSET;
    NVIC_ISPR = 1u << IRQ_SOFT1;
    cpu_sync();
    seq_add("H-");
}

void irq25_handler(void) /* priority 0x80 */
{
    seq_add("L+");
    seq_add("L-");
}

int main(void)
{
    test_begin("pendsv");

    scb_set_pendsv_priority(NVIC_PRIO_LOWEST);
    check_eq_hex("pendsv priority", (SCB_SHPR3 >> 16) & 0xFFu, 0xC0);
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_HIGH);
    nvic_set_priority(IRQ_SOFT1, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    nvic_enable(IRQ_SOFT1);

    /* Pended from thread mode: runs at once. */
    seq_reset();
    pend_pendsv();
    check_str("pendsv from thread", seq_get(), "P");
    check_eq("pendsv ipsr", pendsv_ipsr, EXC_PENDSV);
    check_eq_hex("pendsv exc_return", pendsv_exc_return, EXC_RETURN_THREAD_MSP);
    check_eq("pendsvset clear in handler", pendsv_set_in_handler, 0);

    /* PENDSVSET/PENDSVCLR with PRIMASK set. */
    seq_reset();
    cpu_irq_disable();
    pend_pendsv();
    check_eq("icsr pendsvset reads 1", (SCB_ICSR & ICSR_PENDSVSET) != 0, 1);
    check_eq("vectpending", ICSR_VECTPENDING(SCB_ICSR), EXC_PENDSV);
    SCB_ICSR = ICSR_PENDSVCLR;
    cpu_sync();
    check_eq("icsr pendsvset after pendsvclr", (SCB_ICSR & ICSR_PENDSVSET) != 0, 0);
    check_eq("vectpending after pendsvclr", ICSR_VECTPENDING(SCB_ICSR), 0);
    cpu_irq_enable();
    check_str("cleared pendsv does not run", seq_get(), "");

    /* Pended inside a higher-priority handler, which also pends a
     * middle-priority IRQ: PendSV runs last. */
    seq_reset();
    NVIC_ISPR = 1u << IRQ_SOFT0;
    cpu_sync();
    check_str("pendsv after handlers", seq_get(), "H+ H- L+ L- P");

    /* Pended twice before it runs: runs once. */
    seq_reset();
    cpu_irq_disable();
    pend_pendsv();
    pend_pendsv();
    cpu_irq_enable();
    check_str("pended twice runs once", seq_get(), "P");

    /* Context switch between two process stacks. */
    seq_reset();
    task_sp[1] = make_initial_context(stack_b, 128, task_b);
    current = 0;
    switches = 0;
    switching = 1;
    cpu_run_on_psp(task_a, (uint32_t *)&stack_a[128]);
    switching = 0;
    check_str("task order", seq_get(), "A1 B1 A2 B2 A3 B3");
    check_eq("regs preserved task a (mismatches)", regs_bad_a, 0);
    check_eq("regs preserved task b (mismatches)", regs_bad_b, 0);
    check_eq("switches", switches, 10);
    check_eq_hex("control after tasks", cpu_get_control(), 0);

    return test_end();
}
