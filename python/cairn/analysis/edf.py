"""EDF schedulability with EMERALDS's run-time overheads and SRP blocking.

Each job pays Δ = Δt_b + Δt_u + 2·Δt_s + 2·C_cs (EMERALDS paper (Zuberi, Pillai and Shin,
SOSP 1999), section 4), each operation costing ``edf.<op> + edf.<op>_per_task · n`` on the
single queue of all n tasks; C'_i = C_i + Δ.

* Implicit deadlines, no timer tick: the utilisation test with the Stack Resource Policy's
  blocking (Baker): tasks in period order, for every k
  Σ_{i ≤ k} C'_i / T_i + B_k / T_k ≤ 1 (exact, Σ C'_i/T_i ≤ 1, when nothing blocks).
* Otherwise the processor-demand test: for every window length ℓ up to the synchronous busy
  period, dbf(ℓ) + rbf_hp(ℓ) + B(ℓ) ≤ ℓ, where dbf(ℓ) = Σ max(0, ⌊(ℓ − D_i)/T_i⌋ + 1)·C'_i,
  rbf_hp(ℓ) = Σ ⌈ℓ/T_h⌉·C_h is work that preempts every EDF job (the tick; CSD's higher
  queues), and B(ℓ) = max{B_i : D_i ≤ ℓ} the SRP blocking.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import Sequence

from .demand import Interference, Work, busy_period
from .overheads import ZERO, Overheads
from .task import Task, by_period, implicit_deadlines


def demand_test(work: Sequence[Work], higher: Sequence[Interference] = (),
                blocking: Sequence[tuple[int, int]] = ()) -> bool:
    """Processor-demand test of EDF ``work`` under preempting ``higher`` work.
    ``blocking`` is (deadline, blocking term) per task.

    The left-hand side only steps up where dbf does (ℓ = D_i + mT_i) or rbf_hp does
    (ℓ = mT_h + 1 in whole cycles), so those are the only window lengths checked, in
    increasing order with a running total, up to the synchronous busy period."""
    if not work:
        return True
    u = sum(c / t for c, _, t in work) + sum(c / t for c, t in higher)
    if u > 1 + 1e-9:
        return False
    if u > 1 - 1e-9:  # decide U = 1 exactly
        exact = sum((Fraction(c, t) for c, _, t in work), Fraction(0))
        if exact + sum((Fraction(c, t) for c, t in higher), Fraction(0)) > 1:
            return False
    b_max = max((b for _, b in blocking), default=0)
    limit = busy_period([(c, t) for c, _, t in work] + list(higher), b_max)
    if limit is None:
        return False
    # B(ℓ) = max{B_i : D_i ≤ ℓ}, as (deadline, running max) steps.
    steps: list[tuple[int, int]] = []
    for d, b in sorted(blocking):
        if b > (steps[-1][1] if steps else 0):
            steps.append((d, b))
    start = min(d for _, d, _ in work)
    events = [(d, t, c) for c, d, t in work] + [(1, t, c) for c, t in higher]
    heapq.heapify(events)
    total, b_now, b_next = 0, 0, 0
    while events and events[0][0] <= limit:
        point = events[0][0]
        while events and events[0][0] == point:
            _, step, cost = events[0]
            total += cost
            heapq.heapreplace(events, (point + step, step, cost))
        while b_next < len(steps) and steps[b_next][0] <= point:
            b_now = steps[b_next][1]
            b_next += 1
        if point >= start and total + b_now > point:
            return False
    return True


def srp_utilisation_test(tasks: Sequence[Task]) -> bool:
    """Baker's test for implicit deadlines: ∀k Σ_{i≤k} C_i/T_i + B_k/T_k ≤ 1 (period order)."""
    acc = Fraction(0)
    for t in by_period(tasks):
        acc += t.utilisation
        if acc + Fraction(t.blocking, t.period) > 1:
            return False
    return True


def effective(tasks: Sequence[Task], per_job: float) -> list[Work]:
    extra = math.ceil(per_job)
    return [(t.wcet + extra, t.deadline, t.period) for t in tasks]


def edf_schedulable(tasks: Sequence[Task], overheads: Overheads = ZERO) -> bool:
    """EDF (with SRP) on one queue of all tasks, overheads folded in."""
    per_job = overheads.per_job("edf", len(tasks))
    tick = overheads.tick_interference()
    if implicit_deadlines(tasks) and tick is None:
        extra = math.ceil(per_job)
        return srp_utilisation_test([t.with_wcet(t.wcet + extra) for t in tasks])
    return demand_test(effective(tasks, per_job), [tick] if tick else [],
                       [(t.deadline, t.blocking) for t in tasks])
