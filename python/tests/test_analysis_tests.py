"""Hand-checked task sets for the RM/DM, EDF, SRP and CSD tests of cairn.analysis."""

from __future__ import annotations

import pytest

from cairn.analysis.csd import allocations, csd_schedulable, csd_schedulable_with, per_job_costs
from cairn.analysis.edf import edf_schedulable
from cairn.analysis.fixed_priority import fp_schedulable, response_times
from cairn.analysis.overheads import Overheads
from cairn.analysis.srp import CriticalSection, srp_blocking, with_srp_blocking
from cairn.analysis.task import Task


def T(c: int, t: int, d: int = 0, b: int = 0) -> Task:
    return Task(period=t, wcet=c, deadline=d, blocking=b)


def test_rm_response_times_by_hand() -> None:
    # R3: 3 → 6 → 7 → 9 → 10 → 10 (hp: C=1,T=4 and C=2,T=6).
    assert response_times([T(3, 12), T(1, 4), T(2, 6)]) == [1, 3, 10]
    assert fp_schedulable([T(1, 4), T(2, 6), T(3, 12)])
    assert not fp_schedulable([T(1, 4), T(2, 6), T(6, 12)])  # R3 = 6+... > 12


def test_liu_layland_bound_is_not_exact() -> None:
    # U = 1 with harmonic periods: RM schedules it although U > n(2^(1/n) − 1).
    assert fp_schedulable([T(1, 2), T(1, 4), T(2, 8)])


def test_edf_but_not_rm() -> None:
    ts = [T(2, 5), T(4, 7)]  # U = 0.971; RM: R2 = 4 + 2·⌈8/5⌉ = 8 > 7
    assert not fp_schedulable(ts)
    assert edf_schedulable(ts)
    assert not edf_schedulable([T(2, 5), T(5, 7)])  # U > 1


def test_constrained_deadlines_decided_by_dbf() -> None:
    # Density 2/4 + 3/5 > 1, but dbf(4) = 2 ≤ 4 and dbf(5) = 5 ≤ 5: schedulable.
    assert edf_schedulable([T(2, 10, d=4), T(3, 10, d=5)])
    # U = 0.6 only, yet dbf(5) = 6 > 5.
    assert not edf_schedulable([T(2, 10, d=4), T(4, 10, d=5)])


def test_overheads_are_paid_per_job() -> None:
    ts = [T(2, 5), T(4, 7)]
    # EDF: Δ = 2·select: (2+2)/5 + (4+2)/7 > 1 with select = 1.
    assert not edf_schedulable(ts, Overheads.from_mapping({"edf.select": 1}))
    ok = [T(1, 10), T(1, 10)]
    # RM: each job pays 2 context switches + block + unblock + 2 selects.
    o = Overheads.from_mapping({"context_switch": 1, "fp.block": 1, "fp.unblock": 1,
                                "fp.select_per_task": 0.5})
    assert o.per_job("fp", 2) == 2 + 1 + 1 + 2
    assert response_times(ok, o) == [1 + 6, None]  # the second: 7 + 7 = 14 > 10
    assert response_times(ok) == [1, 2]


def test_tick_preempts_everything() -> None:
    o = Overheads.from_mapping({"tick": 1, "tick_period": 4})
    assert response_times([T(3, 8)], o) == [4]
    # U = 0.2 + 0.25, but a tick and a job both in the first 2 cycles: dbf(2) + rbf(2) = 3 > 2.
    assert not edf_schedulable([T(2, 10, d=2)], o)
    assert edf_schedulable([T(1, 10, d=2)], o)
    assert edf_schedulable([T(3, 4)], o)  # U = 1 exactly: the tick at 0, the job in [1, 4)


def test_srp_blocking_terms() -> None:
    ts = [T(1, 10, d=5), T(1, 20), T(1, 40)]
    cs = [CriticalSection(0, "a", 1), CriticalSection(2, "a", 3), CriticalSection(1, "b", 7)]
    # Task 0 (level highest) is blocked by task 2's section on a (ceiling = task 0's level);
    # task 1 too (a's ceiling is above task 1's level); b is used by task 1 only.
    assert srp_blocking(ts, cs) == [3, 3, 0]
    blocked = with_srp_blocking([T(4, 10), T(4, 20), T(1, 40)],
                                [CriticalSection(0, "a", 1), CriticalSection(2, "a", 3)])
    # Baker: 4/10 + 3/10 = 0.7; 0.4 + 0.2 + 3/20 = 0.75; 0.625 ≤ 1 → schedulable.
    assert edf_schedulable(blocked)
    # 0.4 + 7/10 > 1 with a 7-cycle section
    assert not edf_schedulable(with_srp_blocking(
        [T(4, 10), T(4, 20), T(1, 40)],
        [CriticalSection(0, "a", 1), CriticalSection(2, "a", 7)]))
    with pytest.raises(ValueError):
        srp_blocking(ts, [CriticalSection(5, "a", 1)])


def test_csd_queue_priority_costs_schedulability() -> None:
    ts = [T(2, 4), T(3, 6)]  # U = 1: EDF yes; DP1 above DP2 leaves the 6-period job 2 cycles
    assert edf_schedulable(ts)
    assert csd_schedulable_with(ts, (2, 2))
    assert not csd_schedulable_with(ts, (1, 2))
    assert not csd_schedulable_with(ts, (1,))  # FP below: same as RM
    assert csd_schedulable(ts, 3)


def test_csd2_costs_match_the_paper_table() -> None:
    o = Overheads.from_mapping({"edf.block": 1, "edf.unblock": 2, "edf.select_per_task": 10,
                                "fp.block_per_task": 100, "fp.unblock": 3, "fp.select": 5})
    r, m = 3, 4
    dp, fp = per_job_costs([r, m], o)
    assert dp == 1 + 2 + 2 * 10 * r  # the r-long list parsed twice
    assert fp == 100 * m + 3 + 2 * 5  # the (n−r)-long list parsed once


def test_csd3_costs_take_the_longer_queue() -> None:
    o = Overheads.from_mapping({"edf.select_per_task": 1})
    assert per_job_costs([2, 5, 1], o) == [2 + 5, 5 + 5, 0]


def test_allocations_are_all_sorted_cuts() -> None:
    got = list(allocations(4, 3))
    assert len(got) == len(set(got)) == 15
    assert all(a <= b for a, b in got)
    with pytest.raises(ValueError):
        csd_schedulable(ts := [T(1, 4)], 1)
    assert ts


def test_bad_overheads_are_rejected() -> None:
    for bad in ({"edf.selct": 1}, {"tick": -1}, {"tick": "3"}, {"tick": True}):
        with pytest.raises(ValueError):
            Overheads.from_mapping(bad)


def test_bad_tasks_are_rejected() -> None:
    for kw in ({"period": 0, "wcet": 1}, {"period": 4, "wcet": 1, "deadline": 5},
               {"period": 4, "wcet": -1}):
        with pytest.raises(ValueError):
            Task(**kw)  # type: ignore[arg-type]
