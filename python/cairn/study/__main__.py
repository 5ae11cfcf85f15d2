"""`python -m cairn.study [--size reduced|full] [--out DIR] [--estimate|--no-estimate] [STUDY ...]`:
run the seed studies and write the HTML report (default: every study this checkout reproduces,
reduced size). It prints how long they are expected to take first (cairn.study.timing), then
a progress bar a study."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cairn.paths import repo_root

from . import timing
from .paper import load_all
from .progress import study_bar
from .registry import STUDIES
from .report import write_report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.study", description=__doc__)
    ap.add_argument("--size", choices=("reduced", "full"), default="reduced")
    ap.add_argument("--out", type=Path, default=Path("out/report"))
    shown = ap.add_mutually_exclusive_group()
    shown.add_argument("--estimate", action="store_true", help="print how long the studies will take, run nothing")
    shown.add_argument("--no-estimate", action="store_true", help="start without printing the estimate")
    ap.add_argument("studies", nargs="*", help=f"any of {', '.join(STUDIES)}")
    args = ap.parse_args(argv)
    unknown = [s for s in args.studies if s not in STUDIES]
    if unknown:
        print(f"cairn.study: unknown study {unknown[0]!r} (known: {', '.join(STUDIES)})", file=sys.stderr)
        return 2
    names = args.studies or list(STUDIES)
    if not args.no_estimate:
        print(timing.describe(names, args.size), flush=True)
    if args.estimate:
        return 0
    papers = load_all(repo_root() / "experiments")
    expected = timing.expected(names, args.size)
    results = []
    start = time.monotonic()
    for study in expected:
        began = time.monotonic()
        with study_bar(study.name, study.seconds):
            results.append(STUDIES[study.name](papers[study.name], args.size))
        timing.record(study.name, args.size, time.monotonic() - began)
    index = write_report(results, papers, args.out)
    held = sum(v.holds is True for r in results for v in r.verdicts)
    total = sum(len(r.verdicts) for r in results)
    print(f"report: {index} ({len(results)} studies, {held} of {total} judged claims hold, "
          f"{time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
