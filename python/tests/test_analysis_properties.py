"""Properties of cairn.analysis over generated workloads, and the generator's statistics."""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.analysis.breakdown import POLICIES, Test, breakdown, main
from cairn.analysis.csd import csd_schedulable, csd_schedulable_with
from cairn.analysis.edf import edf_schedulable
from cairn.analysis.fixed_priority import fp_schedulable
from cairn.analysis.overheads import ZERO, Overheads
from cairn.analysis.task import Task, scaled, utilisation
from cairn.analysis.workload import generate

OVERHEADS = Overheads.from_mapping({
    "context_switch": 100, "edf.block": 40, "edf.unblock": 30, "edf.select": 30,
    "edf.select_per_task": 8, "fp.block": 25, "fp.block_per_task": 8, "fp.unblock": 35,
    "fp.select": 15})


def workloads(count: int, n: int, seed: int, divisor: int = 1) -> list[list[Task]]:
    rng = random.Random(seed)
    return [generate(n, rng, period_divisor=divisor) for _ in range(count)]


def test_edf_breaks_down_no_earlier_than_rm_without_overheads() -> None:
    strict = 0
    for w in workloads(30, 8, seed=1):
        rm, edf = breakdown(w, POLICIES["RM"]), breakdown(w, POLICIES["EDF"])
        assert edf >= rm
        strict += edf > rm
    assert strict > 0  # else the property says nothing


def test_csd_with_every_task_in_edf_queues_is_edf() -> None:
    for w in workloads(20, 6, seed=2):
        for u in (0.8, 0.95, 0.999, 1.0, 1.02):
            ts = scaled(w, u / float(utilisation(w)))
            assert csd_schedulable_with(ts, (len(ts),), ZERO) == edf_schedulable(ts, ZERO)
            assert csd_schedulable_with(ts, (len(ts), len(ts)), ZERO) == edf_schedulable(ts)
            assert csd_schedulable_with(ts, (0,), ZERO) == fp_schedulable(ts, ZERO)


def test_csd_single_queues_cost_what_edf_and_rm_cost() -> None:
    # Without the queue checks, CSD-2 with all tasks in one queue pays EDF's (or RM's) costs.
    for w in workloads(10, 6, seed=3, divisor=4):
        for u in (0.7, 0.8, 0.9, 0.95):
            ts = scaled(w, u / float(utilisation(w)))
            assert csd_schedulable_with(ts, (len(ts),), OVERHEADS) == edf_schedulable(ts, OVERHEADS)
            assert csd_schedulable_with(ts, (0,), OVERHEADS) == fp_schedulable(ts, OVERHEADS)


def test_csd_breaks_down_no_earlier_than_edf_or_rm_or_fewer_queues() -> None:
    better = 0
    for w in workloads(4, 10, seed=4, divisor=8):
        b = {p: breakdown(w, POLICIES[p], OVERHEADS, steps=10) for p in POLICIES}
        assert b["CSD-2"] >= max(b["RM"], b["EDF"])
        assert b["CSD-3"] >= b["CSD-2"]
        better += b["CSD-2"] > max(b["RM"], b["EDF"])
    assert better > 0  # CSD's point: on some workloads it beats both


def test_more_overhead_never_helps() -> None:
    tests: list[Test] = [fp_schedulable, edf_schedulable,
                         lambda ts, o: csd_schedulable(ts, 2, o)]
    for w in workloads(8, 6, seed=5, divisor=4):
        for test in tests:
            previous = 1.0
            for factor in (0.0, 1.0, 2.0, 4.0):
                b = breakdown(w, test, OVERHEADS.scaled(factor), steps=10)
                assert b <= previous
                previous = b
    # and overheads do cost something on short periods
    w = workloads(1, 10, seed=6, divisor=8)[0]
    assert breakdown(w, edf_schedulable, OVERHEADS) < breakdown(w, edf_schedulable)


def test_generator_draws_periods_from_three_decades() -> None:
    rng = random.Random(7)
    tasks = [t for _ in range(300) for t in generate(10, rng, cycles_per_ms=1000)]
    ms = [t.period // 1000 for t in tasks]
    shares = [sum(lo <= p <= hi for p in ms) / len(ms) for lo, hi in ((1, 9), (10, 99), (100, 999))]
    assert abs(sum(shares) - 1) < 1e-9
    for s in shares:  # 3000 draws: a third each within ±0.04 (over 4 standard deviations)
        assert abs(s - 1 / 3) < 0.04
    big = [p for p in ms if p >= 100]
    assert abs(statistics.fmean(big) - 549.5) < 25  # uniform within the decade
    assert all(t.deadline == t.period and t.wcet >= 1 for t in tasks)


def test_generator_is_seeded_and_normalised() -> None:
    a = generate(12, random.Random(9), utilisation=0.6)
    b = generate(12, random.Random(9), utilisation=0.6)
    assert a == b != generate(12, random.Random(10), utilisation=0.6)
    assert abs(float(utilisation(a)) - 0.6) < 1e-3
    assert generate(5, random.Random(9), period_divisor=2)[0].period * 2 in (
        generate(5, random.Random(9))[0].period, generate(5, random.Random(9))[0].period + 1)


def test_cli_prints_a_row_per_task_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sets", "3", "--seed", "1", "--tasks", "4,6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["tasks", *POLICIES]
    assert [line.split()[0] for line in out[2:]] == ["4", "6"]


def test_cli_rejects_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "o.json"
    bad.write_text('{"edf.selct": 3}')
    for argv in (["--overheads", str(bad)], ["--sets", "0"], ["--policies", "LLF"],
                 ["--overheads", str(tmp_path / "missing.json")]):
        p = subprocess.run([sys.executable, "-m", "cairn.analysis.breakdown", *argv],
                           capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.startswith("error:"), argv
