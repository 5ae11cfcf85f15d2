"""Summaries of a cairn-sim stats file (`--stats FILE.json`), as the demo prints them.

    python -m cairn.summary out/hello.json

prints the run's size and time, the scenario's delay and jitter measurements and, when the run had an energy profile, the energy by power
state, code category and task with the top functions. Host time is left out so that the
summary of a run is as deterministic as the run itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def print_run(stats: dict[str, Any]) -> None:
    """Instructions, cycles and simulated time: the deterministic part of a run."""
    print(f"  instructions       {stats['instructions']:>14,}")
    print(f"  cycles             {stats['cycles']:>14,}  (sleeping {stats['sleep_cycles']:,})")
    print(f"  simulated time     {stats['simulated_seconds']:>14.6f} s at {stats['clock_hz'] / 1e6:g} MHz")


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


def print_io(stats: dict[str, Any]) -> None:
    """Stimulus-to-response delays and jitter of the scenario's measurements."""
    io = stats.get("io") or {}
    for pair, d in sorted((io.get("delay") or {}).items()):
        dl = d["delay"]
        miss = d.get("deadline") or {}
        deadline = (f", deadline {miss['deadline_s'] * 1e6:g} us missed {miss['misses']} times"
                    if miss else "")
        print(f"  delay {pair:<20} {d['answered']}/{d['stimuli']} answered, mean {dl['mean_s'] * 1e6:.3f} us, "
              f"max {dl['max_s'] * 1e6:.3f} us{deadline}")
    for name, j in sorted((io.get("jitter") or {}).items()):
        print(f"  jitter {name:<19} {j['events']} events, period {j['expected_period_s'] * 1e6:g} us, "
              f"max |jitter| {j['max_abs_jitter_s'] * 1e6:.3f} us")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Summarise a cairn-sim stats file.")
    ap.add_argument("stats", type=Path, help="FILE.json written by cairn-sim run --stats")
    args = ap.parse_args(argv)
    try:
        stats = json.loads(args.stats.read_text())
    except (OSError, ValueError) as e:
        print(f"cairn.summary: cannot read {args.stats}: {e}", file=sys.stderr)
        return 2
    print(f"== {args.stats}")
    print_run(stats)
    print_io(stats)
    print_energy(stats, args.stats.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
