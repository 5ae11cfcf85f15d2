"""Cost of cairn-sim's main-stack guard (docs/cli.md "Main-stack guard"), in host
instructions counted by callgrind (exact, as `cairn.bench.sim` judges overheads): each
firmware run with its `__stack_limit` watched (the default) against the same run with
`--stack-check off`, whose run loop has no code for the check; plain and with energy
accounting (the run loop's other specialisation). Also checks that both runs take the same
cycles, since the check only observes. Writes a JSON file (`cairn.bench.sim` puts the same
figures in build/bench/sim.json)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from cairn.bench.sim import ENERGY_PROFILE, host_instructions

#: (firmware, options bounding its run): a CPU-bound loop with few calls, the demo
#: application and the kernel's thread tasks (calls, context switches, interrupts).
FIRMWARE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bench_cpu.elf", ("--max-instructions", "50000000")),
    ("demo.elf", ()),
    ("kernel-threads.elf", ("--max-time", "1s")),
)


def _cycles(stats: Path) -> int:
    return int(json.loads(stats.read_text())["cycles"])


def measure(sim: str, elf: Path, limit: tuple[str, ...]) -> dict[str, Any] | None:
    """Host instructions watched and not, plain and with energy; None without valgrind."""
    out: dict[str, Any] = {"firmware": str(elf), "limit": list(limit)}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, extra in (("plain", []), ("energy", ["--energy", ENERGY_PROFILE])):
            counts: dict[str, int | None] = {}
            cycles: dict[str, int] = {}
            for check in ("off", "warn"):
                stats = Path(tmp) / f"{mode}-{check}.json"
                cmd = [sim, "run", *limit, *extra, "--flash-wait-states", "0", "--stack-check", check,
                       "--stats", str(stats), str(elf)]
                counts[check] = host_instructions(cmd)
                if counts[check] is not None:
                    cycles[check] = _cycles(stats)
            off, warn = counts["off"], counts["warn"]
            if off is None or warn is None:
                return None
            stack = json.loads((Path(tmp) / f"{mode}-warn.json").read_text()).get("stack", {})
            out[mode] = {
                "host_instructions_off": off,
                "host_instructions_watched": warn,
                "ratio": warn / off,
                "same_cycles": cycles["off"] == cycles["warn"],
                "peak_bytes": stack.get("peak_bytes"),
            }
    return out


def measure_all(sim: str, fw: Path) -> list[dict[str, Any]] | None:
    rows = []
    for name, limit in FIRMWARE:
        row = measure(sim, fw / name, limit)
        if row is None:
            return None
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--fw", required=True, type=Path, help="firmware directory (build/fw)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    rows = measure_all(args.sim, args.fw)
    if rows is None:
        sys.exit("bench: the stack guard's cost is counted with valgrind, which is not installed")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"method": "callgrind host instructions, --stack-check warn / off",
                                    "firmware": rows}, indent=2) + "\n")
    for r in rows:
        p, e = r["plain"], r["energy"]
        print(f"{Path(r['firmware']).name} {' '.join(r['limit'])}: watched / off {p['ratio']:.4f}, "
              f"with energy {e['ratio']:.4f}; same cycles {p['same_cycles'] and e['same_cycles']}; "
              f"main stack peak {p['peak_bytes']} B")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
