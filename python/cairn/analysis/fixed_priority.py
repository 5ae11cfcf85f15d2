"""Fixed-priority (RM/DM) response-time analysis with EMERALDS's run-time overheads.

Response time of task i, by the Joseph & Pandya / Audsley iteration:

    R_i = C'_i + B_i + Σ_{j ∈ hp(i)} ⌈R_i / T_j⌉ · C'_j + ⌈R_i / T_tick⌉ · C_tick

where C'_j = C_j + Δ, and Δ = Δt_b + Δt_u + 2·Δt_s + 2·C_cs is what each job pays the kernel
(EMERALDS paper (Zuberi, Pillai and Shin, SOSP 1999), section 4: every job unblocks and blocks
once per period and each of these selects the next task; we add the two context switches).
Each operation costs ``fp.<op> + fp.<op>_per_task · n`` on the queue of all n tasks. The set
is schedulable when R_i ≤ D_i for every task, priorities deadline-monotonic (rate-monotonic
for implicit deadlines).
"""

from __future__ import annotations

import math
from typing import Sequence

from .demand import Interference, rbf
from .overheads import ZERO, Overheads
from .task import Task, by_deadline


def response_time(wcet: int, blocking: int, deadline: int,
                  higher: Sequence[Interference]) -> int | None:
    """Least fixed point of R = wcet + blocking + Σ ⌈R/T⌉·C over ``higher``, or None once it
    passes ``deadline``."""
    r = wcet + blocking + sum(c for c, _ in higher)
    while r <= deadline:
        nxt = wcet + blocking + rbf(higher, r)
        if nxt == r:
            return r
        r = nxt
    return None


def with_overhead(tasks: Sequence[Task], per_job: float) -> list[Task]:
    """Each WCET plus the kernel's per-job cost, rounded up to whole cycles."""
    extra = math.ceil(per_job)
    return [t.with_wcet(t.wcet + extra) for t in tasks]


def response_times(tasks: Sequence[Task], overheads: Overheads = ZERO,
                   preceding: Sequence[Interference] = (),
                   per_job: float | None = None) -> list[int | None]:
    """Response time of every task (deadline-monotonic order; None: misses its deadline).
    ``preceding`` is work of strictly higher priority than all of ``tasks`` (CSD's EDF
    queues above the fixed-priority one); the tick is added from ``overheads``. ``per_job``
    overrides the per-job kernel cost (CSD's fixed-priority queue pays its own)."""
    cost = overheads.per_job("fp", len(tasks)) if per_job is None else per_job
    ordered = with_overhead(by_deadline(tasks), cost)
    higher: list[Interference] = list(preceding)
    tick = overheads.tick_interference()
    if tick:
        higher.append(tick)
    out: list[int | None] = []
    for t in ordered:
        out.append(response_time(t.wcet, t.blocking, t.deadline, higher))
        higher.append((t.wcet, t.period))
    return out


def fp_schedulable(tasks: Sequence[Task], overheads: Overheads = ZERO) -> bool:
    """RM/DM with overheads: every response time within its deadline."""
    return all(r is not None for r in response_times(tasks, overheads))
