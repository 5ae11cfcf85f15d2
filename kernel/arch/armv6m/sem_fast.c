/*
 * Cairn OS armv6m port: the uncontended mutex in assembly (docs/kernel.md, "Semaphores").
 *
 * A mutex's uncontended state is one word (cairn/sem.h): 0 free, else the token of the
 * thread that took it. cairn_sem_take by a thread finds the word 0 and stores its token;
 * cairn_sem_give by a thread finds its own token there and stores 0. Anything else (a
 * counting semaphore or a mutex in the general path's state: CAIRN_SEM_SLOW; a handler or an
 * interrupt calling; the mutex taken by another) branches to the general path in
 * kernel/core/sem.c with the arguments untouched. The host port uses sem.c's C version of
 * the same fast path, under PRIMASK.
 *
 * Here interrupts stay enabled: from the word's load to its store is a restartable
 * sequence. Only another thread or the message level can touch a mutex, and they run only
 * after PendSV or an interrupt's give has switched away from the thread, each of which
 * calls arch_thread_settle first (kernel/core/thread.c): stopped before the store, the
 * thread starts the sequence again; the store itself is the commit. An interrupt that
 * switches nothing leaves it to go on.
 */
#include <stddef.h>

#include "../../core/thread.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* cairn_kernel_t offsets the assembly uses. */
#define K_ISR_DEPTH 36 /* in_thread follows: one halfword, 0x0100 in a thread */
_Static_assert(offsetof(cairn_sem_t, lock) == 0, "lock");
_Static_assert(CAIRN_SEM_SLOW == 1, "the give's comparison");
_Static_assert(CAIRN_PORT_K_ISR_DEPTH == K_ISR_DEPTH, "the inline sequence's isr_depth");
_Static_assert(CAIRN_PORT_K_TOP == CAIRN_K_TOP, "the inline sequence's top");
_Static_assert(sizeof(struct cairn_frame) == CAIRN_TH_TOKEN_AFTER_FRAME, "the inline sequence's token");
_Static_assert(offsetof(cairn_kernel_t, isr_depth) == K_ISR_DEPTH, "isr_depth");
_Static_assert(offsetof(cairn_kernel_t, in_thread) == K_ISR_DEPTH + 1, "in_thread");

/* r3 = the running thread's token, or to 1f (the general path) when the caller is not a
 * thread; scratch register x (the take's r2, the give's r1: each keeps what it still needs).
 * While a thread runs (in_thread, no interrupt) cairn_k.top is its frame, which its token
 * follows. What it reads holds for as long as the caller runs. */
#define CALLER_TOKEN(x)                                                                            \
    "ldr   r3, =cairn_k\n\t"                                                                       \
    "ldrh  " x ", [r3, #" STR(K_ISR_DEPTH) "]\n\t"                                                 \
    "subs  " x ", #255\n\t"                                                                        \
    "cmp   " x ", #1\n\t"                                                                          \
    "bne   1f\n\t"                                                                                 \
    "ldr   r3, [r3, #" STR(CAIRN_K_TOP) "]\n\t"                                                    \
    "ldr   r3, [r3, #" STR(CAIRN_TH_TOKEN_AFTER_FRAME) "]\n\t"

/* The restartable part: from _ras (restarted there, r0 and r1 as the call left them) to
 * _done, its last instruction the store. The word is read first, so that a counting
 * semaphore (CAIRN_SEM_SLOW) leaves at once. s NULL needs no test of its own: address 0 (the
 * boot vector table) holds the initial SP, neither 0 nor CAIRN_SEM_SLOW nor a token (a
 * small even count), so NULL goes to the general path, which refuses it. Both functions in
 * one section, the take first: arch_thread_settle passes over any other interrupted
 * address with one comparison. */
