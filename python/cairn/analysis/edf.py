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
from typing import Iterator, Sequence

from .demand import Interference, Work, busy_period, dbf, rbf
from .overheads import ZERO, Overheads
from .task import Task, by_period, implicit_deadlines


def _check_points(work: Sequence[Work], higher: Sequence[Interference],
                  start: int, limit: int) -> Iterator[int]:
    """Window lengths in [start, limit] where dbf or rbf_hp steps up, in increasing order."""
    heap: list[tuple[int, int]] = []
    for _, d, t in work:
        heap.append((d, t))
    for _, t in higher:
        first = (max(0, start - 1) // t) * t + 1  # ⌈ℓ/T⌉ steps at ℓ = mT + 1
        heap.append((first, t))
    heapq.heapify(heap)
    last = -1
    while heap and heap[0][0] <= limit:
        point, step = heapq.heappop(heap)
        heapq.heappush(heap, (point + step, step))
        if point >= start and point != last:
            last = point
            yield point


def demand_test(work: Sequence[Work], higher: Sequence[Interference] = (),
                blocking: Sequence[tuple[int, int]] = ()) -> bool:
    """Processor-demand test of EDF ``work`` under preempting ``higher`` work.
    ``blocking`` is (deadline, blocking term) per task."""
    total = sum((Fraction(c, t) for c, _, t in work), Fraction(0))
    total += sum((Fraction(c, t) for c, t in higher), Fraction(0))
    if total > 1:
        return False
    if not work:
        return True
    b_max = max((b for _, b in blocking), default=0)
    limit = busy_period([(c, t) for c, _, t in work] + list(higher), b_max)
    if limit is None:
        return False
    blocks = sorted(blocking)
    for length in _check_points(work, higher, min(d for _, d, _ in work), limit):
        b = max((bl for d, bl in blocks if d <= length), default=0)
        if dbf(work, length) + rbf(higher, length) + b > length:
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
