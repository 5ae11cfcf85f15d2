"""The mps2-an385 board's sleep-state table (kernel/boards/mps2-an385/sleep_states.c), which the
kernel's idle loop chooses from, holds the figures of the STM32L053 energy profile cairn-sim
charges (sim/profiles/stm32l053.toml) at the board's clock: recomputed here, so the two cannot
drift apart (the kernel would otherwise pick sleep states by figures the simulator does not
charge)."""

from __future__ import annotations

import re
import tomllib
from typing import Any

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


def curve_ua(curve: dict[str, Any], mhz: float) -> float:
    """A profile current curve at `mhz` (sim/cairn-sim/src/energy/curve.rs): a line, or points
    interpolated linearly (extended along the nearest segment; one point: proportional)."""
    if "points" not in curve:
        return float(curve.get("static_ua", 0.0)) + float(curve.get("ua_per_mhz", 0.0)) * mhz
    pts = [(float(f), float(i)) for f, i in curve["points"]]
    if len(pts) == 1:
        return pts[0][1] / pts[0][0] * mhz
    k = min(max(sum(1 for f, _ in pts if f <= mhz), 1), len(pts) - 1)
    (f0, i0), (f1, i1) = pts[k - 1], pts[k]
    return max(0.0, i0 + (i1 - i0) / (f1 - f0) * (mhz - f0))


def range_at(prof: dict[str, Any], hz: int) -> dict[str, Any]:
    """The lowest-power range that runs `hz` (ranges are listed lowest power first)."""
    for r in prof["range"]:
        if hz <= r.get("max_hz", hz):
            return dict(r)
    raise AssertionError(f"no range runs {hz} Hz")


def test_curve_matches_the_simulator_examples() -> None:
    c = {"points": [[8.0, 1550.0], [16.0, 3100.0], [32.0, 6300.0]]}
    assert (curve_ua(c, 24.0), curve_ua(c, 4.0), curve_ua({"points": [[16.0, 800.0]]}, 8.0)) == (4700.0, 775.0, 400.0)


def test_board_table_is_the_stm32l053_profile() -> None:
    prof = tomllib.loads((repo_root() / "sim/profiles/stm32l053.toml").read_text())
    volts = prof["supply"]["voltage_v"]
    mhz = BOARD_HZ / 1e6
    rng = range_at(prof, BOARD_HZ)
    assert rng["id"] == 1, "25 MHz needs range 1"
    run_uw = curve_ua(rng["run"], mhz) * volts
    sleep = prof["sleep"]
    deep = prof["deep_sleep"]
    sleep_uw = curve_ua(rng["sleep"], mhz) * volts
    sleep_wake_us = sleep["wakeup_us"] + sleep.get("wakeup_cycles", 0) / mhz
    # The kernel's deep sleep always has its wake-up timer running: Stop plus the RTC.
    deep_uw = (deep["ua_per_mhz"] * mhz + deep["static_ua"] + deep.get("rtc_ua", 0.0)) * volts
    # wakeup_ua = -1: the run current at the clock in use, for the wake-up time.
    deep_wake_uw = run_uw if deep["wakeup_ua"] < 0 else deep["wakeup_ua"] * volts
    t = _table()
    assert t["run"]["power_uw"] == round(run_uw)
    assert t["sleep"]["power_uw"] == round(sleep_uw)
    assert t["sleep"]["wakeup_us"] == round(sleep_wake_us)
    assert t["deepsleep"]["power_uw"] == max(1, round(deep_uw))
    assert t["deepsleep"]["wakeup_us"] == round(deep["wakeup_us"])
    assert t["deepsleep"]["transition_nj"] == int(deep_wake_uw * deep["wakeup_us"] / 1000)
