/*
 * Main-stack overflow: recurses until MSP is below __stack_limit, the lowest
 * address the linker script leaves the main stack, then returns normally.
 * ARMv6-M has no stack limit register: on hardware (and QEMU) this just runs
 * on over the RAM below the limit. cairn-sim watches MSP against the limit:
 * it warns once and reports the overflow in its stats, or with
 * --stack-check=fault stops at the push that crossed the limit (exit 123).
 * The frames below the limit land in RAM this test leaves unused (its .bss
 * ends far below), so the transcript is the same either way.
 */
#include <stdint.h>

#include "check.h"
#include "cpu.h"

extern char __stack_limit[];
extern char __noinit_end[];

static uint32_t limit(void)
{
    return (uint32_t)(uintptr_t)__stack_limit;
}

/* One frame per call until MSP is below the limit; returns the depth reached.
 * The volatile frame and the use of the callee's result after the call keep
 * the compiler from turning the recursion into a loop. */
__attribute__((noinline)) static uint32_t recurse(uint32_t depth)
{
    volatile uint32_t frame[8];
    frame[0] = depth;
    if (cpu_get_msp() >= limit())
        return recurse(depth + 1) + (frame[0] - depth);
    return depth;
}

int main(void)
{
    test_begin("stack_overflow");
    check_yes("the limit leaves room below it for the overflow",
              limit() - (uint32_t)(uintptr_t)__noinit_end >= 1024u);
    uint32_t depth = recurse(0);
    check_yes("recursed below __stack_limit", depth > 0u);
    check_yes("MSP back above the limit", cpu_get_msp() >= limit());
    return test_end();
}
