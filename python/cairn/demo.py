"""`make run`'s flagship demo: run the demo firmware on cairn-sim and summarise the run."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cairn.runners import run_cairn_sim
from cairn.summary import print_energy, print_run

# Energy profile of the demo run (sim/profiles/, docs/energy.md).
PROFILE = "stm32l053"
REPO = Path(__file__).resolve().parents[2]
HELLO_SCENARIO = REPO / "experiments" / "hello-energy" / "scenario.toml"


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
    proc = run_cairn_sim(["run", "--energy", PROFILE, "--stats", str(stats_path), "--trace", str(trace_path),
                          str(args.firmware)], timeout=None, sim=args.sim)  # fmt: skip
    sys.stdout.write(proc.text())
    sys.stderr.write(proc.stderr.decode(errors="replace"))
    sys.stdout.flush()
    if proc.status != 0:
        print(f"demo: cairn-sim exited with status {proc.status}", file=sys.stderr)
        return proc.status
    stats = json.loads(stats_path.read_text())
    print("== summary")
    print_run(stats)
    print(f"  host time          {stats['host_seconds']:>14.3f} s  ({stats['mips']:.0f} MIPS)")
    print(f"  stats: {stats_path}   trace (open in ui.perfetto.dev): {trace_path}")
    print_energy(stats, args.firmware.name)
    # A kernel application with tasks and sleep, for the by-task and idle figures.
    hello = args.firmware.parent / "hello.elf"
    if hello.is_file() and HELLO_SCENARIO.is_file():
        hello_stats = args.out / "hello-energy-stats.json"
        proc = run_cairn_sim(["run", "--device", str(HELLO_SCENARIO), "--max-time", "2s", "--stats", str(hello_stats),
                              "--trace", str(args.out / "hello-energy-trace.json"), str(hello)], timeout=None, sim=args.sim)  # fmt: skip
        if proc.status not in (0, 124):
            print(f"demo: cairn-sim exited with status {proc.status} on {hello}", file=sys.stderr)
            return proc.status
        print_energy(json.loads(hello_stats.read_text()), f"{hello.name}, 2 simulated s ({HELLO_SCENARIO.relative_to(REPO)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
