"""EMERALDS's combined static/dynamic scheduler CSD-k and its schedulability test.

Tasks sorted by period are cut into k queues: EDF queues DP_1 … DP_{k−1} (shortest periods in
DP_1) above one fixed-priority queue FP; a queue has strict priority over every queue below it
(EMERALDS paper (Zuberi, Pillai and Shin, SOSP 1999), section 4). An allocation is the tuple of
cut points b_1 ≤ … ≤ b_{k−1}: DP_j holds the tasks at sorted positions [b_{j−1}, b_j).

Per-job kernel cost (section 4's tables for CSD-2 and CSD-3, generalised): with r_j the
length of DP_j and m that of FP, a job of a task in DP_j pays

    edf.block(r_j) + edf.select(max(r_j … r_{k−1}))   (when it blocks, no queue above j is
                                                      ready; the next task is in j or below)
  + edf.unblock(r_j) + edf.select(max(r_1 … r_j))     (when it unblocks, the next task is in
                                                      j or above)
  + 2·context_switch + 2·k·csd.queue_check

and a job of an FP task pays fp.block(m) + fp.unblock(m) + 2·fp.select(m) + 2·context_switch
+ 2·k·csd.queue_check (an FP task runs only when every DP queue is idle, and its unblocking
never makes the scheduler parse a DP queue).

The test: DP_j passes the processor-demand test of EDF with DP_1 … DP_{j−1} (and the tick) as
preempting work; each FP task passes response-time analysis with every DP task above it.
"""

from __future__ import annotations

import itertools
import math
from typing import Iterator, Sequence

from .demand import Interference, Work
from .edf import demand_test, srp_utilisation_test
from .fixed_priority import response_times
from .overheads import ZERO, Overheads
from .task import Task, by_period, implicit_deadlines

Allocation = tuple[int, ...]


def queues(tasks: Sequence[Task], allocation: Allocation) -> list[list[Task]]:
    """The k queues (k−1 EDF queues then FP) of an allocation over the period-sorted tasks."""
    ordered = by_period(tasks)
    cuts = (0, *allocation, len(ordered))
    if list(cuts) != sorted(cuts) or cuts[-2] > len(ordered):
        raise ValueError(f"allocation {allocation} is not a sorted cut of {len(ordered)} tasks")
    return [ordered[a:b] for a, b in itertools.pairwise(cuts)]


def per_job_costs(lengths: Sequence[int], overheads: Overheads) -> list[float]:
    """Kernel cost of one job in each queue (EDF queues first, FP last), as in the docstring."""
    k = len(lengths)
    dp, m = list(lengths[:-1]), lengths[-1]
    fixed = 2 * overheads.get("context_switch") + 2 * k * overheads.get("csd.queue_check")
    costs = []
    for j, r in enumerate(dp):
        costs.append(overheads.op("edf", "block", r) + overheads.op("edf", "select", max(dp[j:]))
                     + overheads.op("edf", "unblock", r)
                     + overheads.op("edf", "select", max(dp[: j + 1])) + fixed)
    costs.append(overheads.op("fp", "block", m) + overheads.op("fp", "unblock", m)
                 + 2 * overheads.op("fp", "select", m) + fixed)
    return costs


def csd_schedulable_with(tasks: Sequence[Task], allocation: Allocation,
                         overheads: Overheads = ZERO) -> bool:
    """The CSD-k test for one allocation (k = len(allocation) + 1)."""
    qs = queues(tasks, allocation)
    costs = per_job_costs([len(q) for q in qs], overheads)
    tick = overheads.tick_interference()
    # Cheap rejection first: the search tries many allocations whose costs alone overload.
    load = sum((t.wcet + math.ceil(cost)) / t.period for q, cost in zip(qs, costs) for t in q)
    if load + (tick[0] / tick[1] if tick else 0.0) > 1 + 1e-9:
        return False
    above: list[Interference] = [tick] if tick else []
    for q, cost in zip(qs[:-1], costs[:-1]):
        extra = math.ceil(cost)
        if not q:
            continue
        if not above and implicit_deadlines(q):
            ok = srp_utilisation_test([t.with_wcet(t.wcet + extra) for t in q])
        else:
            work: list[Work] = [(t.wcet + extra, t.deadline, t.period) for t in q]
            ok = demand_test(work, above, [(t.deadline, t.blocking) for t in q])
        if not ok:
            return False
        above += [(t.wcet + extra, t.period) for t in q]
    fp = qs[-1]
    if not fp:
        return True
    # response_times adds the tick itself: drop it from the preceding work.
    preceding = above[1:] if tick else above
    return all(r is not None for r in response_times(fp, overheads, preceding, costs[-1]))


def allocations(n: int, k: int) -> Iterator[Allocation]:
    """Every allocation of n period-sorted tasks to k queues (the exhaustive search of section 4),
    most tasks in the EDF queues first."""
    for cuts in itertools.combinations_with_replacement(range(n, -1, -1), k - 1):
        yield tuple(reversed(cuts))


def find_allocation(tasks: Sequence[Task], k: int,
                    overheads: Overheads = ZERO) -> Allocation | None:
    """The first allocation (in ``allocations`` order) under which CSD-k schedules the set."""
    if k < 2:
        raise ValueError("CSD-k needs k >= 2 (one EDF queue and the FP queue)")
    for alloc in allocations(len(tasks), k):
        if csd_schedulable_with(tasks, alloc, overheads):
            return alloc
    return None


def csd_schedulable(tasks: Sequence[Task], k: int, overheads: Overheads = ZERO) -> bool:
    return find_allocation(tasks, k, overheads) is not None
