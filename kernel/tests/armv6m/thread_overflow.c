/*
 * Cairn OS armv6m port: a thread that overflows its stack (cairn/thread.h).
 * The thread "deep" recurses until its stack reaches the guard word; the check
 * at the next context switch finds it overwritten, reports the thread's name on
 * the semihosting console and stops the module with CAIRN_EXIT_STACK_OVERFLOW
 * (cairn-sim and QEMU, same transcript and status). Reaching the end is a failure.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"

static _Alignas(8) uint8_t heap[4096];
static _Alignas(8) uint8_t stack_deep[512];
/* Placed right below the thread's stack (GCC lays .bss out in reverse order of
 * definition): what the overflow tramples instead of the test's own data. */
static _Alignas(8) volatile uint8_t landing[512];

static uint32_t recurse(uint32_t n, volatile uint32_t *lowest)
{
    volatile uint32_t pad[8];
    for (unsigned i = 0; i < 8; i++)
        pad[i] = n + i;
    *lowest = (uint32_t)(uintptr_t)&pad[0];
    if (n == 0)
        return pad[7];
    return recurse(n - 1, lowest) + pad[0];
}

static volatile uint32_t lowest;

static void deep(void *arg)
{
    (void)arg;
    /* 48-byte frames: deep enough to cross the bottom of 512 bytes. */
    (void)recurse(12, &lowest);
    cairn_thread_yield();
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER); /* the switch away checks the guard */
}

int main(void)
{
    test_begin("armv6m-thread-overflow");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    say("deep recurses past its stack");
    landing[0] = 0;
    check_eq("create deep", (uint32_t)cairn_thread_create(3, "deep", deep, 0, stack_deep, sizeof stack_deep, 2, 0, 0), 0);
    check(0, "the overflow was not caught");
    return test_end();
}
