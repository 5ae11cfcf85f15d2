/*
 * Board mps2-an385: the sleep states of its Cortex-M0+ for the kernel's idle
 * choice (cairn/sleep.h; docs/kernel.md, "Idle").
 *
 * The MPS2 FPGA board has no meaningful power figures of its own, and cairn-sim
 * does not model power yet. The numbers below are PLACEHOLDERS of the order of an
 * STM32L0-class Cortex-M0+ at 3 V, not taken from a datasheet checked here; they
 * are to be replaced by the energy profiles of issue 4:
 *   run        ~2.5 mA at 25 MHz (~100 uA/MHz)                  -> 7500 uW
 *   sleep      WFI, core clock gated, peripherals clocked:
 *              ~0.9 mA (~35 uA/MHz), wakes in a few cycles      -> 2700 uW, 0 us
 *              (below the table's resolution: no early wake-up),
 *              transition ~ run power over 1 us                 -> 8 nJ
 *   deepsleep  WFI + SLEEPDEEP (Stop-like: clocks off, RAM kept):
 *              ~1 uA, wake-up ~5 us (regulator, oscillator);     -> 3 uW, 5 us,
 *              transition ~ run power over 10 us (entry + exit) -> 75 nJ
 * With these, the break-even times (rounded up) are 2 us (sleep against running)
 * and 25 us (deepsleep against sleep): deepsleep when the next timer is at least
 * 25 us (625 ticks at 25 MHz) away. A 5 us wake-up latency is below
 * CAIRN_IDLE_WAKE_EARLY_MIN_US: the kernel does not wake early for it.
 *
 * Included by relative path: the board sources are compiled without the kernel's
 * include directory (kernel/firmware.mk).
 */
#include "../../include/cairn/sleep.h"

#include "board.h"

static const struct cairn_sleep_state states[] = {
    {.name = "sleep", .power_uw = 2700, .wakeup_us = 0, .transition_nj = 8, .kind = CAIRN_SLEEP_WFI},
    {.name = "deepsleep", .power_uw = 3, .wakeup_us = 5, .transition_nj = 75, .kind = CAIRN_SLEEP_DEEP},
};

const struct cairn_sleep_table board_sleep_table = {
    .states = states,
    .count = sizeof states / sizeof states[0],
    .run_power_uw = 7500,
    .tick_hz = BOARD_CORE_CLOCK_HZ, /* the CMSDK timers of the port run at PCLK */
};
