"""`make run`'s flagship demo: run the demo firmware on cairn-sim and summarise the run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cairn.experiment import run
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
    print(f"== cairn-sim run {args.firmware}")
    res = run(args.firmware, outputs=("stats", "trace"), options=("--energy", PROFILE), out_dir=args.out / "demo",
              sim=args.sim)
    sys.stdout.write(res.console)
    sys.stderr.write(res.stderr.decode(errors="replace"))
    sys.stdout.flush()
    if res.status != 0:
        print(f"demo: cairn-sim exited with status {res.status}", file=sys.stderr)
        return res.status
    stats = res.stats_json
    stats_path, trace_path = res.files["stats"], res.files["trace"]
    print("== summary")
    print_run(stats)
    print(f"  host time          {stats['host_seconds']:>14.3f} s  ({stats['mips']:.0f} MIPS)")
    print(f"  stats: {stats_path}   trace (open in ui.perfetto.dev): {trace_path}")
    print_energy(stats, args.firmware.name)
    # A kernel application with tasks and sleep, for the by-task and idle figures.
    hello = args.firmware.parent / "hello.elf"
    if hello.is_file() and HELLO_SCENARIO.is_file():
        res = run(HELLO_SCENARIO, outputs=("stats", "trace"), max_time="2s", firmware=hello,
                  out_dir=args.out / "hello-energy", sim=args.sim)
        if res.status not in (0, 124):
            print(f"demo: cairn-sim exited with status {res.status} on {hello}", file=sys.stderr)
            return res.status
        print_energy(res.stats_json, f"{hello.name}, 2 simulated s ({HELLO_SCENARIO.relative_to(REPO)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
