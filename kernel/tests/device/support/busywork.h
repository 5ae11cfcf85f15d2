/*
 * The benchmark workload of device-busy-*.elf and device-sleepy.elf: CPU-bound work,
 * timed in the module's own core cycles, with a frame to the next module every period.
 */
#ifndef CAIRN_TEST_DEVICE_BUSYWORK_H
#define CAIRN_TEST_DEVICE_BUSYWORK_H

#include <stdint.h>

/* The processor clock the workload assumes (compile-time: firmware cannot read its clock)
 * and how long it runs, in ms of its own time; -D overrides both. */
#ifndef CLOCK_HZ
#define CLOCK_HZ 48000000u
#endif
#ifndef RUN_MS
#define RUN_MS 20u
#endif
#define RUN_CYCLES ((uint32_t)((uint64_t)(CLOCK_HZ) * (RUN_MS) / 1000u))
_Static_assert((uint64_t)(CLOCK_HZ) * (RUN_MS) / 1000u < 0x80000000u, "RUN_MS too long: 31-bit cycle count");

/* Runs the workload for run_cycles core cycles (SysTick at the processor clock), sending
 * an 8-byte frame [address, sequence number] to (address + 1) mod modules every
 * period_cycles (none when 0) and popping received frames in the RX interrupt; then prints
 * "busy m<addr> sent <s> received <r>" and returns 0. A frame that falls due while the TX
 * queue is full (STATUS.TX_READY clear) is skipped, not waited for, and not counted. */
int busywork_run(uint32_t period_cycles, uint32_t run_cycles);

#endif
