/*
 * Cairn OS armv6m port: the uncontended mutex inline at the call site (cairn_mutex_lock and
 * cairn_mutex_unlock in cairn/sem.h; docs/kernel.md, "Semaphores").
 *
 * The same one-word state as kernel/arch/armv6m/sem_fast.c, without the call: the caller's
 * token (a thread runs, no interrupt: cairn_k.top is its frame, the token follows it), then
 * the word's load, test and store. Anything else goes to the general path in C. From the
 * word's load to its store is a restartable sequence, here at every call site: it follows
 * the marker MOV r12, r12 (which compilers do not emit), by which arch_thread_settle knows it
 * wherever it was inlined and restarts it at the load. Included by cairn/sem.h only.
 */
#ifndef CAIRN_PORT_MUTEX_H
#define CAIRN_PORT_MUTEX_H

#include "cairn/irq.h" /* struct cairn_frame: the token follows a thread's frame */

/* cairn_kernel_t offsets (checked in sem_fast.c): isr_depth and in_thread as one halfword,
 * 0x0100 while a thread runs; the top of the execution stack. */
#define CAIRN_PORT_K_ISR_DEPTH 36
#define CAIRN_PORT_K_TOP 20
/* The halfword before an inline sequence's load: MOV r12, r12. */
#define CAIRN_PORT_MUTEX_MARKER 0x46E4

struct cairn_kernel;
extern struct cairn_kernel cairn_k;
cairn_ret_t cairn__sem_take_general(cairn_sem_t *s, uint32_t timeout);
cairn_ret_t cairn__sem_give_general(cairn_sem_t *s);

/* Both sequences start alike: r3 = the calling thread's token, or to `general` when no thread
 * calls (an interrupt, the message level); then the marker arch_thread_settle looks for
 * right before the restartable load of the word. */
#define CAIRN_PORT_MUTEX_CALLER                                                                    \
    "ldrh  r2, [%[k], %[isr]]\n\t"                                                                \
    "subs  r2, #255\n\t"                                                                          \
    "cmp   r2, #1\n\t"                                                                            \
    "bne   %l[general]\n\t"                                                                       \
    "ldr   r3, [%[k], %[top]]\n\t"                                                                \
    "ldr   r3, [r3, %[after_frame]]\n\t"                                                          \
    "mov   r12, r12\n\t"
#define CAIRN_PORT_MUTEX_OPERANDS                                                                  \
    : [m] "l"(m), [k] "l"(&cairn_k), [isr] "i"(CAIRN_PORT_K_ISR_DEPTH),                           \
      [top] "i"(CAIRN_PORT_K_TOP), [after_frame] "i"(sizeof(struct cairn_frame))                   \
    : "r2", "r3", "cc", "memory"                                                                   \
    : general

static inline __attribute__((always_inline)) cairn_ret_t cairn_mutex_lock(cairn_sem_t *m)
{
    __asm__ goto(CAIRN_PORT_MUTEX_CALLER
                 "ldr   r2, [%[m]]\n\t"
                 "cmp   r2, #0\n\t"
                 "bne   %l[general]\n\t"
                 "str   r3, [%[m]]\n\t"
                 : CAIRN_PORT_MUTEX_OPERANDS);
    return CAIRN_OK;
general:
    __attribute__((cold));
    return cairn__sem_take_general(m, UINT32_MAX /* CAIRN_THREAD_FOREVER */);
}

static inline __attribute__((always_inline)) cairn_ret_t cairn_mutex_unlock(cairn_sem_t *m)
{
    __asm__ goto(CAIRN_PORT_MUTEX_CALLER
                 "ldr   r2, [%[m]]\n\t"
                 "subs  r2, r2, r3\n\t"
                 "bne   %l[general]\n\t"
                 "str   r2, [%[m]]\n\t"
                 : CAIRN_PORT_MUTEX_OPERANDS);
    return CAIRN_OK;
general:
    __attribute__((cold));
    return cairn__sem_give_general(m);
}

#endif /* CAIRN_PORT_MUTEX_H */
