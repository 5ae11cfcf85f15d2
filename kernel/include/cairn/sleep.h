/*
 * Cairn OS: sleep states and their choice by break-even time.
 *
 * A board describes its sleep states in a table, shallowest first; when nothing
 * can run, cairn_idle picks the deepest state whose break-even time and wake-up
 * latency both fit before the next timer expiry (docs/kernel.md, "Idle", has the
 * formula and its derivation from the CoMOS appendix).
 *
 * Units: power in microwatts, time in microseconds, energy in nanojoules
 * (1 uW x 1 us = 1 pJ = 0.001 nJ).
 */
#ifndef CAIRN_SLEEP_H
#define CAIRN_SLEEP_H

#include <stdint.h>

/* What the port does for a state (struct cairn_sleep_state.kind). */
#define CAIRN_SLEEP_WFI 0u  /* Cortex-M0+: WFI with SCR.SLEEPDEEP clear */
#define CAIRN_SLEEP_DEEP 1u /* Cortex-M0+: WFI with SCR.SLEEPDEEP set */

struct cairn_sleep_state {
    const char *name;
    uint32_t power_uw;      /* P_s: power while in the state */
    uint32_t wakeup_us;     /* T_w: time of entering + leaving the state (the wake-up latency) */
    uint32_t transition_nj; /* E_w: energy of entering + leaving the state (over T_w) */
    uint8_t kind;           /* CAIRN_SLEEP_* */
};

struct cairn_sleep_table {
    const struct cairn_sleep_state *states; /* shallowest first, deepest last */
    uint8_t count;                          /* >= 1 */
    uint32_t run_power_uw;                  /* P_run: power awake (the reference for states[0]) */
    uint32_t tick_hz;                       /* hardware timer ticks per second (> 0) */
};

/* The table cairn_idle uses: the port provides it (armv6m: the board's table,
 * host: a default or the one a test set). */
const struct cairn_sleep_table *arch_sleep_table(void);

/* Break-even time, in microseconds (rounded up), of states[i] against the next
 * shallower state (states[i-1], or running for i = 0): the idle time T for which
 * E_w(i) + P(i) (T - T_w(i)) = E_w(j) + P(j) (T - T_w(j)), or 0 when state i
 * costs no more for any T; UINT32_MAX when it never pays off (P(i) >= P(j)) or
 * the result does not fit in 32 bits. */
uint32_t cairn_sleep_breakeven_us(const struct cairn_sleep_table *t, unsigned i);

/* The idle loop has the timer interrupt come early by a state's wake-up latency
 * only when that latency is at least this long: below it, the extra interrupt
 * (a few hundred cycles) costs more than the lateness it saves. */
#ifndef CAIRN_IDLE_WAKE_EARLY_MIN_US
#define CAIRN_IDLE_WAKE_EARLY_MIN_US 20u
#endif

/* us microseconds in ticks of the table's timer, rounded up (saturated). */
uint32_t cairn_sleep_ticks(const struct cairn_sleep_table *t, uint32_t us);

/* Index of the state to sleep in for ticks until the next timer expiry
 * (UINT32_MAX: no timer; then the deepest state): the deepest state i with
 * T >= break-even(i) and T longer than T_w(i) (in ticks, rounded up: the kernel has
 * the timer interrupt come T_w early, which must leave some time asleep), where T
 * is ticks in microseconds; states[0] when none qualifies (the kernel must still
 * wait for an interrupt). */
unsigned cairn_sleep_choose(const struct cairn_sleep_table *t, uint32_t ticks);

#endif /* CAIRN_SLEEP_H */
