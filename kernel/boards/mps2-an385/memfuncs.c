/*
 * memcpy/memmove/memset/memcmp: GCC may emit calls to these even in
 * freestanding code (struct copies, zeroing loops), and the firmware links
 * with -nostdlib. Word-at-a-time when alignment allows (the kernel zeroes and
 * copies small structs on hot paths); the loops must not be turned back into calls.
 */
#include <stddef.h>
#include <stdint.h>

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* Four words a turn with LDM/STM (quads > 0): 13 cycles per 16 bytes, where a C loop (GCC -Os spills its registers) takes about 30.
 * Large copies are a migrating task's state, copied at each end of the bus; out of line,
 * so that small copies (structs on hot paths) keep their registers. */
__attribute__((noinline)) static void copy16(uint8_t *d, const uint8_t *s, size_t quads)
{
    __asm__ volatile("1:\n\t"
                     "ldmia %[s]!, {r3, r4, r5, r6}\n\t"
                     "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                     "subs %[q], %[q], #1\n\t"
                     "bne 1b\n\t"
                     : [d] "+l"(d), [s] "+l"(s), [q] "+l"(quads)
                     :
                     : "r3", "r4", "r5", "r6", "cc", "memory");
}

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        if (n >= 64) {
            size_t done = n & ~(size_t)15u;
            copy16(d, s, done / 16u);
            d += done;
            s += done;
            n -= done;
        }
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    for (; n > 0 && ((uintptr_t)d & 3u) != 0; n--)
        *d++ = (uint8_t)c;
    uint32_t w = (uint8_t)c * 0x01010101u;
    for (; n >= 4; n -= 4, d += 4)
        *(uint32_t *)(void *)d = w;
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}
