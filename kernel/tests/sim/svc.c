/*
 * Supervisor calls: the handler reads the SVC immediate from the stacked PC
 * and passes arguments and results through the stacked r0-r3. SVC from
 * Thread mode on MSP and on PSP (EXC_RETURN 0xFFFFFFF9 / 0xFFFFFFFD), from a
 * handler (0xFFFFFFF1), with an 8-byte-misaligned SP (stack padding, stacked
 * xPSR bit 9), and CONTROL/MSP/PSP as seen by MRS.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "scb.h"
#include "startup.h"

struct svc_seen {
    uint32_t count;
    uint32_t imm;
    uint32_t exc_return;
    uint32_t ipsr;
    uint32_t control;
    uint32_t frame;  /* address of the stacked frame */
    uint32_t msp;    /* MSP in the handler */
    uint32_t psp;    /* PSP in the handler */
    uint32_t xpsr;   /* stacked xPSR */
};
static volatile struct svc_seen seen;

__attribute__((used))
static void svc_c(struct exc_frame *f, uint32_t exc_return)
{
    uint32_t imm = ((const uint8_t *)f->pc)[-2]; /* SVC #imm8 = 0xDFxx */
    seen.count++;
    seen.imm = imm;
    seen.exc_return = exc_return;
    seen.ipsr = cpu_get_ipsr();
    seen.control = cpu_get_control();
    seen.frame = (uint32_t)(uintptr_t)f;
    seen.msp = cpu_get_msp();
    seen.psp = cpu_get_psp();
    seen.xpsr = f->xpsr;

    switch (imm) {
    case 1: /* add */
        f->r0 = f->r0 + f->r1;
        break;
    case 2: /* rotate four arguments */
    {
        uint32_t t = f->r0;
        f->r0 = f->r1;
        f->r1 = f->r2;
        f->r2 = f->r3;
        f->r3 = t;
        break;
    }
    case 3: /* return the caller's stacked xPSR T bit and the imm */
        f->r0 = (f->xpsr & XPSR_T) ? 1u : 0u;
        f->r1 = imm;
        break;
    default:
        f->r0 = imm * 100u;
        break;
    }
}
CPU_FRAME_HANDLER(svc_handler, svc_c)

struct regs4 {
    uint32_t r0, r1, r2, r3;
};

#define SVC4(imm, regs)                                                     \
    do {                                                                    \
        register uint32_t r0_ __asm__("r0") = (regs).r0;                    \
        register uint32_t r1_ __asm__("r1") = (regs).r1;                    \
        register uint32_t r2_ __asm__("r2") = (regs).r2;                    \
        register uint32_t r3_ __asm__("r3") = (regs).r3;                    \
        __asm__ volatile("svc %[n]"                                         \
                         : "+r"(r0_), "+r"(r1_), "+r"(r2_), "+r"(r3_)       \
                         : [n] "I"(imm)                                     \
                         : "memory");                                       \
        (regs).r0 = r0_;                                                    \
        (regs).r1 = r1_;                                                    \
        (regs).r2 = r2_;                                                    \
        (regs).r3 = r3_;                                                    \
    } while (0)

/* SVC #9 with SP 4 bytes off 8-byte alignment; returns SP at the SVC. */
__attribute__((naked)) static uint32_t svc_misaligned(void)
{
    __asm__ volatile(
        "sub  sp, #4\n\t"
        "mov  r0, sp\n\t"
        "svc  9\n\t"
        "mov  r0, sp\n\t"
        "add  sp, #4\n\t"
        "bx   lr\n\t");
}

