/*
 * Exception priorities and preemption on the NVIC.
 *
 * Five software-pended interrupts (IRQ 24..28, no device behind them) named
 * A..E with priorities A=0xC0, B=0x80, C=0x40, D=0x00, E=0x80. Each handler
 * logs "X+" on entry and "X-" on exit and may pend other IRQs on entry, so
 * the log shows the order in which the NVIC ran them: nesting (higher
 * preempts lower), no preemption at equal priority, tail-chaining order,
 * PRIMASK, ICER/ICPR, IPSR and ICSR.VECTACTIVE inside handlers, and a
 * HardFault from UDF that the handler skips by patching the stacked PC.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "semihost.h"
#include "scb.h"
#include "startup.h"

#define N_SOFT 5
static const char *const name_enter[N_SOFT] = {"A+", "B+", "C+", "D+", "E+"};
static const char *const name_leave[N_SOFT] = {"A-", "B-", "C-", "D-", "E-"};
static const uint32_t prio[N_SOFT] = {0xC0, 0x80, 0x40, 0x00, 0x80};

#define A (1u << 0)
#define B (1u << 1)
#define C (1u << 2)
#define D (1u << 3)
#define E (1u << 4)

static volatile uint32_t pend_on_entry[N_SOFT]; /* bit mask of A..E, used once */
static volatile uint32_t runs[N_SOFT];
static volatile uint32_t seen_ipsr[N_SOFT];
static volatile uint32_t seen_vectactive[N_SOFT];
static volatile int udf_in_d;

static unsigned soft_irq(unsigned i)
{
    return IRQ_SOFT0 + i; /* A..D = IRQ 24..27, E = IRQ 28 */
}

static uint32_t soft_mask_to_ispr(uint32_t mask)
{
    return mask << IRQ_SOFT0;
}

static void pend(uint32_t mask)
{
    NVIC_ISPR = soft_mask_to_ispr(mask);
    cpu_sync();
}

static void soft_handler(unsigned i)
{
    seq_add(name_enter[i]);
    runs[i]++;
    seen_ipsr[i] = cpu_get_ipsr();
    seen_vectactive[i] = ICSR_VECTACTIVE(SCB_ICSR);
    uint32_t m = pend_on_entry[i];
    pend_on_entry[i] = 0;
    if (m)
        pend(m);
    if (i == 3 && udf_in_d)
        __asm__ volatile("udf #0x44" ::: "memory");
    seq_add(name_leave[i]);
}

void irq24_handler(void) { soft_handler(0); }
void irq25_handler(void) { soft_handler(1); }
void irq26_handler(void) { soft_handler(2); }
void irq27_handler(void) { soft_handler(3); }
void irq28_handler(void) { soft_handler(4); }

static void clear_runs(void)
{
    for (unsigned i = 0; i < N_SOFT; i++) {
        runs[i] = 0;
        pend_on_entry[i] = 0;
    }
    seq_reset();
}

/* ---- HardFault from UDF ---- */

static volatile uint32_t hf_count;
static volatile uint32_t hf_ipsr;
static volatile uint32_t hf_insn;
static volatile uint32_t hf_exc_return;

__attribute__((used))
static void hardfault_c(struct exc_frame *f, uint32_t exc_return)
{
    hf_count++;
    hf_ipsr = cpu_get_ipsr();
    hf_exc_return = exc_return;
    hf_insn = *(const uint16_t *)f->pc;
    if ((hf_insn & 0xFF00u) != 0xDE00u || hf_count > 10) {
        say("FAIL hardfault not caused by udf");
        sh_exit(BOARD_EXIT_UNEXPECTED_EXCEPTION);
    }
    f->pc += 2; /* skip the 16-bit UDF */
}
CPU_FRAME_HANDLER(hardfault_handler, hardfault_c)

