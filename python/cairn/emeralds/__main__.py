"""`python -m cairn.emeralds`: generated workloads run on cairn-sim just below and just above the
analysis's breakdown bound, and (with --steps) their simulated breakdown beside the analytic one
(docs/analysis.md, "The simulated check").

    python -m cairn.emeralds --tasks 5 --sets 2 --seed 1 [--steps 8] [--overheads FILE.json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from ..analysis.breakdown import POLICIES
from ..analysis.overheads import Overheads
from .simcheck import MARGIN, analytic_bound, check, describe, measured_overheads, release_cost, simulated_breakdown, workloads
from .taskset import MAX_TASKS, TasksetError


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.emeralds", description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=5, help=f"tasks per workload, 1..{MAX_TASKS}")
    ap.add_argument("--sets", type=int, default=1, help="workloads")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--period-divisor", type=int, default=1)
    ap.add_argument("--margin", type=float, default=MARGIN, help="below and above the bound, a share of it")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--steps", type=int, default=0, help="halvings of the simulated breakdown search (0: none)")
    ap.add_argument("--overheads", type=Path, help="the analysis's keys (default: measured on cairn-sim now)")
    ap.add_argument("--out", type=Path, help="keep the scenarios and I/O logs here")
    args = ap.parse_args(argv)
    try:
        policies = [p for p in args.policies.split(",") if p]
        unknown = [p for p in policies if p not in POLICIES]
        if unknown or not policies:
            raise ValueError(f"unknown policy {unknown[0] if unknown else '(none)'!r}: one of {', '.join(POLICIES)}")
        if not 1 <= args.tasks <= MAX_TASKS or args.sets < 1 or args.period_divisor < 1:
            raise ValueError(f"need 1 <= --tasks <= {MAX_TASKS}, --sets >= 1 and --period-divisor >= 1")
        if not 0 < args.margin < 1 or args.steps < 0:
            raise ValueError("need 0 < --margin < 1 and --steps >= 0")
        o = Overheads.from_json(args.overheads) if args.overheads else measured_overheads()
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out or Path(tmp)
            extra = {p: release_cost(p, o, out) for p in policies}
            print("release cost beyond the model (cycles): " + ", ".join(f"{p} {extra[p]}" for p in policies))
            for j, w in enumerate(workloads(args.tasks, args.sets, args.seed, args.period_divisor)):
                for p in policies:
                    c = check(w, p, o, extra[p], out, args.margin, label=f"w{j}")
                    line = describe(c) + ("" if c.agrees else "  (disagrees)")
                    if args.steps:
                        sim = simulated_breakdown(w, p, o, extra[p], out, steps=args.steps, label=f"w{j}-bd")
                        line += f"  simulated breakdown {sim:.4f} (analytic {analytic_bound(w, p, o, extra[p]):.4f})"
                    print(f"set {j}: {line}")
    except (ValueError, OSError, TasksetError) as e:
        print(f"error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
