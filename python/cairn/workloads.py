"""The seeds' abstract workloads on cairn-sim (docs/models.md, "Workloads"): write the
scenario of one point, run the workload's firmware under a model on it, and compute the
paper's metrics from what the simulator measured. The firmware is the same for every point.

- the tree-network node of "A performance analysis of MANTIS and TinyOS" (section IV.A),
  build/fw/tree-<model>.elf, for a node level n and a sensing length l_s;
- SimBed's task sets (sections 2.2 and 3), build/fw/rtos-<model>.elf, for a number of
  P-IPC or FIR tasks, a period and the background load.

    python -m cairn.workloads tree --model all --n 3 --ls-ms 75
    python -m cairn.workloads tree --n 3 --ls-ms 75 --write experiments/workloads/tree.toml
    python -m cairn.workloads rtos --tasks 4 --period-ms 2 --kind fir --background
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .paths import firmware_dir
from .runners import run_sim

MODELS = ("tinyos", "mantis", "nos", "coop", "limit", "cairn")
RTOS_MODELS = MODELS


@dataclass(frozen=True)
class TreeNode:
    """One point of the paper's Table I. Defaults: the DSYS25's 4 MHz, l_p = 4000 cycles,
    f_s = 1/s."""

    n: int
    ls_ms: float
    clock_hz: int = 4_000_000
    lp_cycles: int = 4000
    fs_hz: float = 1.0
    senses: int = 20

    @property
    def ls_cycles(self) -> int:
        return round(self.ls_ms * self.clock_hz / 1000)

    @property
    def rate_hz(self) -> float:
        """Equation (1): lambda_n = (2^n - 1) f_s."""
        return float(2**self.n - 1) * self.fs_hz

    def check(self) -> None:
        if not 1 <= self.n <= 16:
            raise ValueError(f"n: {self.n} is not a tree level from 1 to 16")
        if self.ls_ms <= 0 or self.ls_cycles < 1:
            raise ValueError(f"l_s: {self.ls_ms} ms is not a positive length")
        if self.clock_hz < 1000 or self.clock_hz % 1000:
            raise ValueError(f"clock: {self.clock_hz} Hz is not a whole number of kHz")
        if self.lp_cycles < 1 or self.fs_hz <= 0 or self.senses < 1:
            raise ValueError("l_p, f_s and the number of sensing jobs must be positive")
        if self.ls_cycles >= 2**24 or self.lp_cycles >= 2**24:
            raise ValueError("l_s and l_p must be below 2^24 cycles")

    def scenario(self) -> str:
        """The scenario file's text (experiments/workloads/tree.toml is n=3, l_s=75 ms)."""
        self.check()
        return f"""# The tree-network node of "A performance analysis of MANTIS and TinyOS" (section IV.A,
# Table I) for build/fw/tree-<model>.elf, <model> one of {", ".join(MODELS)}
# (docs/models.md, "Workloads"): a node at level n = {self.n} with a sensing task of
# l_s = {self.ls_ms:g} ms at {self.clock_hz / 1e6:g} MHz. Written by
# `python -m cairn.workloads tree --n {self.n} --ls-ms {self.ls_ms:g} --write FILE`; run with
#
#   build/bin/cairn-sim run --device FILE --seed 1 --stats out/tree.json build/fw/tree-tinyos.elf
board = "mps2-an385"
clock = {self.clock_hz}

# Sensing: every t_s = 1 / f_s.
[[stimulus]]
name = "sense"
kind = "periodic"
period = "{1 / self.fs_hz:g}s"
line = 1

# Packets: Poisson, lambda_n = (2^n - 1) f_s (equation 1).
[[stimulus]]
name = "packet"
kind = "poisson"
rate_hz = {self.rate_hz!r}
line = 0

# The parameter block, delivered before the first instruction.
[port.ls_cycles]      # l_s
dir = "in"
index = 0
deliver = [{{ at = "0s", value = {self.ls_cycles} }}]
[port.lp_cycles]      # l_p
dir = "in"
index = 1
deliver = [{{ at = "0s", value = {self.lp_cycles} }}]
[port.senses]         # the run ends after this many sensing jobs
dir = "in"
index = 2
deliver = [{{ at = "0s", value = {self.senses} }}]
[port.tick_cycles]    # cycles per model tick (1 ms)
dir = "in"
index = 3
deliver = [{{ at = "0s", value = {self.clock_hz // 1000} }}]

# What cairn-sim measures: each completion writes its sequence number.
[port.forwarded]
index = 0
[port.sensed]
index = 1

[io]
[[io.delay]]
name = "packet"       # the paper's packet processing time e = e_stop - e_start
stimulus = "packet"
response = "forwarded"
match = "sequence"
[[io.delay]]
name = "sense"
stimulus = "sense"
response = "sensed"
match = "sequence"
"""


