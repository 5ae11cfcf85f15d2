"""One periodic task set on cairn-sim: the scenario that delivers its parameters to
build/fw/taskset-<policy>.elf (kernel/apps/taskset/taskset.c), the run, and every job's
deadline judged from the simulator's I/O log (each completion's exact cycle), not from the
firmware."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..paths import firmware_dir
from ..runners import run_sim

#: The analysis's policy names and the firmware built for each (kernel/firmware.mk).
FIRMWARE = {"RM": "taskset-fp", "EDF": "taskset-edf", "CSD-2": "taskset-csd2", "CSD-3": "taskset-csd3"}
MAX_TASKS = 15
JOB_BITS = 24
#: The firmware reads task i's parameters at PARAMS_AT_US + i * PARAMS_EVERY_US, after its
#: calibration (under 1 ms at 25 MHz).
PARAMS_AT_US = 2000
PARAMS_EVERY_US = 200
#: A wall-clock bound on one run (the simulated bound is the horizon).
RUN_TIMEOUT_S = 300.0


class TasksetError(Exception):
    """A run that did not produce a judgeable record."""


@dataclass(frozen=True)
class SimTask:
    """One task as the firmware takes it: period and busy cycles, its level (priority under
    fixed priority, SRP preemption level under EDF and CSD; higher runs first) and its CSD
    queue (0 the highest EDF queue, k-1 the FP queue)."""

    period: int
    busy: int
    level: int
    queue: int = 0

    def check(self) -> None:
        if not 0 < self.period < 2**31 or not 0 < self.busy < 2**31:
            raise ValueError(f"period and busy cycles must be 1 .. 2^31-1: {self}")
        if not 1 <= self.level <= 255 or not 0 <= self.queue <= 8:
            raise ValueError(f"level must be 1..255 and queue 0..8: {self}")


@dataclass(frozen=True)
class Miss:
    task: int
    job: int  # 1-based: job k is released at base + (k-1)·T and due at base + k·T
    due: int  # cycle
    done: int | None  # cycle of its completion, None when it had not completed by the end


@dataclass(frozen=True)
class SetRun:
    policy: str
    base: int  # cycle of the common release
    horizon: int  # cycles after base that were judged
    jobs: int  # jobs due within the horizon
    misses: list[Miss]
    worst_response: list[int]  # per task, the longest response of a judged job (cycles)

    @property
    def missed(self) -> bool:
        return bool(self.misses)


def scenario(tasks: Sequence[SimTask], clock_hz: int) -> str:
    if not 1 <= len(tasks) <= MAX_TASKS:
        raise ValueError(f"the firmware takes 1..{MAX_TASKS} tasks, not {len(tasks)}")
    for t in tasks:
        t.check()
    rows = [f"""# A periodic task set for build/fw/taskset-<policy>.elf, written by cairn.emeralds.taskset.
board = "mps2-an385"
clock = {clock_hz}

[port.count]
dir = "in"
index = 0
deliver = [{{ at = "0s", value = {len(tasks)} }}]
"""]
    columns = (("period", 1, [t.period for t in tasks]), ("busy", 2, [t.busy for t in tasks]),
               ("level_queue", 3, [t.level | t.queue << 8 for t in tasks]))  # fmt: skip
    for name, index, values in columns:
        deliveries = ", ".join(f'{{ at = "{PARAMS_AT_US + i * PARAMS_EVERY_US}us", value = {v} }}'
                               for i, v in enumerate(values))
        rows.append(f'[port.{name}]\ndir = "in"\nindex = {index}\ndeliver = [{deliveries}]\n')
    rows.append("# Outputs: (task << 24) | job at each completion; the common release and the counter.\n"
                "[port.done]\nindex = 0\n[port.base]\nindex = 1\n[port.sync]\nindex = 2\n")
    return "\n".join(rows)


def _outputs(io_log: Path) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    with io_log.open(newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "output":
                out.setdefault(r["name"], []).append((int(r["cycle"]), int(r["value"])))
    return out


def run_set(policy: str, tasks: Sequence[SimTask], horizon: int, out_dir: Path,
            clock_hz: int = 25_000_000, label: str = "set") -> SetRun:
    """Runs the set from a common release for ``horizon`` cycles and judges every job whose
    deadline falls within it."""
    if policy not in FIRMWARE:
        raise ValueError(f"unknown policy {policy!r}: one of {', '.join(FIRMWARE)}")
    if horizon <= 0:
        raise ValueError("the horizon must be positive")
    out_dir.mkdir(parents=True, exist_ok=True)
    scen = out_dir / f"{label}-{FIRMWARE[policy]}.toml"
    scen.write_text(scenario(tasks, clock_hz))
    io_log = out_dir / f"{label}-{FIRMWARE[policy]}.csv"
    start_cycles = (PARAMS_AT_US + len(tasks) * PARAMS_EVERY_US + 4000) * clock_hz // 1_000_000
    limit_us = -(-(start_cycles + horizon + 1) * 1_000_000 // clock_hz)
    limit = limit_us * clock_hz // 1_000_000
    res = run_sim(firmware_dir() / f"{FIRMWARE[policy]}.elf", "--device", str(scen), "--io-log", str(io_log),
                  "--max-time", f"{limit_us}us", timeout=RUN_TIMEOUT_S)  # fmt: skip
    if res.status != 124:
        raise TasksetError(res.describe())
    outs = _outputs(io_log)
    if not outs.get("base") or not outs.get("sync"):
        raise TasksetError(f"{policy}: the firmware never released the set\n{res.describe()}")
    (sync_cycle, sync_value), (_, base_value) = outs["sync"][0], outs["base"][0]
    # The counter was read a few instructions before its store: the base is at most that
    # many cycles later than this, which makes the deadlines that much later (lenient).
    base = sync_cycle + ((base_value - sync_value) % 2**32)
    done: dict[tuple[int, int], int] = {}
    for cycle, value in outs.get("done", []):
        done.setdefault((value >> JOB_BITS, value & (2**JOB_BITS - 1)), cycle)
    end = base + horizon
    if end > limit:
        raise TasksetError(f"{policy}: the common release came later than planned")
    misses, jobs, worst = [], 0, [0] * len(tasks)
    for i, t in enumerate(tasks):
        k = 1
        while base + k * t.period <= end:
            due, fin = base + k * t.period, done.get((i, k))
            jobs += 1
            if fin is None or fin > due:
                misses.append(Miss(i, k, due, fin))
            if fin is not None:
                worst[i] = max(worst[i], fin - (due - t.period))
            k += 1
    return SetRun(policy=policy, base=base, horizon=horizon, jobs=jobs, misses=misses, worst_response=worst)
