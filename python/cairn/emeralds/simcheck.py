"""The analysis's breakdown bound beside cairn-sim: for a generated workload and a policy, the
largest application utilisation the analysis accepts with the measured overheads, task sets
just below and just above it run on cairn-sim, and the utilisation at which the simulated
schedule first misses a deadline (a binary search over runs).

The analysis is given what a job costs on the firmware: its busy cycles, plus the release cost
(what a lone job's response costs beyond its busy cycles and the model's per-job overhead —
the timer interrupt that releases it and the handler's own instructions, which the overhead
model does not count), plus the measured per-job overheads (docs/analysis.md, "The simulated
check")."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from ..analysis.breakdown import POLICIES
from ..analysis.csd import find_allocation, per_job_costs
from ..analysis.overheads import Overheads
from ..analysis.task import Task, by_period
from .taskset import SetRun, SimTask, run_set

STEPS = 10  #: halvings of the utilisation searches
#: How far below and above the analysis's bound the check runs a set (a share of the bound).
MARGIN = 0.03
#: The simulated breakdown's search interval: every policy meets every deadline of these
#: workloads at half the processor, and none at one and a half.
SEARCH_LOW, SEARCH_HIGH = 0.5, 1.5
#: Periods the horizon may span: the critical instant's first jobs (fixed priority) and
#: EDF's backlog growing above a utilisation of 1 both show within a few of the longest.
HORIZON_PERIODS = 3
#: The longest horizon a run above the bound is given, in longest periods.
OVER_PERIODS = 20


def csd_k(policy: str) -> int:
    return int(policy.split("-")[1]) if policy.startswith("CSD-") else 0


def model_cost_alone(policy: str, overheads: Overheads) -> float:
    """The model's per-job cost of a task that is alone in its queue."""
    if policy == "RM":
        return overheads.per_job("fp", 1)
    if policy == "EDF":
        return overheads.per_job("edf", 1)
    k = csd_k(policy)
    return per_job_costs([1] + [0] * (k - 1), overheads)[0]


def _model_cost(policy: str, overheads: Overheads, n: int) -> float:
    """The model's per-job cost with every task in one queue (the least CSD's can be)."""
    if policy == "RM":
        return overheads.per_job("fp", n)
    if policy == "EDF":
        return overheads.per_job("edf", n)
    return float(min(per_job_costs([n] + [0] * (csd_k(policy) - 1), overheads)))


def release_cost(policy: str, overheads: Overheads, out_dir: Path, clock_hz: int = 25_000_000) -> int:
    """A lone task's worst response beyond its busy cycles and the model's per-job cost."""
    period, busy = 50_000, 10_000
    run = run_set(policy, [SimTask(period, busy, level=1, queue=0)], 4 * period, out_dir, clock_hz, "alone")
    if run.missed:
        raise RuntimeError(f"{policy}: a lone task at 20% missed its deadline")
    return max(0, math.ceil(run.worst_response[0] - busy - model_cost_alone(policy, overheads)))


@dataclass(frozen=True)
class Workload:
    """A generated workload's periods and relative busy shares (cairn.analysis.workload)."""

    tasks: tuple[Task, ...]

    def at(self, u: float) -> list[int]:
        """Busy cycles per task (period order as given) at application utilisation u."""
        base = float(sum((t.utilisation for t in self.tasks), Fraction(0)))
        return [max(1, round(t.wcet * u / base)) for t in self.tasks]

    def for_analysis(self, u: float, extra: int) -> list[Task]:
        return [t.with_wcet(b + extra) for t, b in zip(self.tasks, self.at(u))]

    @property
    def horizon(self) -> int:
        longest = max(t.period for t in self.tasks)
        hyper = math.lcm(*(t.period for t in self.tasks))
        return min(hyper, HORIZON_PERIODS * longest)

    def horizon_over(self, costs: Sequence[int]) -> int:
        """A horizon long enough to see a set whose jobs cost ``costs`` cycles miss: the first
        deadline by which the synchronous schedule's demand exceeds the time (the processor-demand
        criterion; under any policy some job is late by then), plus one longest period, within
        min(hyperperiod, OVER_PERIODS longest periods)."""
        longest = max(t.period for t in self.tasks)
        cap = min(math.lcm(*(t.period for t in self.tasks)), OVER_PERIODS * longest)
        due = [(t.period, i) for i, t in enumerate(self.tasks)]
        heapq.heapify(due)
        demand = 0
        while due and due[0][0] <= cap:
            at, i = heapq.heappop(due)
            demand += costs[i]
            if demand > at:
                return max(self.horizon, min(cap, at + longest))
            heapq.heappush(due, (at + self.tasks[i].period, i))
        return max(self.horizon, cap)


def analytic_bound(w: Workload, policy: str, overheads: Overheads, extra: int, steps: int = STEPS) -> float:
    """The largest application utilisation (busy cycles only) the policy's test accepts."""
    test = POLICIES[policy]
    low, high = 0.0, 1.0
    for _ in range(steps):
        mid = (low + high) / 2
        if test(w.for_analysis(mid, extra), overheads):
            low = mid
        else:
            high = mid
    return low


