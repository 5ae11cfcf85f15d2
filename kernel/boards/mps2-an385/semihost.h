/*
 * ARM semihosting (BKPT 0xAB, operation in r0, parameter in r1, result in r0).
 * Works on QEMU with `-semihosting` and on cairn-sim. On hardware without a
 * debugger attached, BKPT escalates to HardFault.
 */
#ifndef CAIRN_BOARD_SEMIHOST_H
#define CAIRN_BOARD_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

#define SYS_OPEN          0x01u
#define SYS_CLOSE         0x02u
#define SYS_WRITEC        0x03u
#define SYS_WRITE0        0x04u
#define SYS_WRITE         0x05u
#define SYS_CLOCK         0x10u
#define SYS_TIME          0x11u
#define SYS_EXIT          0x18u
#define SYS_EXIT_EXTENDED 0x20u
#define SYS_ELAPSED       0x30u
#define SYS_TICKFREQ      0x31u

#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR    0x20023u

/* SYS_OPEN modes (ISO C fopen modes 0..11); ":tt" with mode 4 ("w") is the
 * console output stream. */
#define SH_MODE_R 0u
#define SH_MODE_W 4u

uint32_t sh_call(uint32_t op, const void *arg);

void sh_writec(char c);
void sh_write0(const char *s);
/* Returns the number of bytes NOT written (0 on success). */
uint32_t sh_write(int32_t handle, const void *buf, size_t len);
/* Returns a handle (non-negative) or -1. */
int32_t sh_open(const char *name, uint32_t mode);
int32_t sh_close(int32_t handle);
/* Centiseconds since the program started, or (uint32_t)-1. */
uint32_t sh_clock(void);
/* Seconds since 1970-01-01, or (uint32_t)-1. */
uint32_t sh_time(void);
/* Ticks since an arbitrary start; returns 0 on success, -1 if unsupported. */
int32_t sh_elapsed(uint64_t *ticks);
/* Tick frequency of sh_elapsed in Hz, or -1 if unknown. */
int32_t sh_tickfreq(void);

/* Stop the run; the host's exit status is `code` (0..255 on QEMU). Uses
 * SYS_EXIT_EXTENDED {ADP_Stopped_ApplicationExit, code}. */
__attribute__((noreturn)) void sh_exit(uint32_t code);

#endif