static void check_svc_basics(const char *mode, uint32_t expect_exc_return)
{
    struct regs4 r = {40, 2, 0, 0};
    SVC4(1, r);
    check_eq(mode, r.r0, 42);
    check_eq("svc number", seen.imm, 1);
    check_eq_hex("exc_return", seen.exc_return, expect_exc_return);
    check_eq("ipsr in svc handler", seen.ipsr, EXC_SVCALL);
    check_eq_hex("control in svc handler", seen.control, 0);

    struct regs4 q = {11, 22, 33, 44};
    SVC4(2, q);
    check_yes("four args rotated through r0-r3",
              q.r0 == 22 && q.r1 == 33 && q.r2 == 44 && q.r3 == 11);
    check_eq("svc number", seen.imm, 2);

    struct regs4 t = {0, 0, 0, 0};
    SVC4(3, t);
    check_yes("stacked xpsr has T bit", t.r0 == 1 && t.r1 == 3);

    struct regs4 u = {0, 0, 0, 0};
    SVC4(5, u);
    check_eq("svc number", seen.imm, 5);
    check_eq("svc 5 result", u.r0, 500);
    SVC4(255, u);
    check_eq("svc number", seen.imm, 255);
    check_eq("svc 255 result", u.r0, 25500);
}

/* ---- PSP ---- */

static uint64_t psp_stack[64]; /* 512 bytes, 8-byte aligned */
#define PSP_TOP ((uint32_t)(uintptr_t)&psp_stack[64])

static void on_psp(void)
{
    check_eq_hex("control on psp", cpu_get_control(), CONTROL_SPSEL);
    check_yes("sp is psp", cpu_get_sp() == cpu_get_psp());
    check_yes("psp inside its stack",
              cpu_get_psp() < PSP_TOP && cpu_get_psp() >= PSP_TOP - sizeof psp_stack);

    check_svc_basics("svc 1 on psp", EXC_RETURN_THREAD_PSP);
    check_yes("frame on psp", seen.frame == seen.psp);
    check_yes("handler runs on msp", seen.msp < (uint32_t)BOARD_RAM_BASE + BOARD_RAM_SIZE &&
                                         (seen.msp < PSP_TOP - sizeof psp_stack || seen.msp >= PSP_TOP));

    /* SVC from an interrupt handler taken from PSP thread mode. */
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    seen.count = 0;
    NVIC_ISPR = 1u << IRQ_SOFT0;
    cpu_sync();
    check_eq("svc from handler count", seen.count, 1);
    check_eq("svc from handler number", seen.imm, 7);
    check_eq_hex("svc from handler exc_return", seen.exc_return, EXC_RETURN_HANDLER);
    check_yes("svc from handler frame on msp", seen.frame != seen.psp);
    nvic_disable(IRQ_SOFT0);
}

static volatile uint32_t irq_svc_result;

void irq24_handler(void)
{
    struct regs4 r = {0, 0, 0, 0};
    SVC4(7, r);
    irq_svc_result = r.r0;
}

int main(void)
{
    test_begin("svc");

    scb_set_svcall_priority(NVIC_PRIO_HIGHEST);
    check_eq_hex("control at reset", cpu_get_control(), 0);
    check_yes("sp is msp", cpu_get_sp() == cpu_get_msp());

    check_svc_basics("svc 1 on msp", EXC_RETURN_THREAD_MSP);
    check_yes("frame on msp", seen.frame != 0 && seen.frame != seen.psp);

    /* Stack alignment on exception entry. */
    uint32_t sp_at_svc = svc_misaligned();
    check_eq("svc 9 sp mod 8", sp_at_svc & 7u, 4);
    check_eq("svc 9 frame mod 8", seen.frame & 7u, 0);
    check_eq("svc 9 padding", sp_at_svc - (seen.frame + 32u), 4);
    check_yes("svc 9 stacked xpsr bit 9", (seen.xpsr & XPSR_STACK_PADDED) != 0);
    SVC4(3, ((struct regs4){0, 0, 0, 0}));
    check_yes("aligned svc stacked xpsr bit 9 clear", (seen.xpsr & XPSR_STACK_PADDED) == 0);

    cpu_run_on_psp(on_psp, (uint32_t *)PSP_TOP);
    check_eq("irq svc result", irq_svc_result, 700);

    check_eq_hex("control back on msp", cpu_get_control(), 0);
    check_yes("sp is msp again", cpu_get_sp() == cpu_get_msp());
    check_eq("svc calls since the irq test", seen.count, 1);

    return test_end();
}
