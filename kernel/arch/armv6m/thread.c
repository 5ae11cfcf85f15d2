/*
 * Cairn OS armv6m port: thread contexts (docs/kernel.md, "Threads").
 *
 * A switch a thread's own kernel call decides (a give that readies a higher thread, a
 * block, a yield) is a call in Thread mode, arch_thread_switch, with no exception. PendSV,
 * at the lowest exception priority, makes every other switch: one an interrupt decides, one
 * to or from the message level, one to a thread an interrupt preempted (a full exception
 * frame, which the call switch does not unwind). Both lay out a saved context the same way,
 * so that either can resume what the other saved. The message level runs in Thread mode on
 * MSP, a thread in Thread mode on PSP; interrupts always use MSP, below the message level's
 * saved context.
 *
 * The board's PendSV (irq.c: the deferred dispatch through a fabricated frame)
 * stays exactly as it is while no thread exists: the first cairn_thread_create
 * copies the vector table to the kernel heap and points VTOR at the copy, whose
 * PendSV entry is cairn__armv6m_pendsv_threads:
 *
 * 0. The fast path: when the core decided a switch from the running thread to another
 *    (cairn_k.threads->next, set by cairn__thread_resched with the guard word checked and
 *    nothing to do for the slices) and the message queue is still empty, PendSV only
 *    saves r4-r11 and PSP, makes the other thread current (its frame the top of the
 *    execution stack) and restores its registers: no call, no choice.
 * 1. Otherwise, with interrupts off, cairn__thread_pick chooses the context to run.
 * 2. A switch saves r4-r11 below the left context's exception frame (on MSP for
 *    the message level, on its PSP for a thread; r4-r7 right below the frame, r8-r11
 *    below them, so that the restore ends at the frame) with that SP in its record, and
 *    restores the other's, returning with EXC_RETURN 0xFFFFFFF9 (message level)
 *    or 0xFFFFFFFD (a thread).
 * 3. Returning to the message level (a switch to it, or no switch over it) goes
 *    through a fabricated frame to cairn__armv6m_thread_trampoline, as irq.c does:
 *    cairn_dispatch runs what outranks the resumed code, then SVC #1 returns
 *    through the resumed code's own frame. The copy's SVC entry
 *    (cairn__armv6m_svc_threads) drops the trampoline's frame as irq.c's svc_handler
 *    does and only then asks whether a thread outranks the resumed code: a switch it
 *    pends tail-chains after the SVC, over the resumed code's own frame. Asked from
 *    the trampoline instead, the switch left the trampoline's frame on the main stack
 *    under the thread, and the next return to the message level fabricated another
 *    above it: under a load that kept a thread ready at every return, the main stack
 *    grew a frame per round until it overran .bss.
 */
#include <stdint.h>

#include "../../core/thread.h"

#include "cairn/mem.h"

#include "scb.h"

#define CAIRN_STR_(x) #x
#define CAIRN_STR(x) CAIRN_STR_(x)

/* A context's r8-r11 lie at its saved SP, its r4-r7 above them (ARMv6-M moves high registers
 * only through low ones): the restore from the pointer in `reg`, which ends at the frame. */
#define RESTORE_R8_R11_THEN_R4_R7(reg)                                                            \
    "ldmia " reg "!, {r4-r7}\n\t"                                                               \
    "mov   r8, r4\n\t"                                                                          \
    "mov   r9, r5\n\t"                                                                          \
    "mov   r10, r6\n\t"                                                                         \
    "mov   r11, r7\n\t"                                                                         \
    "ldmia " reg "!, {r4-r7}\n\t"
/* r8-r11 into r4-r7, to be stored (after r4-r7 themselves were). */
#define HIGH_TO_R4_R7                                                                             \
    "mov   r4, r8\n\t"                                                                          \
    "mov   r5, r9\n\t"                                                                          \
    "mov   r6, r10\n\t"                                                                         \
    "mov   r7, r11\n\t"

#define VECTORS 48u /* the initial SP, 15 exceptions, 32 interrupts */
#define VECTOR_SVC 11u
#define VECTOR_PENDSV 14u
#define VTOR_ALIGN 128u

void cairn__armv6m_pendsv_threads(void);
void cairn__armv6m_svc_threads(void);
void cairn__armv6m_thread_trampoline(void);

static uint32_t *vectors;

