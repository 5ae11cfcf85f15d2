/*
 * Cairn OS: the kernel's state (core/kernel.h), on its own so that parts used
 * alone (the heap in its unit tests) do not pull in the scheduler.
 */
#include "kernel.h"

cairn_kernel_t cairn_k;
