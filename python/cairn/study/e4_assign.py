"""The CoMOS appendix's optimal assignment (its Figure 1) checked by simulation.

Two module kinds, p (fast) and q (slow), as on E4's five-module device. On cairn-sim we
measure each kind's throughput N (instructions per second), energy throughput M
(instructions per joule, active energy), idle power P_I (WFI), standby power P_S (WFI with
SLEEPDEEP) and transition energy E_W (the profile's wake-up energy), then draw the
appendix's lines a-e and run build/fw/assign-job.elf, a job of L instructions with
deadline D, on both kinds, idle and standby, at points of each region: the measured cheaper
processor must be the one the model picks from the measured parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cairn.experiment import run as cairn_run
from cairn.paths import firmware_dir
from cairn.scenario import Scenario

# Module kinds as (clock, energy profile). DEVICE: E4's five-module device, where the fast
# module is the less energy-efficient one (M_p < M_q), against the appendix's premise.
# PREMISE: a pair from the same two profiles that meets it (N_p > N_q and M_p > M_q): the
# STM32L053 at 32 MHz pays a flash wait state per access.
Pair = dict[str, tuple[str, str]]
DEVICE: Pair = {"p": ("48MHz", "nrf51822"), "q": ("8MHz", "stm32l053")}
PREMISE: Pair = {"p": ("24MHz", "nrf51822"), "q": ("32MHz", "stm32l053")}
INSTR_PER_ITER = 4  # kernel/apps/assign_job/job.c's loop


class AssignError(Exception):
    pass


@dataclass(frozen=True)
class Job:
    met: bool
    instructions: int
    energy_j: float
    stats: dict[str, Any]


def run_job(kind: tuple[str, str], instructions: int, deadline_s: float, standby: bool) -> Job:
    clock, profile = kind
    elf = firmware_dir() / "assign-job.elf"
    if not elf.exists():
        raise AssignError(f"{elf} is missing (make build)")
    d_ns = max(1, round(deadline_s * 1e9))
    scenario = f'''board = "mps2-an385"
clock = "{clock}"
firmware = "{elf}"
[energy]
profile = "{profile}"
voltage_v = 3.0
[[stimulus]]
name = "deadline"
kind = "periodic"
period = "{d_ns}ns"
start = "{d_ns}ns"
count = 1
line = 0
[port.iterations]
dir = "in"
index = 0
deliver = [{{ at = "0ns", value = {max(1, instructions // INSTR_PER_ITER)} }}]
[port.standby]
dir = "in"
index = 1
deliver = [{{ at = "0ns", value = {1 if standby else 0} }}]
'''
    res = cairn_run(Scenario.parse(scenario), outputs=("stats",), timeout=600)
    if res.status not in (0, 1):
        raise AssignError(f"{kind} L={instructions} D={deadline_s}: {res.describe_failure()}")
    stats = res.stats_json
    return Job(res.status == 0, int(stats["instructions"]), float(stats["energy_joules"]["total"]), stats)


@dataclass(frozen=True)
class Kind:
    n: float    # instructions per second
    m: float    # instructions per joule (active)
    p_i: float  # idle power, W
    p_s: float  # standby power, W
    e_w: float  # one standby transition, J

    @property
    def t_be(self) -> float:
        """Break-even idle time (the appendix's T_be with T_W taken as 0)."""
        return self.e_w / (self.p_i - self.p_s) if self.p_i > self.p_s else math.inf

    def energy(self, length: float, deadline: float) -> float | None:
        """The model's energy for L instructions by D: work, then the cheaper of idle and standby."""
        busy = length / self.n
        if busy > deadline:
            return None
        rest = deadline - busy
        return length / self.m + min(self.p_i * rest, self.e_w + self.p_s * rest)


def measure_kind(kind: tuple[str, str]) -> Kind:
    work = run_job(kind, 2_000_000, 2.0, False)
    idle = run_job(kind, 40, 0.5, False)
    standby = run_job(kind, 40, 0.5, True)
    clock = float(work.stats["clock_hz"])
    active_s = work.stats["active_cycles"] / clock
    by_state = work.stats["energy_joules"]["by_state"]
    n = work.instructions / active_s
    m = work.instructions / by_state["active"]
    idle_s = idle.stats["sleep_cycles"] / clock
    p_i = idle.stats["energy_joules"]["by_state"]["sleep"] / idle_s
    sb = standby.stats["energy_joules"]["by_state"]
    sb_s = standby.stats["sleep_cycles"] / clock
    p_s = sb["deep_sleep"] / sb_s
    return Kind(n=n, m=m, p_i=p_i, p_s=p_s, e_w=sb["wakeup"])


def lines(p: Kind, q: Kind) -> dict[str, tuple[float, float, float]]:
    """The appendix's lines as D = slope * L + intercept (a-d) and e as L = value: (slope,
    intercept, L) with L nan for a-d."""
    out = {
        "a": (1 / p.n, 0.0, math.nan),
        "b": (1 / q.n, 0.0, math.nan),
        "c": (1 / p.n, p.t_be, math.nan),
        "d": (1 / (q.m * p.p_i) - 1 / (p.m * p.p_i) + 1 / p.n, 0.0, math.nan),
    }
    inv = 1 / q.m - 1 / p.m
    out["e"] = (math.nan, math.nan, p.e_w / inv if inv != 0 else math.inf)
    return out


def choose(p: Kind, q: Kind, length: float, deadline: float) -> str:
    ep, eq = p.energy(length, deadline), q.energy(length, deadline)
    if ep is None and eq is None:
        return "none"
    if eq is None:
        return "p"
    if ep is None:
        return "q"
    return "p" if ep < eq else "q"


@dataclass(frozen=True)
class Point:
    length: int
    deadline: float
    region: str
    predicted: str
    measured: str
    energy_p: float | None
    energy_q: float | None


def region(p: Kind, q: Kind, length: float, deadline: float) -> str:
    """Where (L, D) lies among the lines, and what the appendix assigns there."""
    ln = lines(p, q)
    a, b, c, d = (ln[k][0] * length + ln[k][1] for k in "abcd")
    if deadline < a:
        return "below a: none"
    if deadline < b:
        return "a-b: p"
    if p.m <= q.m:
        return "above b: no region (the premise M_p > M_q fails)"
    if deadline < c:
        return "b-c, below d: p" if deadline < d else "b-c, above d: q"
    e = ln["e"][2]
    return "above c, left of e: q" if 0 < length < e else "above c, right of e: p"


def points(p: Kind, q: Kind, lengths: tuple[int, ...]) -> list[tuple[int, float]]:
    """(L, D) points: between a and b, between each pair of the lines above b (c and d, where
    they lie above it) and above them all."""
    out: list[tuple[int, float]] = []
    ln = lines(p, q)
    for length in lengths:
        a, b = length / p.n, length / q.n
        bounds = sorted(v for v in (ln["c"][0] * length + ln["c"][1], ln["d"][0] * length) if v > 1.05 * b)
        edges = [a, b, *bounds]
        out += [(length, math.sqrt(lo * hi)) for lo, hi in zip(edges, edges[1:])]
        out.append((length, 4 * edges[-1]))
    return out


def overhead(kind: tuple[str, str]) -> int:
    """Instructions the job runs besides its loop (start-up, reading the job, sleeping)."""
    iterations = 10
    return run_job(kind, iterations * INSTR_PER_ITER, 0.001, False).instructions - iterations * INSTR_PER_ITER


def check(pair: Pair, loops: tuple[int, ...]) -> tuple[Kind, Kind, list[Point]]:
    """Measures the pair, then runs jobs whose loops run `loops` instructions: L counts the
    job's start-up as well (the same firmware on both kinds)."""
    p, q = measure_kind(pair["p"]), measure_kind(pair["q"])
    extra = overhead(pair["p"])
    result = []
    for length, deadline in points(p, q, tuple(n + extra for n in loops)):
        energies: dict[str, float | None] = {}
        for kind in ("p", "q"):
            runs = [run_job(pair[kind], length - extra, deadline, sb) for sb in (False, True)]
            met = [r.energy_j for r in runs if r.met]
            energies[kind] = min(met) if met else None
        ep, eq = energies["p"], energies["q"]
        measured = ("none" if ep is None and eq is None else "q" if ep is None else "p" if eq is None
                    else "p" if ep < eq else "q")
        result.append(Point(length, deadline, region(p, q, length, deadline), choose(p, q, length, deadline),
                            measured, ep, eq))
    return p, q, result
