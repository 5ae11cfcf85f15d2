/*
 * Core helpers that need a stack switch. See cpu.h.
 */
#include "cpu.h"

__attribute__((naked))
void cpu_run_on_psp(void (*fn)(void), uint32_t *psp_top)
{
    (void)fn;
    (void)psp_top;
    __asm__ volatile(
        "push {r4, lr}\n\t"   /* on MSP */
        "msr  psp, r1\n\t"
        "mrs  r4, control\n\t"
        "movs r2, #2\n\t"
        "orrs r2, r4\n\t"
        "msr  control, r2\n\t"
        "isb\n\t"
        "blx  r0\n\t"         /* fn runs on PSP */
        "msr  control, r4\n\t"
        "isb\n\t"
        "pop  {r4, pc}\n\t"); /* back on MSP */
}
