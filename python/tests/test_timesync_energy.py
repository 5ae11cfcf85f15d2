"""Time synchronisation with the STM32L053 energy profile on every module
(experiments/devices/timesync-energy.toml): the profile makes cairn-sim run the part's flash
wait state at 25 MHz and its 4.9 us wake-up from deep sleep, so the same firmware runs
slower and wakes later than on experiments/devices/timesync.toml. The global clock must
keep the same 10 us from the true clocks there, with no mark missed (docs/distributed.md,
"Time synchronisation": once 51.7 us and a missed mark)."""

from __future__ import annotations

import pytest

import cairn
from cairn import timesync_skew
from cairn.experiment.result import Result
from cairn.paths import firmware_dir

TARGET_PS = 10_000_000  # 10 us, as test_timesync.py
# A receiver's mean offset against the master: the flash wait state lengthens the RX path more
# than the master's watch, a few hundred ns at 25 MHz beyond what their figures (counted at
# zero wait states) take off, and plain sleep's wake-up (7 cycles) is not measured.
OFFSET_PS = 1_500_000
MODULES = 4
LAST_MARK = 100  # kernel/apps/timesync: TIMESYNC_LAST_MARK


@pytest.fixture(scope="module")
def run() -> Result:
    assert (firmware_dir() / "timesync.elf").is_file(), "`make build` builds build/fw/timesync.elf"
    r = cairn.run(timesync_skew.ENERGY_DEVICE, ["trace", "stats"], max_time="15s", timeout=300)
    assert r.status == 0, r.describe_failure()
    return r


def test_the_profile_slows_the_code_and_the_wake_up(run: Result) -> None:
    for name, st in run.processor_stats.items():
        model = st["energy_model"]
        assert model["profile"] == "stm32l053", name
        if name != "m0":
            # The receivers sleep deep between syncs and pay the wake-up latency each time.
            assert model["wakeups"]["deep_sleep"] >= 10, (name, model["wakeups"])
            assert model["cycles_by_state"]["wakeup"] > 0, name


def test_every_module_marks_every_mark_within_10_us(run: Result) -> None:
    lines = timesync_skew.counters(run.console)
    assert sorted(lines) == list(range(MODULES)), run.console
    for m, c in lines.items():
        assert c["missed"] == 0 and c["bad"] == 0 and c["late"] == 0, (m, c)
        if m:
            assert c["samples"] >= 10, (m, c)
        else:
            assert c["skipped"] == 0, c  # every SYNC had its FOLLOW_UP
    found = timesync_skew.skews(timesync_skew.marks(run.files["trace"].read_text()))
    assert len(found) >= 90 and found[-1].mark == LAST_MARK
    worst = max(found, key=lambda s: s.spread_ps)
    assert worst.spread_ps <= TARGET_PS, f"mark {worst.mark}: {worst.spread_ps / 1e6:.2f} us"
    print(timesync_skew.summary(found))
    offsets = timesync_skew.offsets(timesync_skew.marks(run.files["trace"].read_text()))
    for m, ps in offsets.items():
        assert abs(ps) <= OFFSET_PS, f"module {m}: {ps / 1e6:+.2f} us against the master"
