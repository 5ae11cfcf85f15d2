/*
 * Cairn OS armv6m port: the uncontended mutex in assembly (docs/kernel.md, "Semaphores").
 *
 * cairn_sem_take of a free mutex by a thread, and cairn_sem_give of the mutex a thread took
 * last with nobody waiting, are a few fields: the count, the owner and holder, the holder's
 * list of mutexes. Anything else (no mutex, a handler or an interrupt calling, the mutex
 * taken, waiters, another mutex taken after it) branches to the general path in
 * kernel/core/sem.c with the arguments untouched. The host port uses sem.c's C version of
 * the same fast path, under PRIMASK.
 *
 * Here interrupts stay enabled: the fields are a restartable sequence. Only another thread
 * or the message level can touch a mutex, and they run only after PendSV or an interrupt's
 * give has switched away from the thread, each of which calls arch_thread_settle first
 * (kernel/core/thread.c): stopped in the checks, the thread restarts them; stopped in the
 * stores, the kernel makes them all (cairn__sem_fast_take_finish / _give_finish) and the
 * thread resumes at the return. An interrupt that switches nothing leaves it to go on.
 */
#include <stddef.h>

#include "../../core/thread.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* cairn_sem_t and cairn_kernel_t offsets the assembly uses. */
#define SEM_HOLDER 4
#define SEM_NEXT_HELD 8
#define SEM_COUNT 12
#define SEM_OWNER 16
#define SEM_MUTEX 17
#define K_ISR_DEPTH 36 /* in_thread follows: one halfword, 0x0100 in a thread */
_Static_assert(offsetof(cairn_sem_t, waiters) == 0, "waiters");
_Static_assert(offsetof(cairn_sem_t, holder) == SEM_HOLDER, "holder");
_Static_assert(offsetof(cairn_sem_t, next_held) == SEM_NEXT_HELD, "next_held");
_Static_assert(offsetof(cairn_sem_t, count) == SEM_COUNT, "count");
_Static_assert(offsetof(cairn_sem_t, owner) == SEM_OWNER, "owner");
_Static_assert(offsetof(cairn_sem_t, mutex) == SEM_MUTEX, "mutex");
_Static_assert(offsetof(cairn_kernel_t, isr_depth) == K_ISR_DEPTH, "isr_depth");
_Static_assert(offsetof(cairn_kernel_t, in_thread) == K_ISR_DEPTH + 1, "in_thread");
_Static_assert(offsetof(struct cairn_thread_state, cur) == 0, "cur");
_Static_assert(CAIRN_TASK_NONE == 0, "owner none");

/* r3 = the running thread, or to 1f (the general path) when the caller is not a thread or s
 * (r0) is not a mutex. What it reads holds for as long as the caller runs: s's kind, whether
 * a thread runs, which one. */
#define PROLOGUE                                                                                   \
    "cmp   r0, #0\n\t"                                                                             \
    "beq   1f\n\t"                                                                                 \
    "ldrb  r2, [r0, #" STR(SEM_MUTEX) "]\n\t"                                                      \
    "cmp   r2, #0\n\t"                                                                             \
    "beq   1f\n\t"                                                                                 \
    "ldr   r3, =cairn_k\n\t"                                                                       \
    "ldrh  r2, [r3, #" STR(K_ISR_DEPTH) "]\n\t"                                                    \
    "subs  r2, #255\n\t"                                                                           \
    "cmp   r2, #1\n\t"                                                                             \
    "bne   1f\n\t"                                                                                 \
    "movs  r2, #" STR(CAIRN_K_THREADS) "\n\t"                                                      \
    "ldr   r3, [r3, r2]\n\t"                                                                       \
    "ldr   r3, [r3]\n\t"

/* The restartable part: the checks of the mutex's state, with r0 (s) and r1 (the time limit)
 * untouched, from _ras (restarted there), then the stores from _commit, whose values are all
 * in r0, r2 and r3 by then (completed by cairn__sem_fast_take_finish / _give_finish), to
 * _done. Both functions in one section, the take first: arch_thread_settle passes over any
 * other interrupted address with one comparison. */
