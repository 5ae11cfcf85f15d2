"""The tree-network node of "A performance analysis of MANTIS and TinyOS" (section IV.A):
its scenario for a node level n and a sensing length l_s, a run of build/fw/tree-<model>.elf
and the paper's metrics from what cairn-sim measured (docs/models.md, "Workloads")."""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..paths import firmware_dir
from ..experiment import run as cairn_run
from .common import MODELS, RunError


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
    elf = firmware_dir() / f"tree-{model}.elf"
    # Bounded in simulated time: the run ends one sensing period after the last job.
    limit_s = (node.senses + 3) / node.fs_hz
    res = cairn_run(scenario, outputs=("stats", "io_log"), seed=seed, max_time=f"{limit_s:g}s", firmware=elf,
                    out_dir=out_dir / f"tree-{model}", timeout=300)
    if res.status != 0:
        raise RunError(res.describe_failure())
    stats = res.stats_json
    io_log = res.files["io_log"]
    per_ms = node.clock_hz / 1000
    fired, done = _events(io_log, "packet", "stimulus"), _events(io_log, "forwarded", "output")
    sense_fired, sense_done = _events(io_log, "sense", "stimulus"), _events(io_log, "sensed", "output")
    counts = _FIRMWARE_COUNTS.search(res.console)
    if counts is None:
        raise RunError(f"no packet counts in what the firmware printed: {res.console[-300:]}")
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
