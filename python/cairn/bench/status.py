"""Rewrite the benchmark block of docs/STATUS.md from build/bench/*.json.

`make bench` runs this after the benchmarks, so the figures in STATUS.md are always the
output of a real run, never typed by hand. The block sits between the markers
``<!-- bench:begin -->`` and ``<!-- bench:end -->``.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
from pathlib import Path
from typing import Any

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"


def render_sim(d: dict[str, Any]) -> list[str]:
    m, r, o, w, t = d["mips"], d["ratio"], d["overhead"], d["wfi_one_simulated_second"], d["targets"]
    return [
        f"- CPU-bound firmware `{Path(d['firmware']).name}`, {d['instructions']:,} instructions, "
        f"best of {d['runs_per_figure']} runs:",
        f"  - cairn-sim **{m['cairn_sim']:.0f} MIPS** (target ≥ {t['mips_min']:.0f}: "
        f"{'met' if t['mips_met'] else 'not met'})",
        f"  - QEMU {m['qemu']:.0f} MIPS ({r['qemu_over_cairn_sim']:.2f}× cairn-sim); "
        f"QEMU `-icount shift=0` {m['qemu_icount']:.0f} MIPS ({r['qemu_icount_over_cairn_sim']:.2f}×)",
        f"  - `--stats` overhead {o['stats'] * 100:+.1f}%, `--trace` overhead {o['trace'] * 100:+.1f}%",
        f"- One simulated second of WFI sleep between 1 kHz timer interrupts: cairn-sim "
        f"**{w['cairn_sim_host_seconds']:.4f} s** host (target < {t['wfi_host_seconds_max']} s: "
        f"{'met' if t['wfi_met'] else 'not met'}), QEMU {w['qemu_host_seconds']:.3f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bench-dir", type=Path, default=Path("build/bench"))
    ap.add_argument("--status", type=Path, default=Path("docs/STATUS.md"))
    args = ap.parse_args(argv)
    lines = [BEGIN]
    sim = args.bench_dir / "sim.json"
    if sim.exists():
        data = json.loads(sim.read_text())
        lines += [f"Latest `make bench`: {data.get('date', '?')}, {platform.machine()} host with "
                  f"{data.get('host_cores', '?')} cores.", ""]
        lines += render_sim(data)
    else:
        lines.append("- no build/bench/sim.json yet: run `make bench`")
    lines.append(END)
    text = args.status.read_text()
    block = "\n".join(lines)
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{args.status}: markers {BEGIN} ... {END} not found")
    args.status.write_text(pattern.sub(lambda _: block, text))
    print(f"updated {args.status}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