cairn_ret_t arch_thread_setup(void)
{
    if (vectors && SCB_VTOR == (uint32_t)(uintptr_t)vectors)
        return CAIRN_OK;
    uint8_t *blk = cairn_malloc(VECTORS * 4u + VTOR_ALIGN - 8u);
    if (!blk)
        return CAIRN_ENOMEM;
    cairn_heap_set_owner(blk, CAIRN_TASK_NONE);
    uint32_t *v = (uint32_t *)(((uintptr_t)blk + VTOR_ALIGN - 1u) & ~(uintptr_t)(VTOR_ALIGN - 1u));
    const uint32_t *old = (const uint32_t *)(uintptr_t)SCB_VTOR;
    for (unsigned i = 0; i < VECTORS; i++)
        v[i] = old[i];
    v[VECTOR_SVC] = (uint32_t)(uintptr_t)cairn__armv6m_svc_threads;
    v[VECTOR_PENDSV] = (uint32_t)(uintptr_t)cairn__armv6m_pendsv_threads;
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)v;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    vectors = v;
    return CAIRN_OK;
}

/* A new thread starts as if it had switched itself out by a call whose caller is
 * thread_start, so that either switch can be the first to run it. */
__attribute__((naked, used)) static void thread_start(void)
{
    __asm__ volatile("cpsie i\n\t" /* a call switch comes with interrupts masked */
                     "ldr   r0, =cairn__thread_entry\n\t"
                     "bx    r0\n\t"
                     ".ltorg\n\t");
}

cairn_ret_t arch_thread_init(cairn_ctx_t *c, void *lo, void *hi)
{
    (void)lo;
    uint32_t *sp = (uint32_t *)hi - 16; /* r8-r11 and r4-r7 (zero), then the exception frame */
    for (unsigned i = 0; i < 16; i++)
        sp[i] = 0;
    sp[8 + 5] = (uint32_t)(uintptr_t)thread_start;               /* lr: where it resumes */
    sp[8 + 6] = (uint32_t)(uintptr_t)cairn__armv6m_resume_pc;    /* pc */
    sp[8 + 7] = 0x01000000u;                                     /* xPSR: Thumb */
    c->sp = (uintptr_t)sp;
    c->port = 0;
    return CAIRN_OK;
}

void arch_thread_release(cairn_ctx_t *c)
{
    (void)c;
}

void arch_thread_reschedule(void)
{
    cairn__thread_forget_next(); /* whoever asks may have changed the choice */
    SCB_ICSR = ICSR_PENDSVSET;
}

