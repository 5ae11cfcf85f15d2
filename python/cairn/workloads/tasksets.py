"""SimBed's task sets (sections 2.2 and 3): the scenario of a number of P-IPC, FIR, UP,
DOWN, ADPCM or G721 tasks, a period and the background load, a run of build/fw/rtos-<model>.elf and SimBed's
measurements from what cairn-sim measured (docs/models.md, "Workloads")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import firmware_dir
from ..experiment import run as cairn_run
from .common import RunError

if TYPE_CHECKING:
    import pandas as pd

#: The task kinds, in the firmware's numbering (IN[2]); UP and DOWN also take a ratio.
KINDS = ("pipc", "fir", "up", "down", "adpcm", "g721")
SAMPLING = ("up", "down")


@dataclass(frozen=True)
class TaskSet:
    """One point of SimBed's section 3: `tasks` periodic tasks of one kind and period, with
    or without the background load (AP-IPC every 100 us with probability 0.01, a 32 ms
    control loop). Defaults: the M-CORE's 20 MHz, 512 ms of run. UP and DOWN run their two
    jobs at rates `ratio` (2, 4 or 8) apart, `period_ms` the faster job's period: UP outputs
    every period, DOWN every `ratio` periods."""

    tasks: int
    period_ms: int
    kind: str = "pipc"
    background: bool = False
    clock_hz: int = 20_000_000
    run_ms: int = 512
    energy: bool = False  # an STM32L053-class profile and SimBed's categories
    doze: bool = True  # the idle loop sleeps (NOS honours it; SimBed, section 3.4)
    ratio: int = 1  # UP and DOWN: 2, 4 or 8

    @property
    def output_period_ms(self) -> int:
        """The period of each task's output job."""
        return self.period_ms * self.ratio if self.kind == "down" else self.period_ms

    @property
    def label(self) -> str:
        """The kind as SimBed names the point: UP 8/1 is one sample per 8 ms, an output every 1 ms."""
        if self.kind in SAMPLING:
            return f"{self.kind.upper()} {self.period_ms * self.ratio}/{self.period_ms}"
        return self.kind

    def check(self) -> None:
        if not 1 <= self.tasks <= 8:
            raise ValueError(f"tasks: {self.tasks} is not 1 to 8")
        if self.period_ms < 1 or self.run_ms < self.period_ms:
            raise ValueError(f"period: {self.period_ms} ms is not 1 ms to the run's {self.run_ms} ms")
        if self.kind not in KINDS:
            raise ValueError(f"kind: {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind in SAMPLING and self.ratio not in (2, 4, 8):
            raise ValueError(f"ratio: {self.ratio} is not 2, 4 or 8 (UP and DOWN)")
        if self.kind not in SAMPLING and self.ratio != 1:
            raise ValueError(f"ratio: {self.kind} runs both jobs at one rate (ratio 1), not {self.ratio}")
        if self.clock_hz < 1000 or self.clock_hz % 1000:
            raise ValueError(f"clock: {self.clock_hz} Hz is not a whole number of kHz")

    def scenario(self) -> str:
        self.check()
        ports = "".join(
            f"""[port.task{k}]
index = {k}
expected_period = "{self.output_period_ms}ms"
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
            ("kind", KINDS.index(self.kind) + (self.ratio << 8 if self.kind in SAMPLING else 0)),
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
user = ["ipc_*_job", "fir", "rtos_control_loop", "rtos_apipc_respond", "rtos_signal", "ima_*", "g721_*"]
kernel = ["file:*/models/*"]
""" if self.energy else ""
        return f"""# SimBed's task set (sections 2.2 and 3) for build/fw/rtos-<model>.elf: {self.tasks}
# {self.label} task(s) every {self.period_ms} ms, background load {"AP-IPC + CL" if self.background else "none"}
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
    values: tuple[tuple[int, ...], ...] = ()  # per task, its outputs' values (run_task_set's `values`)

    def line(self) -> str:
        energy = " ".join(f"{k} {v:.1f}" for k, v in sorted(self.energy_uj.items()))
        return (
            f"{self.model:7} {'uJ ' + energy + '  ' if energy else ''}jitter {self.jitter_min_ms:+8.3f} .. {self.jitter_max_ms:+8.3f} ms over {self.outputs} outputs  "
            f"AP-IPC delay mean {self.delay_mean_ms:7.3f} max {self.delay_max_ms:7.3f} ms "
            f"({self.apipc_answered}/{self.apipc})  idle {self.idle_percent:7.3f}%"
        )


def run_task_set(model: str, ts: TaskSet, out_dir: Path, seed: int = 1, values: bool = False) -> TaskSetResult:
    """Runs build/fw/rtos-<model>.elf on ts's scenario; raises RunError if it fails. With
    `values`, the result keeps what each task wrote to its output port, in order."""
    ratio = f"-r{ts.ratio}" if ts.ratio > 1 else ""
    scenario = out_dir / f"rtos-{ts.tasks}x{ts.kind}{ratio}-{ts.period_ms}ms{'-bg' if ts.background else ''}.toml"
    scenario.write_text(ts.scenario())
    outputs = ("stats", "io_log") if values else ("stats",)
    # Bounded in simulated time: a model that falls behind its releases ends with status 124.
    res = cairn_run(scenario, outputs=outputs, seed=seed, max_time=f"{4 * ts.run_ms}ms",
                    firmware=firmware_dir() / f"rtos-{model}.elf", out_dir=out_dir / f"rtos-{model}", timeout=300)
    if res.status != 0:
        raise RunError(res.describe_failure())
    stats = res.stats_json
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
        values=_port_values(res.io, ts.tasks) if values else (),
    )


def _port_values(log: "pd.DataFrame", tasks: int) -> tuple[tuple[int, ...], ...]:
    """Each task's output words in order, read as signed 32-bit values."""
    out = log[log["kind"] == "output"]
    signed = (int(v) - (1 << 32) if int(v) >= 1 << 31 else int(v) for v in out["value"])
    names = list(out["name"])
    values = list(signed)
    return tuple(tuple(v for n, v in zip(names, values) if n == f"task{k}") for k in range(tasks))
