"""Checkpoint migration on cairn-sim (docs/checkpoint.md): a long computation starts on a
4 MHz module; the master's break-even policy moves it to a 32 MHz module at a migration
point; the checksum is the one the computation gives without migration, it finishes sooner
than staying does, and the trace shows suspend -> sent -> received -> restart in order. With
a destination only 0.05 % faster the policy keeps it where it is."""

from __future__ import annotations

import re

import pytest

import cairn
from cairn.checkpoint_trace import DeviceRun, migration_cost_ps, run_device
from cairn.paths import firmware_dir, repo_root

DEVICES = repo_root() / "experiments" / "devices"
ELF = firmware_dir() / "checkpoint-1024.elf"


def _checksum(lines: list[str]) -> tuple[str, int]:
    for line in lines:
        m = re.search(r"checksum (0x[0-9a-f]{8}) at (\d+) us", line)
        if m:
            return m.group(1), int(m.group(2))
    raise AssertionError(f"no checksum in {lines}")


@pytest.fixture(scope="module")
def alone() -> tuple[str, int]:
    """The computation without migration: alone on one 4 MHz module (no bus)."""
    assert ELF.is_file(), f"{ELF} is missing: `make build` builds it"
    r = cairn.run(ELF, [], options=["--clock", "4MHz"], timeout=300)
    assert r.status == 0, r.console + r.describe_failure()
    assert "migrations 0" in r.console
    return _checksum(r.console.splitlines())


@pytest.fixture(scope="module")
def moved() -> DeviceRun:
    return run_device(DEVICES / "checkpoint.toml")


def test_the_policy_moves_it_and_the_result_is_the_same(alone: tuple[str, int], moved: DeviceRun) -> None:
    assert moved.returncode == 0, moved.lines
    checksum, at_us = _checksum(moved.lines)
    assert checksum == alone[0]
    assert any(line.startswith("fast: checksum") for line in moved.lines), moved.lines
    assert "slow: done on module 1 migrations 1 stays 0 resumes 0" in moved.lines
    # Sooner than staying on the slow module (simulated time, both from the device's start).
    assert at_us < alone[1]
    print(f"finished at {at_us} us migrated, {alone[1]} us staying")


def test_the_trace_shows_suspend_send_receive_restart_in_order(moved: DeviceRun) -> None:
    ph = [(p.pid, p.name) for p in moved.phases if p.name != "stay"]
    # pid 1 is the slow module (master and source), pid 2 the fast one.
    assert ph == [(1, "request"), (1, "suspend"), (1, "sent"), (2, "received"), (2, "restart"), (1, "confirm")]
    times = [p.ps for p in moved.phases]
    assert times == sorted(times)
    cost_ps, transfer_ps = migration_cost_ps(moved.phases)
    assert 0 < transfer_ps < cost_ps
    # The destination's own measurement (cycle counters in the device's time) is the same
    # span, read a little earlier on the source: its clock read (SYS_ELAPSED and a 64-bit
    # division at 4 MHz) comes before its trace word.
    m = next(re.search(r"migration cost (\d+) cycles (\d+) us", line) for line in moved.lines
             if line.startswith("fast: restarted: migration cost"))
    assert m is not None
    measured_ps = int(m.group(1)) * 1_000_000 // 32
    assert 0 <= measured_ps - cost_ps <= 200_000_000, (measured_ps, cost_ps)
    print(f"migration cost {cost_ps / 1e6:.1f} us (transfer {transfer_ps / 1e6:.1f} us)")


def test_a_destination_not_fast_enough_keeps_it_where_it_is(alone: tuple[str, int]) -> None:
    run = run_device(DEVICES / "checkpoint-stay.toml")
    assert run.returncode == 0, run.lines
    assert _checksum(run.lines)[0] == alone[0]
    assert any(line.startswith("slow: checksum") for line in run.lines), run.lines
    assert not [p for p in run.phases if p.name in ("request", "suspend", "sent", "received", "restart")]
    stays = [p for p in run.phases if p.name == "stay"]
    assert stays and all((p.pid, p.b) == (1, 1) for p in stays)
    assert re.search(r"slow: done on module 0 migrations 0 stays \d+ resumes 0", "\n".join(run.lines))