def sim_tasks(w: Workload, u: float, policy: str, allocation: tuple[int, ...] | None) -> list[SimTask]:
    """Levels by period (shortest highest: rate/deadline monotonic, SRP levels that follow the
    deadlines, banded by CSD queue); CSD queues from the allocation's cut points."""
    busy = w.at(u)
    order = sorted(range(len(w.tasks)), key=lambda i: (w.tasks[i].period, i))
    n = len(order)
    level, queue = [0] * n, [0] * n
    cuts = allocation or ()
    for rank, i in enumerate(order):
        level[i] = n - rank
        queue[i] = sum(1 for c in cuts if c <= rank)
    return [SimTask(t.period, b, level[i], queue[i]) for i, (t, b) in enumerate(zip(w.tasks, busy))]


def allocation_at(w: Workload, policy: str, u: float, overheads: Overheads, extra: int) -> tuple[int, ...] | None:
    k = csd_k(policy)
    if not k:
        return None
    tasks = w.for_analysis(u, extra)
    found = find_allocation(tasks, k, overheads)
    if found is None:
        raise ValueError(f"{policy}: no allocation at utilisation {u:.4f}")
    # find_allocation cuts the period-sorted list, as sim_tasks ranks it.
    assert [t.period for t in by_period(tasks)] == sorted(t.period for t in tasks)
    return found


@dataclass(frozen=True)
class Check:
    """One workload under one policy: the analysis's bound and the runs either side."""

    policy: str
    tasks: int
    bound: float  # analytic, busy utilisation
    below: float
    above: float
    below_run: SetRun
    above_run: SetRun
    allocation: tuple[int, ...] | None

    @property
    def agrees(self) -> bool:
        return not self.below_run.missed and self.above_run.missed


def check(w: Workload, policy: str, overheads: Overheads, extra: int, out_dir: Path, margin: float,
          clock_hz: int = 25_000_000, label: str = "w") -> Check:
    """Runs the workload at bound·(1 − margin) and bound·(1 + margin)."""
    bound = analytic_bound(w, policy, overheads, extra)
    below, above = bound * (1 - margin), min(1.5, bound * (1 + margin))
    alloc = allocation_at(w, policy, bound, overheads, extra)
    low = run_set(policy, sim_tasks(w, below, policy, alloc), w.horizon, out_dir, clock_hz, f"{label}-below")
    over = sim_tasks(w, above, policy, alloc)
    cost = math.ceil(_model_cost(policy, overheads, len(w.tasks))) + extra
    high = run_set(policy, over, w.horizon_over([t.busy + cost for t in over]), out_dir, clock_hz, f"{label}-above")
    return Check(policy, len(w.tasks), bound, below, above, low, high, alloc)


def simulated_breakdown(w: Workload, policy: str, overheads: Overheads, extra: int, out_dir: Path,
                        clock_hz: int = 25_000_000, steps: int = STEPS, label: str = "w",
                        runner: Callable[..., SetRun] = run_set) -> float:
    """The largest utilisation at which the run misses no deadline within the horizon, by
    binary search over [SEARCH_LOW, SEARCH_HIGH] (its resolution (high - low) / 2^steps); the
    CSD allocation is the analysis's at the bound."""
    alloc = allocation_at(w, policy, analytic_bound(w, policy, overheads, extra), overheads, extra)
    low, high = SEARCH_LOW, SEARCH_HIGH
    for step in range(steps):
        mid = (low + high) / 2
        run = runner(policy, sim_tasks(w, mid, policy, alloc), w.horizon, out_dir, clock_hz, f"{label}-s{step}")
        if run.missed:
            high = mid
        else:
            low = mid
    return low


def workloads(n: int, sets: int, seed: int, period_divisor: int, cycles_per_ms: int = 25_000) -> list[Workload]:
    import random

    from ..analysis.workload import generate

    rng = random.Random(f"{seed}:{n}")
    return [Workload(tuple(generate(n, rng, cycles_per_ms, period_divisor))) for _ in range(sets)]


def describe(c: Check) -> str:
    def misses(r: SetRun) -> str:
        return f"{len(r.misses)}/{r.jobs} missed"

    return (f"{c.policy:5} n={c.tasks:2} bound {c.bound:.4f}  below {c.below:.4f}: {misses(c.below_run):14} "
            f"above {c.above:.4f}: {misses(c.above_run)}")



def measured_overheads(clock_hz: int = 25_000_000) -> Overheads:
    """The scheduler's costs measured now on cairn-sim (cairn.bench.overheads's keys)."""
    from ..bench.kernel import parse_trace, run_firmware
    from ..bench.overheads import POLICIES as BUILDS
    from ..bench.overheads import derive, measure_ops
    from ..paths import firmware_dir, sim_binary

    ops = {}
    for build in BUILDS:
        _, trace = run_firmware(str(sim_binary()), firmware_dir() / f"kernel-overheads-{build}.elf", clock_hz)
        ops[build], _ = measure_ops(parse_trace(trace, clock_hz))
    return Overheads.from_mapping(derive(ops))