__asm__(".pushsection .text.cairn_sem_fast,\"ax\",%progbits\n\t"
        ".balign 4\n\t"
        ".global cairn_sem_take\n\t"
        ".type  cairn_sem_take, %function\n\t"
        ".thumb_func\n"
        "cairn_sem_take:\n\t"
        ".global cairn__sem_take_ras\n"
        "cairn__sem_take_ras:\n\t"
        "ldr   r2, [r0]\n\t"
        "cmp   r2, #0\n\t"
        "bne   1f\n\t" /* taken, or the general path's */
        CALLER_TOKEN("r2")
        "str   r3, [r0]\n"
        ".global cairn__sem_take_done\n"
        "cairn__sem_take_done:\n\t"
        "movs  r0, #0\n\t"
        "bx    lr\n"
        "1:\n\t"
        "ldr   r2, =cairn__sem_take_general\n\t"
        "bx    r2\n\t"
        ".ltorg\n\t"
        ".size  cairn_sem_take, . - cairn_sem_take\n\t"
        ".global cairn_sem_give\n\t"
        ".type  cairn_sem_give, %function\n\t"
        ".thumb_func\n"
        "cairn_sem_give:\n\t"
        ".global cairn__sem_give_ras\n"
        "cairn__sem_give_ras:\n\t"
        "ldr   r2, [r0]\n\t"
        "cmp   r2, #1\n\t" /* CAIRN_SEM_SLOW */
        "bls   1f\n\t" /* free, or the general path's */
        CALLER_TOKEN("r1")
        "subs  r2, r2, r3\n\t"
        "bne   1f\n\t" /* not its own, or the general path's (waiters) */
        "str   r2, [r0]\n"
        ".global cairn__sem_give_done\n"
        "cairn__sem_give_done:\n\t"
        "movs  r0, #0\n\t"
        "bx    lr\n"
        "1:\n\t"
        "ldr   r2, =cairn__sem_give_general\n\t"
        "bx    r2\n\t"
        ".ltorg\n\t"
        ".size  cairn_sem_give, . - cairn_sem_give\n\t"
        /* arch_thread_settle: the interrupted thread's pc (its exception frame at PSP: it
         * runs on PSP; interrupts, PendSV included, stack its frame there and run on MSP),
         * on to settle_sequence when it lies between the take's sequence and the give's
         * return (the span fits CMP's 8 bits, or this does not assemble), or to settle_inline
         * (r1: the sequence's load) when an inline sequence's marker lies 2 to 8 bytes before
         * it, that is when the pc is at the load or after it up to the store. */
        ".global arch_thread_settle\n\t"
        ".type  arch_thread_settle, %function\n\t"
        ".thumb_func\n"
        "arch_thread_settle:\n\t"
        "mrs   r0, psp\n\t"
        "ldr   r1, [r0, #24]\n\t"
        "ldr   r2, =cairn__sem_take_ras\n\t"
        "subs  r2, r1, r2\n\t"
        "cmp   r2, #(cairn__sem_give_done - cairn__sem_take_ras)\n\t"
        "blo   2f\n\t"
        "ldr   r3, =" STR(CAIRN_PORT_MUTEX_MARKER) "\n\t"
        "subs  r1, #8\n\t"
        "ldrh  r2, [r1, #6]\n\t"
        "cmp   r2, r3\n\t"
        "beq   4f\n\t"
        "ldrh  r2, [r1, #4]\n\t"
        "cmp   r2, r3\n\t"
        "beq   5f\n\t"
        "ldrh  r2, [r1, #2]\n\t"
        "cmp   r2, r3\n\t"
        "beq   6f\n\t"
        "ldrh  r2, [r1]\n\t"
        "cmp   r2, r3\n\t"
        "beq   7f\n\t"
        "bx    lr\n"
        "4:\n\t"
        "adds  r1, #2\n"
        "5:\n\t"
        "adds  r1, #2\n"
        "6:\n\t"
        "adds  r1, #2\n"
        "7:\n\t"
        "adds  r1, #2\n\t"
        "ldr   r2, =cairn__armv6m_settle_inline\n\t"
        "bx    r2\n"
        "2:\n\t"
        "ldr   r2, =cairn__armv6m_settle_sequence\n\t"
        "bx    r2\n\t"
        ".ltorg\n\t"
        ".size  arch_thread_settle, . - arch_thread_settle\n\t"
        ".popsection\n");

/* The labels above (code addresses, Thumb bit clear like a stacked PC). */
extern const char cairn__sem_take_ras[], cairn__sem_take_done[];
extern const char cairn__sem_give_ras[], cairn__sem_give_done[];

static bool within(uint32_t pc, const char *lo, const char *hi)
{
    return pc - (uint32_t)(uintptr_t)lo < (uint32_t)(hi - lo);
}

/* The interrupted thread's exception frame f: r0-r3, r12, lr, pc, xPSR; its pc lies between
 * the take's sequence and the give's return (arch_thread_settle above). */
void cairn__armv6m_settle_sequence(uint32_t *f);
void cairn__armv6m_settle_sequence(uint32_t *f)
{
    uint32_t pc = f[6];
    if (within(pc, cairn__sem_take_ras, cairn__sem_take_done))
        f[6] = (uint32_t)(uintptr_t)cairn__sem_take_ras;
    else if (within(pc, cairn__sem_give_ras, cairn__sem_give_done))
        f[6] = (uint32_t)(uintptr_t)cairn__sem_give_ras;
    else
        return; /* the take's general branch */
    cairn_k.threads->sem_stats.fast_restarts++;
}

/* A marker was found 2 to 8 bytes before f's pc: load is the address after it. It is an
 * inline sequence (cairn_port_mutex.h) stopped before its store only if LDR r2, [Rm] follows
 * the marker and STR r2 or r3, [Rm] ends the window: a halfword 0x46E4 in a literal pool
 * just before the code a thread was stopped in is not. Then f's pc goes back to the load. */
void cairn__armv6m_settle_inline(uint32_t *f, uint32_t load);
void cairn__armv6m_settle_inline(uint32_t *f, uint32_t load)
{
    const uint16_t *w = (const uint16_t *)(uintptr_t)load;
    if ((w[0] & 0xFFC7u) != 0x6802u || (w[3] & 0xFFC6u) != 0x6002u)
        return;
    f[6] = load;
    cairn_k.threads->sem_stats.fast_restarts++;
}
