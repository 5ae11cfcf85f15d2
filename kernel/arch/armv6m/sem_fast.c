/*
 * Cairn OS armv6m port: the uncontended mutex in assembly (docs/kernel.md, "Semaphores").
 *
 * cairn_sem_take of a free mutex by a thread, and cairn_sem_give of the mutex a thread took
 * last with nobody waiting, are a few fields under PRIMASK: the count, the owner and holder,
 * the holder's list of mutexes. Anything else (no mutex, a handler or an interrupt calling,
 * the mutex taken, waiters, another mutex taken after it) branches to the general path in
 * kernel/core/sem.c with the arguments untouched. The host port uses sem.c's C version of
 * the same fast path.
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
#define K_THREADS 192
_Static_assert(offsetof(cairn_sem_t, waiters) == 0, "waiters");
_Static_assert(offsetof(cairn_sem_t, holder) == SEM_HOLDER, "holder");
_Static_assert(offsetof(cairn_sem_t, next_held) == SEM_NEXT_HELD, "next_held");
_Static_assert(offsetof(cairn_sem_t, count) == SEM_COUNT, "count");
_Static_assert(offsetof(cairn_sem_t, owner) == SEM_OWNER, "owner");
_Static_assert(offsetof(cairn_sem_t, mutex) == SEM_MUTEX, "mutex");
_Static_assert(offsetof(cairn_kernel_t, isr_depth) == K_ISR_DEPTH, "isr_depth");
_Static_assert(offsetof(cairn_kernel_t, in_thread) == K_ISR_DEPTH + 1, "in_thread");
_Static_assert(offsetof(cairn_kernel_t, threads) == K_THREADS, "threads");
_Static_assert(offsetof(struct cairn_thread_state, cur) == 0, "cur");
_Static_assert(CAIRN_TASK_NONE == 0, "owner none");

/* r3 = the running thread, or to 1f (the general path) when the caller is not a thread or s
 * (r0) is not a mutex. Then PRIMASK saved in r12, interrupts off. */
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
    "movs  r2, #" STR(K_THREADS) "\n\t"                                                            \
    "ldr   r3, [r3, r2]\n\t"                                                                       \
    "ldr   r3, [r3]\n\t"                                                                           \
    "mrs   r2, primask\n\t"                                                                        \
    "cpsid i\n\t"                                                                                  \
    "mov   r12, r2\n\t"

__attribute__((naked)) cairn_ret_t cairn_sem_take(cairn_sem_t *s, uint32_t timeout)
{
    (void)s;
    (void)timeout;
    __asm__ volatile(PROLOGUE
                     "ldrh  r2, [r0, #" STR(SEM_COUNT) "]\n\t"
                     "cmp   r2, #0\n\t"
                     "beq   2f\n\t" /* taken */
                     "movs  r2, #0\n\t"
                     "strh  r2, [r0, #" STR(SEM_COUNT) "]\n\t"
                     "ldrb  r2, [r3, #" STR(CAIRN_TH_ID) "]\n\t"
                     "strb  r2, [r0, #" STR(SEM_OWNER) "]\n\t"
                     "str   r3, [r0, #" STR(SEM_HOLDER) "]\n\t"
                     "ldr   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
                     "str   r2, [r0, #" STR(SEM_NEXT_HELD) "]\n\t"
                     "str   r0, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
                     "mov   r2, r12\n\t"
                     "msr   primask, r2\n\t"
                     "movs  r0, #0\n\t"
                     "bx    lr\n\t"
                     "2:\n\t"
                     "mov   r2, r12\n\t"
                     "msr   primask, r2\n\t"
                     "1:\n\t"
                     "ldr   r2, =cairn__sem_take_general\n\t"
                     "bx    r2\n\t"
                     ".ltorg\n\t");
}

__attribute__((naked)) cairn_ret_t cairn_sem_give(cairn_sem_t *s)
{
    (void)s;
    __asm__ volatile(PROLOGUE
                     "ldr   r2, [r0, #" STR(SEM_HOLDER) "]\n\t"
                     "cmp   r2, r3\n\t"
                     "bne   2f\n\t" /* not the caller's (or free) */
                     "ldr   r2, [r0]\n\t"
                     "cmp   r2, #0\n\t"
                     "bne   2f\n\t" /* waiters */
                     "ldr   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
                     "cmp   r2, r0\n\t"
                     "bne   2f\n\t" /* not the last it took */
                     "ldr   r2, [r0, #" STR(SEM_NEXT_HELD) "]\n\t"
                     "str   r2, [r3, #" STR(CAIRN_TH_MUTEXES) "]\n\t"
                     "movs  r2, #0\n\t"
                     "str   r2, [r0, #" STR(SEM_NEXT_HELD) "]\n\t"
                     "str   r2, [r0, #" STR(SEM_HOLDER) "]\n\t"
                     "strb  r2, [r0, #" STR(SEM_OWNER) "]\n\t"
                     "movs  r2, #1\n\t"
                     "strh  r2, [r0, #" STR(SEM_COUNT) "]\n\t"
                     "mov   r2, r12\n\t"
                     "msr   primask, r2\n\t"
                     "movs  r0, #0\n\t"
                     "bx    lr\n\t"
                     "2:\n\t"
                     "mov   r2, r12\n\t"
                     "msr   primask, r2\n\t"
                     "1:\n\t"
                     "ldr   r2, =cairn__sem_give_general\n\t"
                     "bx    r2\n\t"
                     ".ltorg\n\t");
}
