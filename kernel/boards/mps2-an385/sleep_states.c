/*
 * Board mps2-an385: the sleep states of its Cortex-M0+ for the kernel's idle
 * choice (cairn/sleep.h; docs/kernel.md, "Idle").
 *
 * The figures are those of the STM32L053 energy profile cairn-sim uses
 * (sim/profiles/stm32l053.toml, sources there) at this board's 25 MHz and 3.0 V,
 * so the kernel's choice matches what `cairn-sim --energy stm32l053` charges:
 *   run        139 uA/MHz x 25 MHz x 3.0 V                       -> 10425 uW
 *   sleep      WFI: 62.5 uA/MHz x 25 MHz x 3.0 V                 -> 4688 uW;
 *              wakes at once, nothing to pay for the transition  -> 0 us, 0 nJ
 *   deepsleep  WFI + SLEEPDEEP (Stop): 0.4 uA x 3.0 V            -> 1 uW;
 *              5 us wake-up at the run power                     -> 5 us, 52 nJ
 * python/tests/test_board_sleep_table.py recomputes these from the profile.
 * Break-even (rounded up): 0 us for sleep, 12 us for deepsleep against sleep. A
 * 5 us wake-up latency is below CAIRN_IDLE_WAKE_EARLY_MIN_US: no early wake-up.
 *
 * Included by relative path: the board sources are compiled without the kernel's
 * include directory (kernel/firmware.mk).
 */
#include "../../include/cairn/sleep.h"

#include "board.h"

static const struct cairn_sleep_state states[] = {
    {.name = "sleep", .power_uw = 4688, .wakeup_us = 0, .transition_nj = 0, .kind = CAIRN_SLEEP_WFI},
    {.name = "deepsleep", .power_uw = 1, .wakeup_us = 5, .transition_nj = 52, .kind = CAIRN_SLEEP_DEEP},
};

const struct cairn_sleep_table board_sleep_table = {
    .states = states,
    .count = sizeof states / sizeof states[0],
    .run_power_uw = 10425,
    .tick_hz = BOARD_CORE_CLOCK_HZ, /* the CMSDK timers of the port run at PCLK */
};
