/*
 * Cairn OS armv6m port: interrupt masking and the deferred dispatch (PendSV).
 *
 * cairn_isr_exit calls arch_request_dispatch when the outermost interrupt handler
 * leaves a queued message that outranks the interrupted code. The message must
 * run in Thread mode, on the main stack, on top of the interrupted code (which
 * may itself be a task handler): handlers are plain function calls on one stack.
 *
 * 1. arch_request_dispatch pends PendSV, the lowest-priority exception, so it runs
 *    when every other handler has returned (tail-chained).
 * 2. pendsv_handler pushes a fabricated 8-word exception frame on the main stack,
 *    below the interrupted code's frame, with pc = cairn__armv6m_trampoline and
 *    xPSR = Thumb, and returns from the exception: the core pops the fabricated
 *    frame and continues in Thread mode at the trampoline, with the interrupted
 *    code's frame still on the stack right above SP.
 * 3. cairn__armv6m_trampoline calls cairn_dispatch() (interrupts enabled; handlers may
 *    be preempted by interrupts and by further PendSV dispatches, which nest the
 *    same way) and then executes SVC.
 * 4. svc_handler discards the SVC's own frame and returns from the exception: the
 *    core now pops the interrupted code's original frame (all of r0-r3, r12, lr,
 *    pc and xPSR, flags included), exactly as if PendSV had returned to it.
 *
 * Cost: one PendSV entry/exit, one SVC entry/exit. Needs the kernel on MSP
 * (Thread mode, CONTROL.SPSEL = 0); a PendSV that would return to PSP or Handler
 * mode returns without dispatching.
 */
#include <stdint.h>

#include "cairn/arch.h"
#include "cairn/sched.h"

#include "scb.h"

void arch_request_dispatch(void)
{
    SCB_ICSR = ICSR_PENDSVSET;
}

/* Thread mode, SP = the interrupted code's exception frame (8-byte aligned). */
void cairn__armv6m_trampoline(void);
__attribute__((naked, noreturn, used)) void cairn__armv6m_trampoline(void)
{
    __asm__ volatile("bl   cairn_dispatch\n\t"
                     "svc  #0\n\t"
                     "b    .\n\t");
}

__attribute__((naked)) void pendsv_handler(void)
{
    __asm__ volatile(
        "ldr  r0, =0xFFFFFFF9\n\t" /* returning to Thread mode on MSP? */
        "mov  r1, lr\n\t"
        "cmp  r0, r1\n\t"
        "bne  1f\n\t"
        "sub  sp, #32\n\t"          /* fabricated frame: r0-r3, r12, lr, pc, xPSR */
        "ldr  r0, =cairn__armv6m_trampoline\n\t"
        "movs r1, #1\n\t"
        "bics r0, r1\n\t"           /* a stacked pc has bit 0 clear */
        "str  r0, [sp, #24]\n\t"
        "ldr  r0, =0x01000000\n\t"  /* xPSR: T, IPSR 0, no alignment padding */
        "str  r0, [sp, #28]\n"
        "1:\n\t"
        "bx   lr\n\t"
        ".ltorg\n\t");
}

/* Only cairn__armv6m_trampoline executes SVC. Its frame sits right below the
 * interrupted code's frame (SP was 8-byte aligned, so no padding word). */
__attribute__((naked)) void svc_handler(void)
{
    __asm__ volatile("add  sp, #32\n\t"
                     "bx   lr\n\t");
}
