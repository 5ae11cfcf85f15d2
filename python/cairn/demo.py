"""`make run`'s flagship demo: run the demo firmware on cairn-sim and summarise the run."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--firmware", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stats_path = args.out / "demo-stats.json"
    trace_path = args.out / "demo-trace.json"
    print(f"== cairn-sim run {args.firmware}")
    proc = subprocess.run(
        [args.sim, "run", "--stats", str(stats_path), "--trace", str(trace_path), str(args.firmware)],
        check=False,
    )
    if proc.returncode != 0:
        print(f"demo: cairn-sim exited with status {proc.returncode}", file=sys.stderr)
        return proc.returncode
    stats = json.loads(stats_path.read_text())
    print("== summary")
    print(f"  instructions       {stats['instructions']:>14,}")
    print(f"  cycles             {stats['cycles']:>14,}  (sleeping {stats['sleep_cycles']:,})")
    print(f"  simulated time     {stats['simulated_seconds']:>14.6f} s at {stats['clock_hz'] / 1e6:g} MHz")
    print(f"  host time          {stats['host_seconds']:>14.3f} s  ({stats['mips']:.0f} MIPS)")
    print(f"  stats: {stats_path}   trace (open in ui.perfetto.dev): {trace_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