@dataclass(frozen=True)
class TreeResult:
    """The paper's metrics (sections VI.C and VII.C), times in ms, idle figures in %."""

    model: str
    packets: int  # packets the node received (the firmware's count: taken or overflowed)
    forwarded: int
    sensed: int
    e_mean_ms: float  # E_t, equation (2)
    e_stddev_ms: float
    waited: int  # forwarded packets that arrived during a sensing job and finished after it
    idle_percent: float  # I_t, equation (3)
    idle_max_percent: float  # I_max, equation (4), from the work actually done
    overhead_percent: float  # I_o, equation (5)
    idle_periods: int
    idle_mean_ms: float  # I_p, equation (6)
    idle_stddev_ms: float

    def line(self) -> str:
        return (
            f"{self.model:7} E_t {self.e_mean_ms:8.3f} ms (sd {self.e_stddev_ms:7.3f})  "
            f"waited {self.waited:3}  I_t {self.idle_percent:7.3f}% of I_max {self.idle_max_percent:7.3f}% "
            f"(overhead {self.overhead_percent:6.3f})  I_p {self.idle_mean_ms:8.3f} ms (sd {self.idle_stddev_ms:8.3f})  "
            f"packets {self.forwarded}/{self.packets}"
        )


class RunError(RuntimeError):
    pass


#: The line tree.c prints at the end of the run.
_FIRMWARE_COUNTS = re.compile(r"sensed=(?P<sensed>\d+) received=(?P<received>\d+) forwarded=(?P<forwarded>\d+) "
                              r"overflow=(?P<overflow>\d+)")  # fmt: skip


def _events(io_log: Path, name: str, kind: str) -> dict[int, int]:
    """Sequence number -> cycle of the io-log rows of one stimulus or output port."""
    with io_log.open(newline="") as f:
        return {int(r["value"]): int(r["cycle"]) for r in csv.DictReader(f) if r["kind"] == kind and r["name"] == name}


def _stddev(xs: list[float]) -> float:
    if not xs:
        return 0.0
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def run_tree(model: str, node: TreeNode, out_dir: Path, seed: int = 1) -> TreeResult:
    """Runs build/fw/tree-<model>.elf on node's scenario; raises RunError if it fails."""
    scenario = out_dir / f"tree-n{node.n}-ls{node.ls_ms:g}.toml"
    scenario.write_text(node.scenario())
    stats_file, io_log = out_dir / f"{model}.json", out_dir / f"{model}.csv"
    elf = firmware_dir() / f"tree-{model}.elf"
    # Bounded in simulated time: the run ends one sensing period after the last job.
    limit_s = (node.senses + 3) / node.fs_hz
    res = run_sim(elf, "--device", str(scenario), "--seed", str(seed), "--stats", str(stats_file),
                  "--io-log", str(io_log), "--max-time", f"{limit_s:g}s", timeout=300)  # fmt: skip
    if res.status != 0:
        raise RunError(res.describe())
    stats = json.loads(stats_file.read_text())
    per_ms = node.clock_hz / 1000
    fired, done = _events(io_log, "packet", "stimulus"), _events(io_log, "forwarded", "output")
    sense_fired, sense_done = _events(io_log, "sense", "stimulus"), _events(io_log, "sensed", "output")
    counts = _FIRMWARE_COUNTS.search(res.text())
    if counts is None:
        raise RunError(res.describe())
    e = [(done[k] - fired[k]) / per_ms for k in done]
    waited = sum(
        1
        for k, t in done.items()
        for j, start in sense_fired.items()
        if j in sense_done and start <= fired[k] < sense_done[j] < t
    )
    work = len(sense_done) * node.ls_cycles + len(done) * node.lp_cycles
    idle_max = 100.0 * (1.0 - work / stats["cycles"])
    idle = stats["idle"]
    return TreeResult(
        model=model,
        packets=int(counts["received"]) + int(counts["overflow"]),
        forwarded=len(done),
        sensed=len(sense_done),
        e_mean_ms=sum(e) / len(e) if e else 0.0,
        e_stddev_ms=_stddev(e),
        waited=waited,
        idle_percent=idle["percent"],
        idle_max_percent=idle_max,
        overhead_percent=idle_max - idle["percent"],
        idle_periods=idle["periods"],
        idle_mean_ms=idle["mean_s"] * 1e3,
        idle_stddev_ms=idle["stddev_s"] * 1e3,
    )


