/*
 * ARMv6-M core intrinsics: interrupt masking, barriers, sleep and special
 * registers. Only instructions that exist on the Cortex-M0+.
 */
#ifndef CAIRN_BOARD_CPU_H
#define CAIRN_BOARD_CPU_H

#include <stdint.h>

static inline void cpu_irq_disable(void) { __asm__ volatile("cpsid i" ::: "memory"); }
/* CPSIE followed by ISB so a pending interrupt is taken before the next
 * instruction (QEMU only checks for interrupts at translation-block ends;
 * ISB ends the block). */
static inline void cpu_irq_enable(void) { __asm__ volatile("cpsie i\n\tisb" ::: "memory"); }
static inline void cpu_dsb(void) { __asm__ volatile("dsb" ::: "memory"); }
static inline void cpu_isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline void cpu_dmb(void) { __asm__ volatile("dmb" ::: "memory"); }
static inline void cpu_wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void cpu_nop(void) { __asm__ volatile("nop"); }

/* Sleep with WFI until `cond` holds, without losing a wake-up: `cond` is
 * tested with PRIMASK set, and WFI wakes on a pending interrupt even then
 * (ARMv6-M); the handler runs at the CPSIE. Testing `cond` with interrupts
 * enabled and then executing WFI can sleep forever if the last interrupt
 * comes in between. */
#define CPU_WAIT_UNTIL(cond)                                           \
    do {                                                               \
        cpu_irq_disable();                                             \
        while (!(cond)) {                                              \
            cpu_wfi();                                                 \
            cpu_irq_enable();                                          \
            cpu_irq_disable();                                         \
        }                                                              \
        cpu_irq_enable();                                              \
    } while (0)

/* Make a write to a system register (NVIC pend, ICSR) take effect before the
 * next instruction: any exception it makes pending is taken here. */
static inline void cpu_sync(void) { __asm__ volatile("dsb\n\tisb" ::: "memory"); }

#define CPU_DEFINE_MRS(name, reg)                                      \
    static inline uint32_t cpu_get_##name(void)                        \
    {                                                                  \
        uint32_t v;                                                    \
        __asm__ volatile("mrs %0, " #reg : "=r"(v)::"memory");         \
        return v;                                                      \
    }
#define CPU_DEFINE_MSR(name, reg)                                      \
    static inline void cpu_set_##name(uint32_t v)                      \
    {                                                                  \
        __asm__ volatile("msr " #reg ", %0\n\tisb" ::"r"(v) : "memory"); \
    }

CPU_DEFINE_MRS(primask, primask)
CPU_DEFINE_MRS(control, control)
CPU_DEFINE_MRS(ipsr, ipsr)
CPU_DEFINE_MRS(msp, msp)
CPU_DEFINE_MRS(psp, psp)
CPU_DEFINE_MSR(primask, primask)
CPU_DEFINE_MSR(control, control)
CPU_DEFINE_MSR(psp, psp)
CPU_DEFINE_MSR(msp, msp)

static inline uint32_t cpu_get_sp(void)
{
    uint32_t v;
    __asm__ volatile("mov %0, sp" : "=r"(v));
    return v;
}

/* EXC_RETURN values of ARMv6-M. */
#define EXC_RETURN_HANDLER    0xFFFFFFF1u /* return to Handler mode, MSP */
#define EXC_RETURN_THREAD_MSP 0xFFFFFFF9u /* return to Thread mode, MSP */
#define EXC_RETURN_THREAD_PSP 0xFFFFFFFDu /* return to Thread mode, PSP */

#define CONTROL_NPRIV (1u << 0)
#define CONTROL_SPSEL (1u << 1)

/* The eight words the core pushes on exception entry. */
struct exc_frame {
    uint32_t r0, r1, r2, r3, r12, lr, pc, xpsr;
};

#define XPSR_T (1u << 24)
#define XPSR_STACK_PADDED (1u << 9) /* stacked xPSR: 4 bytes of alignment padding above the frame */

/* Define exception handler `name` that calls
 *     void c_fn(struct exc_frame *frame, uint32_t exc_return)
 * with the stacked frame (from MSP or PSP as EXC_RETURN bit 2 says). c_fn
 * may change the frame (r0-r3 results, pc to skip an instruction); its
 * return is the exception return. c_fn must be declared `used`. */
#define CPU_FRAME_HANDLER(name, c_fn)                                  \
    __attribute__((naked)) void name(void)                             \
    {                                                                  \
        __asm__ volatile("movs r0, #4\n\t"                             \
                         "mov  r1, lr\n\t"                             \
                         "tst  r0, r1\n\t"                             \
                         "bne  1f\n\t"                                 \
                         "mrs  r0, msp\n\t"                            \
                         "b    2f\n"                                   \
                         "1:\n\t"                                      \
                         "mrs  r0, psp\n"                              \
                         "2:\n\t"                                      \
                         "ldr  r2, =" #c_fn "\n\t"                     \
                         "bx   r2\n\t"                                 \
                         ".ltorg\n");                                  \
    }

/* Call fn() in Thread mode on the process stack: PSP = psp_top (8-byte
 * aligned), CONTROL.SPSEL = 1; back on MSP when fn returns. */
void cpu_run_on_psp(void (*fn)(void), uint32_t *psp_top);

#endif