__asm__(".pushsection .text.cairn_sem_fast,\"ax\",%progbits\n\t"
        ".balign 4\n\t"
        ".global cairn_sem_take\n\t"
        ".type  cairn_sem_take, %function\n\t"
        ".thumb_func\n"
        "cairn_sem_take:\n\t"
        PROLOGUE
        ".global cairn__sem_take_ras\n"
        "cairn__sem_take_ras:\n\t"
        "ldrh  r2, [r0, #" STR(SEM_COUNT) "]\n\t"
        "cmp   r2, #0\n\t"
        "beq   1f\n\t" /* taken */
        "ldr   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n"
        ".global cairn__sem_take_commit\n"
        "cairn__sem_take_commit:\n\t"
        "movs  r1, #0\n\t"
        "strh  r1, [r0, #" STR(SEM_COUNT) "]\n\t"
        "ldrb  r1, [r3, #" STR(CAIRN_TH_ID) "]\n\t"
        "strb  r1, [r0, #" STR(SEM_OWNER) "]\n\t"
        "str   r3, [r0, #" STR(SEM_HOLDER) "]\n\t"
        "str   r2, [r0, #" STR(SEM_NEXT_HELD) "]\n\t"
        "str   r0, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n"
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
        PROLOGUE
        ".global cairn__sem_give_ras\n"
        "cairn__sem_give_ras:\n\t"
        "ldr   r2, [r0]\n\t"
        "cmp   r2, #0\n\t"
        "bne   1f\n\t" /* waiters */
        "ldr   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
        "cmp   r2, r0\n\t"
        "bne   1f\n\t" /* not the last it took, or not its own (a thread's list holds its own) */
        "ldr   r2, [r0, #" STR(SEM_NEXT_HELD) "]\n"
        ".global cairn__sem_give_commit\n"
        "cairn__sem_give_commit:\n\t"
        "str   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
        "movs  r1, #0\n\t"
        "str   r1, [r0, #" STR(SEM_NEXT_HELD) "]\n\t"
        "str   r1, [r0, #" STR(SEM_HOLDER) "]\n\t"
        "strb  r1, [r0, #" STR(SEM_OWNER) "]\n\t"
        "movs  r1, #1\n\t"
        "strh  r1, [r0, #" STR(SEM_COUNT) "]\n"
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
         * on to settle_sequence only when it lies between the take's checks and the give's
         * return (the span fits CMP's 8 bits, or this does not assemble). */
        ".global arch_thread_settle\n\t"
        ".type  arch_thread_settle, %function\n\t"
        ".thumb_func\n"
        "arch_thread_settle:\n\t"
        "mrs   r0, psp\n\t"
        "ldr   r1, [r0, #24]\n\t"
        "ldr   r2, =cairn__sem_take_ras\n\t"
        "subs  r1, r1, r2\n\t"
        "cmp   r1, #(cairn__sem_give_done - cairn__sem_take_ras)\n\t"
        "bhs   1f\n\t"
        "ldr   r2, =cairn__armv6m_settle_sequence\n\t"
        "bx    r2\n"
        "1:\n\t"
        "bx    lr\n\t"
        ".ltorg\n\t"
        ".size  arch_thread_settle, . - arch_thread_settle\n\t"
        ".popsection\n");

/* The labels above (code addresses, Thumb bit clear like a stacked PC). */
extern const char cairn__sem_take_ras[], cairn__sem_take_commit[], cairn__sem_take_done[];
extern const char cairn__sem_give_ras[], cairn__sem_give_commit[], cairn__sem_give_done[];

static bool within(uint32_t pc, const char *lo, const char *hi)
{
    return pc - (uint32_t)(uintptr_t)lo < (uint32_t)(hi - lo);
}

/* The interrupted thread's exception frame f: r0-r3, r12, lr, pc, xPSR; its pc lies between
 * the take's checks and the give's return (arch_thread_settle above). */
void cairn__armv6m_settle_sequence(uint32_t *f);
void cairn__armv6m_settle_sequence(uint32_t *f)
{
    uint32_t pc = f[6];
    cairn_sem_t *s = (cairn_sem_t *)(uintptr_t)f[0], *older = (cairn_sem_t *)(uintptr_t)f[2];
    cairn_thread_t *t = (cairn_thread_t *)(uintptr_t)f[3];
    if (within(pc, cairn__sem_take_ras, cairn__sem_take_commit)) {
        f[6] = (uint32_t)(uintptr_t)cairn__sem_take_ras;
    } else if (within(pc, cairn__sem_give_ras, cairn__sem_give_commit)) {
        f[6] = (uint32_t)(uintptr_t)cairn__sem_give_ras;
    } else if (within(pc, cairn__sem_take_commit, cairn__sem_take_done)) {
        cairn__sem_fast_take_finish(s, t, older);
        f[6] = (uint32_t)(uintptr_t)cairn__sem_take_done;
        cairn_k.threads->sem_stats.fast_completions++;
        return;
    } else if (within(pc, cairn__sem_give_commit, cairn__sem_give_done)) {
        cairn__sem_fast_give_finish(s, t, older);
        f[6] = (uint32_t)(uintptr_t)cairn__sem_give_done;
        cairn_k.threads->sem_stats.fast_completions++;
        return;
    } else {
        return; /* the take's general branch, the give's prologue */
    }
    cairn_k.threads->sem_stats.fast_restarts++;
}
