"""`make run`'s flagship demo: run the demo firmware on cairn-sim and summarise the run."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

# Energy profile of the demo run (sim/profiles/, docs/energy.md).
PROFILE = "stm32l053"
REPO = Path(__file__).resolve().parents[2]
HELLO_SCENARIO = REPO / "experiments" / "hello-energy" / "scenario.toml"


def print_energy(stats: dict[str, Any], title: str) -> None:
    """Energy breakdown by power state, code category and task, largest first."""
    e = stats.get("energy_joules")
    if not e:
        return
    total = float(e["total"])
    model = stats.get("energy_model", {})
    print(f"== energy: {title} (profile {model.get('profile', '?')}, {model.get('voltage_v', 0):g} V)")
    print(f"  total              {total * 1e6:>14.3f} uJ  (average {model.get('average_power_w', 0) * 1e3:.3f} mW)")
    for key in ("by_state", "by_category", "by_task"):
        parts = sorted(((float(v), k) for k, v in e[key].items() if float(v) > 0), reverse=True)
        shown = ", ".join(f"{k} {v * 1e6:.3f} uJ ({100 * v / total:.1f}%)" for v, k in parts[:6]) if total else ""
        print(f"  {key:<18} {shown}")
    idle = stats.get("idle", {})
    if idle:
        print(f"  idle               {idle['percent']:.2f}% in {idle['periods']} periods "
              f"(mean {idle['mean_s'] * 1e3:.3f} ms, stddev {idle['stddev_s'] * 1e3:.3f} ms)")
    top = stats.get("profile", [])[:5]
    if top:
        print("  top functions      " + ", ".join(
            f"{r['symbol']} {r['energy_joules'] * 1e6:.3f} uJ/{r['calls']} calls" for r in top))


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
        [args.sim, "run", "--energy", PROFILE, "--stats", str(stats_path), "--trace", str(trace_path),
         str(args.firmware)],
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
    print_energy(stats, args.firmware.name)
    # A kernel application with tasks and sleep, for the by-task and idle figures.
    hello = args.firmware.parent / "hello.elf"
    if hello.is_file() and HELLO_SCENARIO.is_file():
        hello_stats = args.out / "hello-energy-stats.json"
        proc = subprocess.run(
            [args.sim, "run", "--device", str(HELLO_SCENARIO), "--max-time", "2s",
             "--stats", str(hello_stats), "--trace", str(args.out / "hello-energy-trace.json"), str(hello)],
            check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if proc.returncode not in (0, 124):
            print(f"demo: cairn-sim exited with status {proc.returncode} on {hello}", file=sys.stderr)
            return proc.returncode
        print_energy(json.loads(hello_stats.read_text()), f"{hello.name}, 2 simulated s ({HELLO_SCENARIO.relative_to(REPO)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
