"""python -m cairn.difftest: randomized differential test of cairn-sim against unicorn."""

from __future__ import annotations

import argparse
import sys

from .compare import Summary, default_sim, reference_cmd, run_diff, sim_exists
from .gen import CaseGen
from .space import CLASS_NAMES, EXCLUDED_BEHAVIOURS
from .report import describe
from .uc_runner import ReferenceRunner, UnicornRunner


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m cairn.difftest",
        description="Run random ARMv6-M instruction sequences on unicorn and on `SIM exec-cases`; "
        "compare the state after every instruction.",
    )
    p.add_argument("--cases", type=int, default=10000, help="number of cases (default 10000)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--start", type=int, default=0, help="index of the first case (default 0)")
    p.add_argument("--case", type=int, help="run only this case index and show it in detail")
    p.add_argument("--sim", help="simulator binary (default build/bin/cairn-sim, or $CAIRN_SIM)")
    p.add_argument(
        "--self-check",
        action="store_true",
        help="compare the fast unicorn runner with the reference one (fresh engine per case, "
        "count=1 stepping) behind the same exec-cases CLI: tests the harness itself",
    )
    p.add_argument("--show", type=int, default=5, help="detailed reports to print (default 5)")
    p.add_argument("--keep", metavar="FILE", help="also write the cases (JSON lines) to FILE")
    p.add_argument("--exclusions", action="store_true", help="list the excluded behaviours and exit")
    p.add_argument("--classes", action="store_true", help="list the encoding classes and exit")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    a = p.parse_args(argv)

    if a.exclusions:
        for line in EXCLUDED_BEHAVIOURS:
            print(f"- {line}")
        return 0
    if a.classes:
        print(" ".join(CLASS_NAMES))
        return 0

    names = ("unicorn", "cairn-sim")
    if a.self_check:
        cmd = reference_cmd()
        names = ("unicorn", "reference")
    else:
        sim = a.sim or default_sim()
        if not sim_exists(sim):
            print(f"difftest: simulator not found or not executable: {sim} (run `make build`, or pass --sim)",
                  file=sys.stderr)  # fmt: skip
            return 2
        cmd = [sim]

    if a.case is not None:
        return _one(a.seed, a.case, cmd, names)

    def progress(s: Summary) -> None:
        if not a.quiet:
            print(f"\r{s.cases}/{a.cases} cases, {s.mismatches} mismatches", end="", file=sys.stderr, flush=True)

    s = run_diff(a.cases, a.seed, cmd, start=a.start, max_reports=a.show, keep=a.keep, progress=progress,
                 names=names)  # fmt: skip
    if not a.quiet:
        print(file=sys.stderr)
    print(s.text())
    return 0 if s.ok else 1


def _one(seed: int, index: int, cmd: list[str], names: tuple[str, str]) -> int:
    """Run one case; print it in detail whether or not it differs."""
    case = CaseGen(seed).case(index)
    s = run_diff(1, seed, cmd, start=index, max_reports=1, names=names)
    if s.error:
        print(f"ERROR: {s.error}")
        return 1
    if s.reports:
        print(s.reports[0])
        return 1
    ours = UnicornRunner().run(case)
    print(describe(case, ours, ours, names[0], names[1], reason="no difference"))
    ref = ReferenceRunner().run(case)
    if ref != ours:
        print(describe(case, ours, ref, "unicorn", "reference", reason="fast and reference unicorn differ"))
    print(f"states ({len(ours.states)}), fault={ours.fault!r}:")
    for k, row in enumerate(ours.states):
        print(f"  {k}: " + " ".join(f"{v:08x}" for v in row[:17]) + f" {row[17]:016x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