@dataclass(frozen=True)
class TaskSet:
    """One point of SimBed's section 3: `tasks` periodic tasks of one kind and period, with
    or without the background load (AP-IPC every 100 us with probability 0.01, a 32 ms
    control loop). Defaults: the M-CORE's 20 MHz, 512 ms of run."""

    tasks: int
    period_ms: int
    kind: str = "pipc"
    background: bool = False
    clock_hz: int = 20_000_000
    run_ms: int = 512
    energy: bool = False  # an STM32L053-class profile and SimBed's categories
    doze: bool = True  # the idle loop sleeps (NOS honours it; SimBed, section 3.4)

    def check(self) -> None:
        if not 1 <= self.tasks <= 8:
            raise ValueError(f"tasks: {self.tasks} is not 1 to 8")
        if self.period_ms < 1 or self.run_ms < self.period_ms:
            raise ValueError(f"period: {self.period_ms} ms is not 1 ms to the run's {self.run_ms} ms")
        if self.kind not in ("pipc", "fir"):
            raise ValueError(f"kind: {self.kind!r} is not pipc or fir")
        if self.clock_hz < 1000 or self.clock_hz % 1000:
            raise ValueError(f"clock: {self.clock_hz} Hz is not a whole number of kHz")

    def scenario(self) -> str:
        self.check()
        ports = "".join(
            f"""[port.task{k}]
index = {k}
expected_period = "{self.period_ms}ms"
"""
            for k in range(self.tasks)
        )
        background = """
# AP-IPC: an interrupt every 100 us with probability 0.01 (SimBed, section 3).
[[stimulus]]
name = "apipc"
kind = "geometric"
interval = "100us"
probability = 0.01
line = 2

[pin.apipc_done]
index = 0
edge = "both"

[io]
[[io.delay]]
name = "apipc"
stimulus = "apipc"
response = "apipc_done"
match = "fifo"
""" if self.background else ""
        params = [
            ("tasks", self.tasks),
            ("period_ticks", self.period_ms),
            ("kind", 0 if self.kind == "pipc" else 1),
            ("tick_cycles", self.clock_hz // 1000),
            ("cl_period_ticks", 32 if self.background else 0),
            ("run_ticks", self.run_ms),
            ("doze", 1 if self.doze else 0),
        ]
        block = "".join(
            f"""[port.{name}]
dir = "in"
index = {i}
deliver = [{{ at = "0s", value = {value} }}]
"""
            for i, (name, value) in enumerate(params)
        )
        energy = """
# Energy by SimBed's categories (section 2.3): the jobs are user code; what the models and
# the workload's glue add is kernel; exception handlers and sleep keep their defaults.
[energy]
profile = "stm32l053"

[categories]
handler = ["*_handler"]
user = ["rtos_task", "fir", "rtos_control_loop", "rtos_apipc_respond"]
kernel = ["file:*/models/*"]
""" if self.energy else ""
        return f"""# SimBed's task set (sections 2.2 and 3) for build/fw/rtos-<model>.elf: {self.tasks}
# {self.kind} task(s) every {self.period_ms} ms, background load {"AP-IPC + CL" if self.background else "none"}
# (docs/models.md, "Workloads"). Written by python -m cairn.workloads rtos.
board = "mps2-an385"
clock = {self.clock_hz}

# The parameter block, delivered before the first instruction.
{block}
# Each task's output: jitter against its period.
{ports}{background}{energy}"""


@dataclass(frozen=True)
class TaskSetResult:
    """SimBed's measurements (section 2.3): jitter of the tasks' outputs, AP-IPC delay."""

    model: str
    outputs: int
    jitter_min_ms: float  # signed: negative is early
    jitter_max_ms: float
    apipc: int  # interrupts
    apipc_answered: int
    delay_mean_ms: float
    delay_max_ms: float
    idle_percent: float
    energy_uj: dict[str, float]  # by category; empty without an energy profile

    def line(self) -> str:
        energy = " ".join(f"{k} {v:.1f}" for k, v in sorted(self.energy_uj.items()))
        return (
            f"{self.model:7} {'uJ ' + energy + '  ' if energy else ''}jitter {self.jitter_min_ms:+8.3f} .. {self.jitter_max_ms:+8.3f} ms over {self.outputs} outputs  "
            f"AP-IPC delay mean {self.delay_mean_ms:7.3f} max {self.delay_max_ms:7.3f} ms "
            f"({self.apipc_answered}/{self.apipc})  idle {self.idle_percent:7.3f}%"
        )


def run_task_set(model: str, ts: TaskSet, out_dir: Path, seed: int = 1) -> TaskSetResult:
    """Runs build/fw/rtos-<model>.elf on ts's scenario; raises RunError if it fails."""
    scenario = out_dir / f"rtos-{ts.tasks}x{ts.kind}-{ts.period_ms}ms{'-bg' if ts.background else ''}.toml"
    scenario.write_text(ts.scenario())
    stats_file = out_dir / f"rtos-{model}.json"
    # Bounded in simulated time: a model that falls behind its releases ends with status 124.
    res = run_sim(firmware_dir() / f"rtos-{model}.elf", "--device", str(scenario), "--seed", str(seed),
                  "--stats", str(stats_file), "--max-time", f"{4 * ts.run_ms}ms", timeout=300)  # fmt: skip
    if res.status != 0:
        raise RunError(res.describe())
    stats = json.loads(stats_file.read_text())
    io = stats.get("io", {})
    entries = [io["jitter"][f"task{k}"] for k in range(ts.tasks)]
    jit = [j for j in entries if j["events"] >= 2]  # an interval needs two outputs
    delay = io.get("delay", {}).get("apipc")
    return TaskSetResult(
        model=model,
        outputs=sum(j["events"] for j in entries),
        jitter_min_ms=min((j["jitter"]["min_s"] for j in jit), default=0.0) * 1e3,
        jitter_max_ms=max((j["jitter"]["max_s"] for j in jit), default=0.0) * 1e3,
        apipc=delay["stimuli"] if delay else 0,
        apipc_answered=delay["answered"] if delay else 0,
        delay_mean_ms=delay["delay"]["mean_s"] * 1e3 if delay and delay["answered"] else 0.0,
        delay_max_ms=delay["delay"]["max_s"] * 1e3 if delay and delay["answered"] else 0.0,
        idle_percent=stats["idle"]["percent"],
        energy_uj={k: v * 1e6 for k, v in stats.get("energy_joules", {}).get("by_category", {}).items()},
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.workloads", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="workload", required=True)
    tree = sub.add_parser("tree", help="the MANTIS/TinyOS paper's tree-network node")
    tree.add_argument("--model", default="all", choices=(*MODELS, "all"))
    tree.add_argument("--n", type=int, required=True, help="tree level (lambda_n = (2^n - 1) f_s)")
    tree.add_argument("--ls-ms", type=float, required=True, help="sensing task length l_s in ms")
    tree.add_argument("--senses", type=int, default=20, help="sensing jobs (seconds at f_s = 1/s)")
    rtos = sub.add_parser("rtos", help="SimBed's periodic task sets and background load")
    rtos.add_argument("--model", default="all", choices=(*RTOS_MODELS, "all"))
    rtos.add_argument("--tasks", type=int, required=True, help="1 to 8 tasks")
    rtos.add_argument("--period-ms", type=int, required=True)
    rtos.add_argument("--kind", default="pipc", help="pipc or fir")
    rtos.add_argument("--background", action="store_true", help="AP-IPC and the control loop")
    rtos.add_argument("--energy", action="store_true", help="energy by category (STM32L053 profile)")
    rtos.add_argument("--no-doze", action="store_true", help="NOS polls instead of sleeping when idle")
    for p in (tree, rtos):
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--write", type=Path, help="only write the scenario file")
    args = ap.parse_args(argv)
    point: TreeNode | TaskSet
    models: tuple[str, ...]
    if args.workload == "tree":
        point, models = TreeNode(n=args.n, ls_ms=args.ls_ms, senses=args.senses), MODELS
    else:
        point = TaskSet(tasks=args.tasks, period_ms=args.period_ms, kind=args.kind, background=args.background,
                        energy=args.energy, doze=not args.no_doze)  # fmt: skip
        models = RTOS_MODELS
    try:
        point.check()
    except ValueError as err:
        print(f"cairn.workloads: {err}", file=sys.stderr)
        return 2
    if args.write is not None:
        args.write.write_text(point.scenario())
        return 0
    with tempfile.TemporaryDirectory(prefix="cairn-workload-") as tmp:
        for model in models if args.model == "all" else (args.model,):
            try:
                if isinstance(point, TreeNode):
                    print(run_tree(model, point, Path(tmp), args.seed).line())
                else:
                    print(run_task_set(model, point, Path(tmp), args.seed).line())
            except RunError as err:
                print(f"cairn.workloads: {args.workload}-{model} failed: {str(err).splitlines()[1]}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
