"""E5's Tables 1 and 2 on cairn-sim: the cost of a migration point with no request pending and of
a load report that moves nothing is exact, the same on every run, and judges the paper's claim."""

from __future__ import annotations

import json

import pytest

from cairn.bench.checkpoint import FAST_HZ, SLOW_HZ
from cairn.bench.checkpoint_overhead import OverheadError, brackets, measure, slow_down_percent
from cairn.paths import repo_root
from cairn.study import e5_mpsoc_migration, e5_overhead
from cairn.study.paper import Paper, load_all
from cairn.study.result import StudyResult


@pytest.fixture(scope="module")
def paper() -> Paper:
    return load_all(repo_root() / "experiments")[e5_mpsoc_migration.NAME]


@pytest.fixture(scope="module")
def tables(paper: Paper) -> tuple[StudyResult, dict[int, dict[str, object]]]:
    result = StudyResult(study=e5_mpsoc_migration.NAME, size="reduced", setup="tables 1 and 2")
    return result, e5_overhead.add(paper, result)


def test_the_cycles_are_exact_and_repeatable(tables: tuple[StudyResult, dict[int, dict[str, object]]]) -> None:
    _, m = tables
    again = measure(FAST_HZ)
    assert again == m[FAST_HZ]
    # Every point with no request pending runs the same instructions, at either clock.
    fast, slow = m[FAST_HZ], m[SLOW_HZ]
    assert fast["point_cycles"] == fast["point_cycles_min"] == slow["point_cycles"]
    assert int(fast["points"]) > 0 and int(fast["reports"]) > 0  # type: ignore[call-overload]
    # A report posts to the master, which runs inside it: it costs more than the master alone.
    assert int(fast["report_cycles_min"]) > int(fast["master_cycles"]) > int(fast["point_cycles"])  # type: ignore[call-overload]


def test_the_claim_is_judged_from_the_measured_point(paper: Paper,
                                                     tables: tuple[StudyResult, dict[int, dict[str, object]]]) -> None:
    result, m = tables
    v = result.verdict("checkpoint_overhead_negligible")
    at_one_per_ms = {float(r["checkpoints_per_ms"]): float(r["task_slow_down_percent"])
                     for r in paper.table("checkpoint_overhead").records()}[1.0]
    ours = slow_down_percent(float(m[FAST_HZ]["point_cycles"]), FAST_HZ, 1.0)  # type: ignore[arg-type]
    assert v.holds is (ours <= at_one_per_ms)
    assert v.holds is True, v
    assert f"{m[FAST_HZ]['point_cycles']} cycles" in v.evidence
    t1, t2 = result.tables[0], result.tables[1]
    assert len(t1.rows) == len(t2.rows) == 4
    # Slow-down is linear in the rate: the 1 per ms row is 20 times the 1 per 20 ms row.
    assert t1.rows[0][3] == pytest.approx(20 * t1.rows[3][3], rel=1e-2)


def test_a_trace_without_the_brackets_is_refused() -> None:
    empty = json.dumps({"traceEvents": []})
    with pytest.raises(OverheadError, match="calibration"):
        brackets(empty, FAST_HZ)
