"""`python -m cairn.study [--size reduced|full] [--out DIR] [STUDY ...]`: run the seed studies
and write the HTML report (default: every study this checkout reproduces, reduced size)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tqdm import tqdm

from cairn.paths import repo_root

from . import timing
from .paper import load_all
from .registry import STUDIES
from .report import write_report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.study", description=__doc__)
    ap.add_argument("--size", choices=("reduced", "full"), default="reduced")
    ap.add_argument("--out", type=Path, default=Path("out/report"))
    ap.add_argument("studies", nargs="*", help=f"any of {', '.join(STUDIES)}")
    args = ap.parse_args(argv)
    unknown = [s for s in args.studies if s not in STUDIES]
    if unknown:
        print(f"cairn.study: unknown study {unknown[0]!r} (known: {', '.join(STUDIES)})", file=sys.stderr)
        return 2
    names = args.studies or list(STUDIES)
    papers = load_all(repo_root() / "experiments")
    print(timing.describe(names, args.size), flush=True)
    results = []
    start = time.monotonic()
    for name in tqdm(names, desc="studies", unit="study", disable=None):
        began = time.monotonic()
        results.append(STUDIES[name](papers[name], args.size))
        timing.record(name, args.size, time.monotonic() - began)
    index = write_report(results, papers, args.out)
    held = sum(v.holds is True for r in results for v in r.verdicts)
    total = sum(len(r.verdicts) for r in results)
    print(f"report: {index} ({len(results)} studies, {held} of {total} judged claims hold, "
          f"{time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
