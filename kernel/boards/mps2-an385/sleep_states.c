/*
 * Board mps2-an385: the sleep states of its Cortex-M0+ for the kernel's idle
 * choice (cairn/sleep.h; docs/kernel.md, "Idle").
 *
 * The figures are those of the STM32L053 energy profile cairn-sim uses
 * (sim/profiles/stm32l053.toml, ST DS10152 tables cited there) at this board's 25 MHz
 * (voltage range 1) and 3.0 V, so the kernel's choice matches what
 * `cairn-sim --energy stm32l053` charges:
 *   run        Table 28, range 1, between 16 MHz (3.1 mA) and 32 MHz (6.3 mA):
 *              4.9 mA at 25 MHz x 3.0 V                           -> 14700 uW
 *   sleep      WFI, Table 32, range 1, between 16 MHz (730 uA) and 32 MHz
 *              (1650 uA): 1247.5 uA x 3.0 V                       -> 3742 uW;
 *              7 cycles to wake (Table 40), under a microsecond   -> 0 us, 0 nJ
 *   deepsleep  WFI + SLEEPDEEP (Stop): 0.41 uA (Table 35) + 0.48 uA
 *              for the RTC (Table 39), as the kernel's wake-up timer
 *              runs: 0.89 uA x 3.0 V                              -> 3 uW;
 *              4.9 us wake-up (Table 40) at 1 mA (Table 37)       -> 5 us, 14 nJ
 * python/tests/test_board_sleep_table.py recomputes these from the profile.
 * Break-even (rounded up): 0 us for sleep, 4 us for deepsleep against sleep. A
 * 5 us wake-up latency is below CAIRN_IDLE_WAKE_EARLY_MIN_US: no early wake-up.
 *
 * Included by relative path: the board sources are compiled without the kernel's
 * include directory (kernel/firmware.mk).
 */
#include "../../include/cairn/sleep.h"

#include "board.h"

static const struct cairn_sleep_state states[] = {
    {.name = "sleep", .power_uw = 3742, .wakeup_us = 0, .transition_nj = 0, .kind = CAIRN_SLEEP_WFI},
    {.name = "deepsleep", .power_uw = 3, .wakeup_us = 5, .transition_nj = 14, .kind = CAIRN_SLEEP_DEEP},
};

const struct cairn_sleep_table board_sleep_table = {
    .states = states,
    .count = sizeof states / sizeof states[0],
    .run_power_uw = 14700,
    .tick_hz = BOARD_CORE_CLOCK_HZ, /* the CMSDK timers of the port run at PCLK */
};
