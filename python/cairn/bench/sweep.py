"""Sweep benchmark: the same 20-run sweep (cairn.sweep, docs/experiments.md) on a Dask
LocalCluster of 1 worker and of 2 workers; the wall-clock ratio is what a second worker
buys (target >= 1.7 on a 2-core host otherwise idle; the load average is recorded beside it).

Each run is bench_cpu.elf (CPU-bound, no sleep) stopped after a number of instructions that
differs from run to run (each a distinct run: nothing is cached, nothing repeated), chosen
so a run takes about 1.5 s and process start-up does not dominate. The clusters are started,
and every process has imported what it needs, before the clock starts. Both sweeps must
give the same table. Writes build/bench/sweep.json with the wall-clock times, their ratio,
the CPU time of the runs (over the wall clock, how many cores the sweep got: on a shared
host, fewer than its workers), and the per-run simulated instruction counts.

    python -m cairn.bench.sweep [--runs 20] [--instructions 500000000] [--out build/bench/sweep.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import cairn
from cairn.experiment import build_firmware
from cairn.experiment.digest import sim_digest
from cairn.paths import build_dir

TARGET = 1.7


def timed_sweep(workers: int, elf: Path, counts: list[int]) -> tuple[float, float, Any]:
    """Wall-clock seconds of the sweep on a LocalCluster of `workers` single-threaded
    worker processes (the cluster started before timing), the CPU seconds its cairn-sim runs
    used (the workers' finished children, read on each worker), and the sweep's table."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)  # type: ignore[no-untyped-call]
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(workers)
        # Every worker imports the experiment layer and hashes cairn-sim before the clock starts.
        client.run(sim_digest)
        cpu_before = client.run(_children_cpu)
        start = time.perf_counter()
        points = [{"--max-instructions": n} for n in counts]
        table = cairn.sweep(elf, points, cache=False, client=client, progress=False)
        wall = time.perf_counter() - start
        cpu_after = client.run(_children_cpu)
    return wall, sum(cpu_after[w] - cpu_before[w] for w in cpu_after), table


def _children_cpu() -> float:
    """CPU seconds of this process's finished children: on a worker, its cairn-sim runs."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--instructions", type=int, default=500_000_000, help="instructions of the first run (about 1.4 s at 355 MIPS)")
    ap.add_argument("--out", type=Path, default=build_dir() / "bench" / "sweep.json")
    args = ap.parse_args(argv)
    if args.runs < 2 or args.instructions < 1:
        ap.error("--runs must be at least 2 and --instructions positive")
    (elf,) = build_firmware("bench_cpu")
    import pandas  # noqa: F401  (imported once, before either sweep is timed)
    import tqdm  # noqa: F401
    # Distinct runs, a little longer each (1 % of the first per step).
    counts = [args.instructions + i * (args.instructions // 100) for i in range(args.runs)]
    load = {"before": os.getloadavg()[0]}
    one_s, one_cpu, one = timed_sweep(1, elf, counts)
    load["after_one_worker"] = os.getloadavg()[0]
    two_s, two_cpu, two = timed_sweep(2, elf, counts)
    load["after_two_workers"] = os.getloadavg()[0]
    if not one.equals(two):
        raise SystemExit("bench: the sweep's table differs between 1 and 2 workers")
    if not (one["status"] == 124).all():
        raise SystemExit(f"bench: cairn-sim did not stop at the instruction limit: statuses {sorted(set(one['status']))}")
    ratio = one_s / two_s
    result: dict[str, Any] = {
        "runs": args.runs,
        "firmware": "bench_cpu.elf",
        "instructions": [int(n) for n in one["instructions"]],
        "host_cpus": os.cpu_count(),
        # The 1-minute load average around the sweeps: above the sweep's own workers, other
        # work shared the cores, and the speedup says less about cairn.sweep.
        "load_average_1min": {k: round(v, 2) for k, v in load.items()},
        "one_worker_s": round(one_s, 3),
        "two_workers_s": round(two_s, 3),
        "mean_run_s_one_worker": round(one_s / args.runs, 3),
        # CPU seconds of each sweep's cairn-sim runs, and how many cores that is over the
        # sweep's wall clock: about 1 and 2 on an idle host; less when others share it.
        "one_worker_cpu_s": round(one_cpu, 3),
        "two_workers_cpu_s": round(two_cpu, 3),
        "cores_used_one_worker": round(one_cpu / one_s, 2),
        "cores_used_two_workers": round(two_cpu / two_s, 2),
        "speedup": round(ratio, 3),
        "target_speedup": TARGET,
        "met": ratio >= TARGET,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"sweep of {args.runs} runs: 1 worker {one_s:.2f} s ({one_cpu / one_s:.2f} cores), "
          f"2 workers {two_s:.2f} s ({two_cpu / two_s:.2f} cores), "
          f"speedup {ratio:.2f}x (target >= {TARGET}: {'met' if result['met'] else 'not met'}) -> {args.out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