static void sh_write0(const char *s)
{
    register uint32_t r0 __asm__("r0") = 0x04u; /* SYS_WRITE0 */
    register const char *r1 __asm__("r1") = s;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void arch_thread_overflow(const char *name)
{
    sh_write0("FAIL thread stack overflow: ");
    sh_write0(name);
    sh_write0("\n");
    static const uint32_t block[2] = {0x20026u /* ADP_Stopped_ApplicationExit */,
                                      CAIRN_EXIT_STACK_OVERFLOW};
    for (;;) {
        register uint32_t r0 __asm__("r0") = 0x20u; /* SYS_EXIT_EXTENDED */
        register const void *r1 __asm__("r1") = block;
        __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    }
}

__attribute__((naked, noreturn, used)) void cairn__armv6m_thread_trampoline(void)
{
    __asm__ volatile("bl   cairn_dispatch\n\t"
                     "svc  #1\n\t"
                     "b    .\n\t");
}

/* SVC with threads: every SVC drops its own frame and returns through the frame below
 * it (irq.c's svc_handler); the thread trampoline's (#1) then asks for a switch, the
 * message level's frame the only one left on its stack. The other SVCs (the fast
 * paths' ends) return to a message level that no thread outranked before. */
__attribute__((naked)) void cairn__armv6m_svc_threads(void)
{
    __asm__ volatile("ldr   r0, [sp, #24]\n\t" /* the stacked pc, after the SVC */
                     "subs  r0, #2\n\t"
                     "ldrb  r0, [r0]\n\t"     /* its immediate */
                     "add   sp, #32\n\t"
                     "cmp   r0, #1\n\t"
                     "beq   1f\n\t"
                     "bx    lr\n\t"
                     "1:\n\t"
                     "push  {r0, lr}\n\t"
                     "bl    cairn__thread_resched\n\t"
                     "pop   {r0, r1}\n\t"
                     "bx    r1\n\t");
}

/* A thread's own kernel call whose switch is left to PendSV (to or from the message level, to a
 * thread an interrupt preempted, or with the guard word or a slice to see to) unmasks here, so
 * that PendSV is taken at cairn__armv6m_resume_pc with lr the call's return address: the frame
 * it saves is then one arch_thread_switch can resume too (r0-r3, r12 and the flags are not kept
 * across a call, and the SP of a call site needs no alignment word). The same label is where
 * PendSV's exception return enters a context that arch_thread_switch saved: its fabricated
 * frame's pc (without the Thumb bit, which a frame's pc has not). A function of its own, so that
 * cairn-sim's profile counts these cycles apart from the call switch's. */
__asm__(".text\n\t"
        ".balign 2\n\t"
        ".global arch_thread_switch_pended\n\t"
        ".global cairn__armv6m_resume_pc\n\t"
        ".type arch_thread_switch_pended, %function\n\t"
        ".thumb_func\n"
        "arch_thread_switch_pended:\n\t"
        "cpsie i\n"
        "cairn__armv6m_resume_pc:\n\t"
        "bx    lr\n\t"
        ".size arch_thread_switch_pended, . - arch_thread_switch_pended\n\t");

_Static_assert(CAIRN_TH_FRAME <= 255, "the call switch adds the frame's offset with one ADDS");

/* The switch a thread's own kernel call decided (r0 = cur, the running thread; r1 = next),
 * interrupts masked, Thread mode on cur's PSP: cur's context is saved as PendSV saves one, with
 * a fabricated exception frame (pc cairn__armv6m_resume_pc, lr the return address, xPSR
 * Thumb) so that PendSV can resume it unchanged (as if it had unmasked in
 * arch_thread_switch_pended); next, saved the same way (the core checked:
 * arch_thread_resumes_by_call), is current, its registers restored, and this returns into it
 * with interrupts still masked: its own arch_irq_restore unmasks them. */
__attribute__((naked)) void arch_thread_switch(__attribute__((unused)) cairn_thread_t *cur,
                                              __attribute__((unused)) cairn_thread_t *next)
{
    __asm__ volatile(
        "mov   r12, r1\n\t"
        "mov   r1, lr\n\t"
        "ldr   r2, =cairn__armv6m_resume_pc\n\t"
        "ldr   r3, =0x01000000\n\t"
        "push  {r1, r2, r3}\n\t" /* the frame's lr, pc and xPSR */
        "sub   sp, #20\n\t"       /* its r0-r3 and r12: not kept across a call */
        "push  {r4-r7}\n\t"
        HIGH_TO_R4_R7
        "push  {r4-r7}\n\t"       /* r8-r11 at the saved SP, as PendSV lays them */
        "mov   r2, sp\n\t"
        "str   r2, [r0]\n\t"      /* cur->ctx.sp */
        "mov   r1, r12\n\t"
        "ldr   r3, =cairn_k\n\t"
        "movs  r0, #" CAIRN_STR(CAIRN_K_THREADS) "\n\t"
        "ldr   r0, [r3, r0]\n\t"
        "str   r1, [r0, #" CAIRN_STR(CAIRN_TS_CUR) "]\n\t"
        "movs  r2, r1\n\t"
        "adds  r2, #" CAIRN_STR(CAIRN_TH_FRAME) "\n\t"
        "str   r2, [r3, #" CAIRN_STR(CAIRN_K_TOP) "]\n\t" /* its frame the execution stack's top */
        "ldr   r0, [r1]\n\t"      /* next->ctx.sp */
        RESTORE_R8_R11_THEN_R4_R7("r0")
        "ldr   r1, [r0, #20]\n\t" /* the frame's lr: where next resumes */
        "adds  r0, #32\n\t"
        "mov   sp, r0\n\t"
        "bx    r1\n\t"
        ".ltorg\n\t");
}

_Static_assert(CAIRN_TS_NEXT == CAIRN_TS_CUR + 4, "PendSV's fast path stores cur and next with one STM");

__attribute__((naked)) void cairn__armv6m_pendsv_threads(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "ldr   r0, =cairn_k\n\t"
        "movs  r3, #" CAIRN_STR(CAIRN_K_THREADS) "\n\t"
        "ldr   r3, [r0, r3]\n\t"
        "ldr   r1, [r3, #" CAIRN_STR(CAIRN_TS_NEXT) "]\n\t" /* the decided thread */
        "cmp   r1, #0\n\t"
        "beq   6f\n\t"
        "ldr   r2, [r0, #" CAIRN_STR(CAIRN_K_QUEUE) "]\n\t"
        "cmp   r2, #0\n\t"
        "bne   6f\n\t" /* messages came meanwhile: choose again */
        "mov   r2, r1\n\t"
        "adds  r2, #" CAIRN_STR(CAIRN_TH_FRAME) "\n\t"
        "str   r2, [r0, #" CAIRN_STR(CAIRN_K_TOP) "]\n\t"
        "ldr   r0, [r3, #" CAIRN_STR(CAIRN_TS_CUR) "]\n\t"
        "movs  r2, #0\n\t"
        "stmia r3!, {r1, r2}\n\t" /* cur = the decided thread, next = none */
        "mrs   r2, psp\n\t"
        "subs  r2, #16\n\t"
        "stmia r2!, {r4-r7}\n\t" /* r4-r7 right below the exception frame */
        "subs  r2, #32\n\t"
        "str   r2, [r0]\n\t"
        HIGH_TO_R4_R7
        "stmia r2!, {r4-r7}\n\t" /* r8-r11 below them */
        "ldr   r0, [r1]\n\t"
        RESTORE_R8_R11_THEN_R4_R7("r0")
        "msr   psp, r0\n\t" /* its exception frame, above r4-r7 */
        "cpsie i\n\t"
        "bx    lr\n\t" /* EXC_RETURN: Thread mode, PSP, as it came */
        "6:\n\t"
        "push  {r4, lr}\n\t"
        "sub   sp, #8\n\t"
        "mov   r0, sp\n\t"
        "add   r1, sp, #4\n\t"
        "bl    cairn__thread_pick\n\t"
        "ldr   r2, [sp, #0]\n\t" /* from */
        "ldr   r3, [sp, #4]\n\t" /* to */
        "add   sp, #8\n\t"
        "pop   {r4}\n\t"
        "pop   {r1}\n\t"
        "mov   lr, r1\n\t" /* EXC_RETURN */
        "cmp   r0, #0\n\t"
        "beq   8f\n\t"
        "ldr   r0, =cairn__thread_msg_ctx\n\t"
        "cmp   r2, r0\n\t"
        "bne   1f\n\t"
        "mov   r1, sp\n\t" /* the message level: r4-r11 below its frame, on MSP */
        "subs  r1, #32\n\t"
        "mov   sp, r1\n\t"
        "b     2f\n\t"
        "1:\n\t"
        "mrs   r1, psp\n\t" /* a thread: below its frame, on its PSP */
        "subs  r1, #32\n\t"
        "2:\n\t"
        "str   r1, [r2]\n\t" /* r8-r11 at the saved SP, r4-r7 above them (as the fast path) */
        "adds  r1, #16\n\t"
        "stmia r1!, {r4-r7}\n\t"
        "subs  r1, #32\n\t"
        HIGH_TO_R4_R7
        "stmia r1!, {r4-r7}\n\t"
        "ldr   r1, [r3]\n\t"
        RESTORE_R8_R11_THEN_R4_R7("r1") /* r1: the exception frame */
        "cmp   r3, r0\n\t"
        "beq   3f\n\t"
        "msr   psp, r1\n\t"
        "ldr   r0, =0xFFFFFFFD\n\t" /* Thread mode, PSP */
        "mov   lr, r0\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        "3:\n\t"
        "mov   sp, r1\n\t"
        "ldr   r0, =0xFFFFFFF9\n\t" /* Thread mode, MSP */
        "mov   lr, r0\n\t"
        "b     9f\n\t"
        "8:\n\t"
        "ldr   r0, =0xFFFFFFF9\n\t"
        "mov   r1, lr\n\t"
        "cmp   r0, r1\n\t"
        "bne   7f\n\t" /* a thread goes on */
        "9:\n\t"
        "sub   sp, #32\n\t" /* to the trampoline, over the message level's frame */
        "ldr   r0, =cairn__armv6m_thread_trampoline\n\t"
        "movs  r1, #1\n\t"
        "bics  r0, r1\n\t"
        "str   r0, [sp, #24]\n\t"
        "ldr   r0, =0x01000000\n\t"
        "str   r0, [sp, #28]\n\t"
        "7:\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        ".ltorg\n\t");
}
