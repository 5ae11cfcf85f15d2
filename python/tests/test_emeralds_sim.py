"""The breakdown experiment on cairn-sim (docs/analysis.md, "The simulated check"): periodic task
sets run by build/fw/taskset-<policy>.elf just below and just above cairn.analysis's bound, with
the scheduler costs measured on cairn-sim; the deadlines judged from the simulator's I/O log."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.analysis.overheads import Overheads
from cairn.emeralds.simcheck import (MARGIN, SEARCH_LOW, Workload, analytic_bound, check, measured_overheads,
                                     release_cost, simulated_breakdown, workloads)
from cairn.emeralds.taskset import SimTask, run_set
from cairn.paths import firmware_dir
from cairn.runners import run_sim

POLICIES = ("RM", "EDF", "CSD-2", "CSD-3")
#: Tests whose analysis is only sufficient: a set above their bound need not miss.
SUFFICIENT = {"CSD-3"}  # DP2's demand test counts every job of DP1 released in the window


@pytest.fixture(scope="module")
def overheads() -> Overheads:
    return measured_overheads()


@pytest.fixture(scope="module")
def extra(overheads: Overheads, tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    out = tmp_path_factory.mktemp("alone")
    return {p: release_cost(p, overheads, out) for p in POLICIES}


SETS = [(5, w) for w in workloads(5, 2, 7, 1)] + [(8, w) for w in workloads(8, 1, 7, 1)]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("n,w", SETS, ids=[f"n{n}-{i}" for i, (n, _) in enumerate(SETS)])
def test_no_miss_below_the_bound_a_miss_above(policy: str, n: int, w: Workload, overheads: Overheads,
                                               extra: dict[str, int], tmp_path: Path) -> None:
    c = check(w, policy, overheads, extra[policy], tmp_path, MARGIN)
    assert 0.5 < c.bound <= 1.0
    assert c.below_run.jobs > n and not c.below_run.misses, c.below_run.misses[:5]
    if policy not in SUFFICIENT:
        assert c.above_run.misses, f"{policy}: no miss at {c.above:.4f}, {MARGIN:.0%} above the bound {c.bound:.4f}"


@pytest.mark.parametrize("policy", ["RM", "EDF"])
def test_simulated_breakdown_beside_the_analytic_one(policy: str, overheads: Overheads, extra: dict[str, int],
                                                     tmp_path: Path) -> None:
    """The analysis (with the release cost) is safe: the simulated breakdown is at or above its
    bound, less the search's resolution, and not far above it."""
    w = SETS[0][1]
    bound = analytic_bound(w, policy, overheads, extra[policy])
    steps = 8
    sim = simulated_breakdown(w, policy, overheads, extra[policy], tmp_path, steps=steps)
    resolution = (1.5 - SEARCH_LOW) / 2**steps
    assert bound - resolution <= sim <= bound * (1 + MARGIN) + resolution, (bound, sim)


def test_a_lone_task_meets_its_deadlines_and_an_overload_misses(tmp_path: Path) -> None:
    ok = run_set("EDF", [SimTask(50_000, 20_000, 1)], 500_000, tmp_path, label="ok")
    assert ok.jobs == 10 and not ok.missed and 20_000 < ok.worst_response[0] < 25_000
    over = run_set("RM", [SimTask(50_000, 30_000, 2), SimTask(60_000, 30_000, 1)], 600_000, tmp_path, label="over")
    assert over.missed and {m.task for m in over.misses} == {1}


def test_the_firmware_refuses_a_missing_parameter_block(tmp_path: Path) -> None:
    scen = tmp_path / "empty.toml"
    scen.write_text('board = "mps2-an385"\nclock = 25000000\n')
    res = run_sim(firmware_dir() / "taskset-fp.elf", "--device", str(scen), "--max-time", "10ms")
    assert res.status == 2 and res.stdout.decode().count("\n") == 1 and "taskset:" in res.stdout.decode()


def test_bad_tasks_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        run_set("RM", [SimTask(0, 1, 1)], 1000, tmp_path)
    with pytest.raises(ValueError):
        run_set("RM", [SimTask(1000, 1, 1)] * 16, 1000, tmp_path)
    with pytest.raises(ValueError):
        run_set("LLF", [SimTask(1000, 1, 1)], 1000, tmp_path)


@pytest.mark.parametrize("args", [["--policies", "LLF"], ["--tasks", "16"], ["--margin", "0"],
                                  ["--overheads", "/nonexistent/overheads.json"]])
def test_the_command_refuses_bad_input(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from cairn.emeralds.__main__ import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_a_release_during_an_overrun_runs_before_lower_priorities(tmp_path: Path) -> None:
    """Five tasks released at once, the first (highest priority, period 2500 cycles) overrunning
    its first period because the releases of the others come first: its later jobs must still
    run every period, not after the long lowest-priority job."""
    tasks = [SimTask(2500, 64, 5), SimTask(7500, 38, 4), SimTask(7500, 296, 3), SimTask(2_397_500, 109_789, 1),
             SimTask(17_500, 688, 2)]
    run = run_set("RM", tasks, 200_000, tmp_path)
    late = [m for m in run.misses if m.task == 0 and (m.done is None or m.done - m.due > 2500)]
    assert not late, late[:3]
