/*
 * What the device applications (pipeline, multicast, timesync, migration, checkpoint and
 * the distributed benchmarks) print when their start-up fails.
 */
#ifndef CAIRN_APP_FAIL_H
#define CAIRN_APP_FAIL_H

#include "cairn/types.h"

/* Prints "FAIL <what> <r>" on UART0 and returns 1, main's exit status. */
int app_fail(const char *what, cairn_ret_t r);

#endif /* CAIRN_APP_FAIL_H */
