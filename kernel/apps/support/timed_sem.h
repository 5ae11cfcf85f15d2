/*
 * A semaphore's take and give timed between two trace-port marker stores, shared by the
 * kernel benchmark and the Thread-Metric-style suite: the calls are written in assembly so
 * nothing the compiler schedules falls between the markers.
 */
#ifndef CAIRN_APPS_TIMED_SEM_H
#define CAIRN_APPS_TIMED_SEM_H

#include <stdint.h>

#include "cairn/sem.h"

#define TIMED_SEM_TRACE_PORT 0x41000000u

/* cairn_sem_take(s, CAIRN_THREAD_FOREVER) then cairn_sem_give(s) between the markers. */
static __attribute__((noinline, unused)) void timed_take_give(cairn_sem_t *s, uint32_t w0, uint32_t w1)
{
    register uint32_t r4 __asm__("r4") = (uint32_t)s;
    __asm__ volatile("str  %[m0], [%[p]]\n\t"
                     "movs r0, r4\n\t"
                     "movs r1, #0\n\t"
                     "mvns r1, r1\n\t"
                     "bl   cairn_sem_take\n\t"
                     "movs r0, r4\n\t"
                     "bl   cairn_sem_give\n\t"
                     "str  %[m1], [%[p]]\n\t"
                     :
                     : "l"(r4), [p] "l"(TIMED_SEM_TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r0", "r1", "r2", "r3", "r12", "lr", "memory", "cc");
}

#endif /* CAIRN_APPS_TIMED_SEM_H */
