/*
 * ARM semihosting calls. See semihost.h.
 */
#include "semihost.h"

uint32_t sh_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void sh_writec(char c)
{
    sh_call(SYS_WRITEC, &c);
}

void sh_write0(const char *s)
{
    sh_call(SYS_WRITE0, s);
}

uint32_t sh_write(int32_t handle, const void *buf, size_t len)
{
    uint32_t block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)len};
    return sh_call(SYS_WRITE, block);
}

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

int32_t sh_open(const char *name, uint32_t mode)
{
    uint32_t block[3] = {(uint32_t)(uintptr_t)name, mode, (uint32_t)str_len(name)};
    return (int32_t)sh_call(SYS_OPEN, block);
}

int32_t sh_close(int32_t handle)
{
    uint32_t block[1] = {(uint32_t)handle};
    return (int32_t)sh_call(SYS_CLOSE, block);
}

uint32_t sh_clock(void)
{
    return sh_call(SYS_CLOCK, 0);
}

uint32_t sh_time(void)
{
    return sh_call(SYS_TIME, 0);
}

int32_t sh_elapsed(uint64_t *ticks)
{
    uint32_t block[2] = {0, 0};
    int32_t r = (int32_t)sh_call(SYS_ELAPSED, block);
    *ticks = ((uint64_t)block[1] << 32) | block[0];
    return r;
}

int32_t sh_tickfreq(void)
{
    return (int32_t)sh_call(SYS_TICKFREQ, 0);
}

void sh_exit(uint32_t code)
{
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, code};
    for (;;)
        sh_call(SYS_EXIT_EXTENDED, block);
}
