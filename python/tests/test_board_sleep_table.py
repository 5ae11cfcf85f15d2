"""The mps2-an385 board's sleep-state table (kernel/boards/mps2-an385/sleep_states.c), which the
kernel's idle loop chooses from, holds the figures of the STM32L053 energy profile cairn-sim
charges (sim/profiles/stm32l053.toml) at the board's clock: recomputed here, so the two cannot
drift apart."""

from __future__ import annotations

import re
import tomllib

from cairn.paths import repo_root

BOARD_HZ = 25_000_000


def _table() -> dict[str, dict[str, int]]:
    text = (repo_root() / "kernel/boards/mps2-an385/sleep_states.c").read_text()
    states = {}
    for m in re.finditer(r'\{\.name = "(\w+)", \.power_uw = (\d+), \.wakeup_us = (\d+), \.transition_nj = (\d+)', text):
        states[m.group(1)] = {"power_uw": int(m.group(2)), "wakeup_us": int(m.group(3)), "transition_nj": int(m.group(4))}
    run = re.search(r"\.run_power_uw = (\d+)", text)
    assert run is not None and set(states) == {"sleep", "deepsleep"}, text
    states["run"] = {"power_uw": int(run.group(1))}
    return states


def test_board_table_is_the_stm32l053_profile() -> None:
    prof = tomllib.loads((repo_root() / "sim/profiles/stm32l053.toml").read_text())
    volts = prof["supply"]["voltage_v"]
    mhz = BOARD_HZ / 1e6
    run_uw = prof["run"]["ua_per_mhz"] * mhz * volts
    sleep = prof["sleep"]
    deep = prof["deep_sleep"]
    sleep_uw = (sleep["ua_per_mhz"] * mhz + sleep["static_ua"]) * volts
    deep_uw = (deep["ua_per_mhz"] * mhz + deep["static_ua"]) * volts
    # wakeup_ua = -1: the run current at the clock in use, for the wake-up time.
    deep_wake_uw = run_uw if deep["wakeup_ua"] < 0 else deep["wakeup_ua"] * volts
    t = _table()
    assert t["run"]["power_uw"] == round(run_uw)
    assert t["sleep"]["power_uw"] == round(sleep_uw)
    assert t["sleep"]["wakeup_us"] == round(sleep["wakeup_us"])
    assert t["deepsleep"]["power_uw"] == max(1, round(deep_uw))
    assert t["deepsleep"]["wakeup_us"] == round(deep["wakeup_us"])
    assert t["deepsleep"]["transition_nj"] == int(deep_wake_uw * deep["wakeup_us"] / 1000)
