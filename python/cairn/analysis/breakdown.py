"""Breakdown utilisation (EMERALDS paper (Zuberi, Pillai and Shin, SOSP 1999), section 5): scale
a workload's WCETs until a policy can no longer schedule it; the utilisation at that point,
averaged over many workloads.

    python -m cairn.analysis.breakdown --sets N --seed S [--overheads FILE.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Callable, Sequence

from .csd import csd_schedulable
from .edf import edf_schedulable
from .fixed_priority import fp_schedulable
from .overheads import ZERO, Overheads
from .task import Task, scaled, utilisation
from .workload import generate

Test = Callable[[Sequence[Task], Overheads], bool]

POLICIES: dict[str, Test] = {
    "RM": fp_schedulable,
    "EDF": edf_schedulable,
    "CSD-2": lambda ts, o: csd_schedulable(ts, 2, o),
    "CSD-3": lambda ts, o: csd_schedulable(ts, 3, o),
}


def breakdown(tasks: Sequence[Task], test: Test, overheads: Overheads = ZERO,
              steps: int = 12) -> float:
    """The largest application utilisation (Σ C/T, overheads excluded) at which ``test`` still
    passes once the WCETs are scaled to it, by binary search over [0, 1] to 2^-steps."""
    base = float(utilisation(tasks))
    low, high = 0.0, 1.0
    for _ in range(steps):
        mid = (low + high) / 2
        if test(scaled(tasks, mid / base), overheads):
            low = mid
        else:
            high = mid
    return low


def experiment(sizes: Sequence[int], sets: int, seed: int, overheads: Overheads,
               cycles_per_ms: int, period_divisor: int,
               policies: Sequence[str]) -> dict[int, dict[str, float]]:
    """Mean breakdown utilisation per task count and policy; the same workloads for every
    policy (one generator seeded by ``seed`` per task count)."""
    out: dict[int, dict[str, float]] = {}
    for n in sizes:
        rng = random.Random(f"{seed}:{n}")
        workloads = [generate(n, rng, cycles_per_ms, period_divisor) for _ in range(sets)]
        out[n] = {p: statistics.fmean(breakdown(w, POLICIES[p], overheads) for w in workloads)
                  for p in policies}
    return out


def table(results: dict[int, dict[str, float]], policies: Sequence[str]) -> str:
    lines = ["tasks " + " ".join(f"{p:>7}" for p in policies)]
    for n, row in results.items():
        lines.append(f"{n:>5} " + " ".join(f"{row[p]:>7.4f}" for p in policies))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.analysis.breakdown", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=int, default=50, help="workloads per task count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--overheads", type=Path, help="JSON object of overhead costs in cycles")
    ap.add_argument("--tasks", default="5,10,15,20", help="task counts, comma separated")
    ap.add_argument("--mhz", type=int, default=25, help="cycles per microsecond (clock in MHz)")
    ap.add_argument("--period-divisor", type=int, default=1)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args(argv)
    try:
        overheads = Overheads.from_json(args.overheads) if args.overheads else ZERO
        sizes = [int(s) for s in args.tasks.split(",")]
        policies = args.policies.split(",")
        unknown = [p for p in policies if p not in POLICIES]
        if unknown or args.sets <= 0 or args.mhz <= 0 or any(n <= 0 for n in sizes):
            raise ValueError(f"bad arguments (unknown policies: {unknown})" if unknown
                             else "--sets, --mhz and task counts must be > 0")
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = experiment(sizes, args.sets, args.seed, overheads, args.mhz * 1000,
                         args.period_divisor, policies)
    if args.json:
        print(json.dumps({str(n): r for n, r in results.items()}, indent=2))
    else:
        print(f"mean breakdown utilisation, {args.sets} sets per row, seed {args.seed}, "
              f"overheads {'from ' + str(args.overheads) if args.overheads else 'zero'}")
        print(table(results, policies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