int main(void)
{
    test_begin("exceptions");

    /* Thread mode basics. */
    check_eq("thread ipsr", cpu_get_ipsr(), 0);
    check_eq("thread vectactive", ICSR_VECTACTIVE(SCB_ICSR), 0);
    check_eq("primask at reset", cpu_get_primask(), 0);
    check_eq_hex("vtor", SCB_VTOR, 0);
    check_eq_hex("cpuid implementer", SCB_CPUID >> 24, 0x41);

    for (unsigned i = 0; i < N_SOFT; i++) {
        nvic_set_priority(soft_irq(i), prio[i]);
        nvic_enable(soft_irq(i));
    }
    check_eq_hex("priority A", nvic_get_priority(soft_irq(0)), 0xC0);
    check_eq_hex("priority B", nvic_get_priority(soft_irq(1)), 0x80);
    check_eq_hex("priority C", nvic_get_priority(soft_irq(2)), 0x40);
    check_eq_hex("priority D", nvic_get_priority(soft_irq(3)), 0x00);
    check_eq_hex("iser soft bits", (NVIC_ISER >> IRQ_SOFT0) & 0x1Fu, 0x1F);

    /* A single interrupt pended from thread mode runs at once. */
    clear_runs();
    pend(A);
    check_str("pend from thread", seq_get(), "A+ A-");
    check_eq("ipsr in handler A", seen_ipsr[0], 16 + IRQ_SOFT0);
    check_eq("vectactive in handler A", seen_vectactive[0], 16 + IRQ_SOFT0);
    check_eq("ispr after handler", NVIC_ISPR, 0);

    /* Higher priority pended inside a handler preempts it. */
    clear_runs();
    pend_on_entry[1] = C;
    pend(B);
    check_str("higher preempts", seq_get(), "B+ C+ C- B-");
    check_eq("ipsr in nested C", seen_ipsr[2], 16 + IRQ_SOFT0 + 2);
    check_eq("vectactive in nested C", seen_vectactive[2], 16 + IRQ_SOFT0 + 2);

    /* Lower priority waits until the handler returns. */
    clear_runs();
    pend_on_entry[1] = A;
    pend(B);
    check_str("lower waits", seq_get(), "B+ B- A+ A-");

    /* Equal priority does not preempt. */
    clear_runs();
    pend_on_entry[1] = E;
    pend(B);
    check_str("equal does not preempt", seq_get(), "B+ B- E+ E-");

    /* Four levels of nesting. */
    clear_runs();
    pend_on_entry[0] = B;
    pend_on_entry[1] = C;
    pend_on_entry[2] = D;
    pend(A);
    check_str("nesting", seq_get(), "A+ B+ C+ D+ D- C- B- A-");

    /* A handler pends itself: it runs again after it returns. */
    clear_runs();
    pend_on_entry[2] = C;
    pend(C);
    check_str("self pend", seq_get(), "C+ C- C+ C-");

    /* Several pending while PRIMASK is set: taken in priority order,
     * tail-chained, when interrupts are enabled again. */
    clear_runs();
    cpu_irq_disable();
    check_eq("primask after cpsid", cpu_get_primask(), 1);
    pend(A);
    pend(C);
    pend(B);
    check_eq("held off by primask", runs[0] + runs[1] + runs[2], 0);
    check_eq_hex("ispr while masked", (NVIC_ISPR >> IRQ_SOFT0) & 0x1Fu, A | B | C);
    check_eq("vectpending while masked", ICSR_VECTPENDING(SCB_ICSR), 16 + IRQ_SOFT0 + 2);
    cpu_irq_enable();
    check_eq("primask after cpsie", cpu_get_primask(), 0);
    check_str("tail-chain order", seq_get(), "C+ C- B+ B- A+ A-");

    /* Equal priorities pending together: lower IRQ number first. */
    clear_runs();
    cpu_irq_disable();
    pend(E);
    pend(B);
    cpu_irq_enable();
    check_str("equal priority order", seq_get(), "B+ B- E+ E-");

    /* PRIMASK via MSR. */
    clear_runs();
    cpu_set_primask(1);
    pend(D);
    check_eq("msr primask holds off", runs[3], 0);
    cpu_set_primask(0);
    check_str("msr primask release", seq_get(), "D+ D-");

    /* ICER: a disabled interrupt stays pending and does not run. */
    clear_runs();
    nvic_disable(soft_irq(0));
    check_eq("iser after icer", nvic_is_enabled(soft_irq(0)), 0);
    pend(A);
    check_eq("disabled does not run", runs[0], 0);
    check_eq("disabled stays pending", nvic_is_pending(soft_irq(0)), 1);
    /* ICPR: clearing the pending bit discards it. */
    nvic_clear_pending(soft_irq(0));
    cpu_sync();
    check_eq("icpr clears pending", nvic_is_pending(soft_irq(0)), 0);
    nvic_enable(soft_irq(0));
    cpu_sync();
    check_eq("cleared does not run", runs[0], 0);
    /* Pending while disabled runs once enabled. */
    nvic_disable(soft_irq(0));
    pend(A);
    nvic_enable(soft_irq(0));
    cpu_sync();
    check_str("runs when enabled", seq_get(), "A+ A-");

    /* HardFault: UDF in thread mode, handler skips it. */
    hf_count = 0;
    __asm__ volatile("udf #0x42" ::: "memory");
    check_eq("hardfault count", hf_count, 1);
    check_eq("hardfault ipsr", hf_ipsr, 3);
    check_eq_hex("hardfault exc_return", hf_exc_return, EXC_RETURN_THREAD_MSP);
    check_eq_hex("hardfault insn", hf_insn, 0xDE42);
    __asm__ volatile("udf #0x43" ::: "memory");
    check_eq("continues after second udf", hf_count, 2);
    check_eq_hex("second insn", hf_insn, 0xDE43);

    /* A UDF inside an interrupt handler (priority 0x00) is a HardFault
     * that preempts it. */
    clear_runs();
    udf_in_d = 1;
    pend(D);
    udf_in_d = 0;
    check_str("udf in handler", seq_get(), "D+ D-");
    check_eq("hardfault count after handler udf", hf_count, 3);
    check_eq_hex("hardfault exc_return in handler", hf_exc_return, EXC_RETURN_HANDLER);
    check_eq_hex("third insn", hf_insn, 0xDE44);
    check_eq("thread ipsr at end", cpu_get_ipsr(), 0);

    return test_end();
}
