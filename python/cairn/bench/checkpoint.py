"""Checkpoint migration's cost against checkpoint size, on cairn-sim (docs/checkpoint.md).

``measure()`` runs build/fw/checkpoint-<bytes>.elf (0, 256, 1024, 4096 bytes of state) on a
device of a 4 MHz and a 32 MHz module, reads the exact migration cost (migration point ->
restart on the destination) from the trace, fits it as base + per byte (least squares),
and derives the freezing time the paper defines: the time after the migration point at
which the computation moved to the fast module has caught up with the one left on the slow
one, cost x f_fast / (f_fast - f_slow), in cycles of the destination. It returns the dict
for build/bench/distributed.json; nothing calls it from ``make bench`` yet.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cairn.bench.linefit import fit
from cairn.checkpoint_trace import migration_cost_ps, run_device
from cairn.paths import firmware_dir

SIZES = (0, 256, 1024, 4096)
SLOW_HZ = 4_000_000
FAST_HZ = 32_000_000

DEVICE = """name = "checkpoint-bench"
[bus]
throughput = "64MB/s"
slot = "8us"
latency = "500ns"
[[processor]]
name = "slow"
firmware = "{elf}"
clock = "4MHz"
[[processor]]
name = "fast"
firmware = "{elf}"
clock = "32MHz"
"""


def measure(sizes: tuple[int, ...] = SIZES) -> dict[str, object]:
    """Migration cost per size (fast-module cycles), the base + per-byte fit, freezing time."""
    costs: dict[int, int] = {}
    with tempfile.TemporaryDirectory() as d:
        for size in sizes:
            elf = firmware_dir() / f"checkpoint-{size}.elf"
            dev = Path(d) / f"checkpoint-{size}.toml"
            dev.write_text(DEVICE.format(elf=elf.resolve()))
            run = run_device(dev)
            if run.returncode != 0:
                raise RuntimeError(f"checkpoint-{size}: status {run.returncode}: {run.lines[-5:]}")
            cost_ps, _ = migration_cost_ps(run.phases)
            costs[size] = cost_ps * FAST_HZ // 1_000_000_000_000
    base, per_byte, _ = fit([float(s) for s in sizes], [float(costs[s]) for s in sizes])
    freeze = {s: c * FAST_HZ // (FAST_HZ - SLOW_HZ) for s, c in costs.items()}
    return {
        "checkpoint_cost_base_cycles": round(base),
        "checkpoint_cost_per_byte_cycles": round(per_byte, 3),
        "checkpoint_freeze_cycles": freeze[1024] if 1024 in freeze else max(freeze.values()),
        "checkpoint_cost_cycles_by_size": costs,
        "checkpoint_freeze_cycles_by_size": freeze,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(measure(), indent=2))
