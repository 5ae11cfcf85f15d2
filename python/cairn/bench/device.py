"""Device benchmark: what the multi-processor simulator costs, measured in one run.

Writes build/bench/device.json with

- ``restructure_host_instructions_ratio`` / ``restructure_energy_host_instructions_ratio``:
  host instructions (callgrind, exact) of bench_cpu.elf on this cairn-sim divided by the same
  on the simulator built from ``--baseline-sim`` (the tree before the device layer), plain
  and with energy accounting: single-processor speed must not drop (target ≤ 1.03);
- ``five_sleepy_vs_one_host_ratio``: a five-module device where one module computes and four
  sleep, against the computing module alone (target ≤ 1.3);
- ``five_busy_vs_single_mips_ratio`` (a frame every 100 µs per module) and the same at 10 µs
  and 1 µs: aggregate simulated MIPS of five busy modules against the same workload on one
  processor (target ≥ 0.7 at 100 µs).

Ratios of host time are judged on callgrind host instructions per simulated instruction
(exact on this shared 2-core host); wall-clock MIPS are reported beside them.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from cairn.bench.sim import CALLGRIND_CPU_INSTRUCTIONS, ENERGY_PROFILE, host_instructions, wall

TARGET_RESTRUCTURE = 1.03
TARGET_SLEEPY = 1.3
TARGET_BUSY = 0.7
CLOCK = "48MHz"
RUNS = 5


def counted(cmd: list[str]) -> int:
    """Host instructions of `cmd` (callgrind): the ratios here are judged on them."""
    n = host_instructions(cmd)
    if n is None:
        raise SystemExit("bench: the device benchmark needs valgrind (scripts/bootstrap installs it)")
    return n


def device_file(path: Path, elfs: list[Path]) -> Path:
    """A device of len(elfs) modules at CLOCK, with the default bus."""
    text = 'name = "bench"\n'
    for i, elf in enumerate(elfs):
        text += f'[[processor]]\nname = "m{i}"\nfirmware = "{elf}"\nclock = "{CLOCK}"\n'
    path.write_text(text)
    return path


def device_run(sim: str, dev: Path, tmp: Path) -> dict[str, Any]:
    """Best-of-RUNS wall clock and the callgrind count of one device run, with its stats."""
    stats = tmp / (dev.stem + ".json")
    cmd = [sim, "run", "--device", str(dev), "--stats", str(stats)]
    best = float("inf")
    for _ in range(RUNS):
        t, proc = wall(cmd)
        if proc.status != 0:
            raise SystemExit(f"bench: {' '.join(cmd)} exited {proc.status}: "
                             f"{proc.stderr.decode(errors='replace')[-400:]}")
        best = min(best, t)
    data = json.loads(stats.read_text())
    instructions = int(data["instructions"])
    host = counted(cmd)
    return {
        "instructions": instructions,
        "wall_seconds": best,
        "mips_wall": instructions / best / 1e6,
        "host_instructions": host,
        "host_per_instruction": host / instructions,
        "frames": data["bus"]["frames"],
        "windows": data["windows"],
    }


def restructure(sim: str, baseline: str, elf: Path) -> dict[str, Any]:
    limit = ["--max-instructions", str(CALLGRIND_CPU_INSTRUCTIONS), "--flash-wait-states", "0"]
    energy = ["--energy", ENERGY_PROFILE]
    counts = {}
    for name, s in (("after", sim), ("before", baseline)):
        counts[name] = {
            "plain": counted([s, "run", *limit, str(elf)]),
            "energy": counted([s, "run", *limit, *energy, str(elf)]),
        }
    return {
        "firmware": str(elf),
        "baseline_sim": baseline,
        "host_instructions": counts,
        "plain": counts["after"]["plain"] / counts["before"]["plain"],
        "energy": counts["after"]["energy"] / counts["before"]["energy"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--baseline-sim", required=True, help="cairn-sim built from the tree before devices")
    ap.add_argument("--fw", required=True, type=Path, help="firmware directory (build/fw)")
    ap.add_argument("--workloads", required=True, type=Path,
                    help="the device workloads built for the benchmark (build/fw/bench)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    fw = args.fw.resolve()
    r = restructure(args.sim, args.baseline_sim, fw / "bench_cpu.elf")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        work = args.workloads.resolve()
        sleepy = work / "device-sleepy.elf"
        alone = device_run(args.sim, device_file(tmp / "sleepy1.toml", [sleepy]), tmp)
        five_sleepy = device_run(args.sim, device_file(tmp / "sleepy5.toml", [sleepy] * 5), tmp)
        busy: dict[str, Any] = {}
        for period in (100, 10, 1):
            elf = work / f"device-busy-{period}.elf"
            one = device_run(args.sim, device_file(tmp / f"busy{period}-1.toml", [elf]), tmp)
            five = device_run(args.sim, device_file(tmp / f"busy{period}-5.toml", [elf] * 5), tmp)
            busy[f"{period}us"] = {
                "single": one,
                "five": five,
                # Simulated instructions per host instruction, five against one: the MIPS ratio.
                "mips_ratio": one["host_per_instruction"] / five["host_per_instruction"],
                "mips_ratio_wall": five["mips_wall"] / one["mips_wall"],
            }
    sleepy_ratio = five_sleepy["host_instructions"] / alone["host_instructions"]
    # The same against a plain single-processor run (no device at all): bench_cpu.elf's
    # host instructions per simulated instruction.
    plain_per_instruction = r["host_instructions"]["after"]["plain"] / CALLGRIND_CPU_INSTRUCTIONS
    result = {
        "restructure_host_instructions_ratio": r["plain"],
        "restructure_energy_host_instructions_ratio": r["energy"],
        "five_sleepy_vs_one_host_ratio": sleepy_ratio,
        "five_sleepy_vs_one_wall_ratio": five_sleepy["wall_seconds"] / alone["wall_seconds"],
        "five_busy_vs_single_mips_ratio": busy["100us"]["mips_ratio"],
        "five_busy_vs_single_mips_ratio_10us": busy["10us"]["mips_ratio"],
        "five_busy_vs_single_mips_ratio_1us": busy["1us"]["mips_ratio"],
        "five_busy_vs_plain_run_mips_ratio": plain_per_instruction / busy["100us"]["five"]["host_per_instruction"],
        "restructure": r,
        "sleepy": {"alone": alone, "five": five_sleepy},
        "busy": busy,
        "clock": CLOCK,
        "targets": {
            "restructure_max": TARGET_RESTRUCTURE,
            "restructure_met": r["plain"] <= TARGET_RESTRUCTURE and r["energy"] <= TARGET_RESTRUCTURE,
            "sleepy_max": TARGET_SLEEPY,
            "sleepy_met": sleepy_ratio <= TARGET_SLEEPY,
            "busy_min": TARGET_BUSY,
            "busy_met": busy["100us"]["mips_ratio"] >= TARGET_BUSY,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"device bench: restructure plain {r['plain']:.4f}, energy {r['energy']:.4f}; "
          f"five sleepy vs one {sleepy_ratio:.3f}; five busy vs single MIPS "
          + ", ".join(f"{k} {v['mips_ratio']:.3f}" for k, v in busy.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
