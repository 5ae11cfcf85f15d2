/*
 * Firmware tests of the armv6m port: a register-heavy computation that an
 * interrupt can preempt half-way, to check that the interrupted code's
 * registers and flags survive what the kernel does in between.
 */
#ifndef CAIRN_TEST_BUSY_H
#define CAIRN_TEST_BUSY_H

#include <stdint.h>

#include "cpu.h"
#include "nvic.h"

/* A checksum over n rounds that pends `irq` at round pend_at (-1: never). */
static inline uint32_t busy_checksum(uint32_t n, int pend_at, unsigned irq)
{
    uint32_t a = 1, b = 0x9E3779B9u, c = 7, d = 0xDEADBEEFu, e = 3;
    for (uint32_t i = 0; i < n; i++) {
        if ((int)i == pend_at) {
            nvic_set_pending(irq);
            cpu_sync();
        }
        a += b ^ i;
        b = (b << 3) | (b >> 29);
        c ^= a + d;
        d -= c >> 2;
        e += (a < b) ? c : d;
    }
    return a ^ b ^ c ^ d ^ e;
}

#endif /* CAIRN_TEST_BUSY_H */
