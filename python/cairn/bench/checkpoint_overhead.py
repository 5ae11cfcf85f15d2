"""What checkpoint migration costs a computation when nothing moves (docs/checkpoint.md, "Overheads").

``measure()`` runs build/fw/checkpoint-overhead.elf alone on one module: the checkpoint
app's computation with each migration point bracketed by two trace-port words (POINT_IN,
POINT_OUT) and a load report to the master every 4th point. An empty bracket written first
(CALIBRATE, POINT_OUT) gives the cycles of the bracket itself, taken off every reading.
It returns, in core cycles (the same at any clock: nothing here waits on a timer):

- ``point_cycles``: a migration point with no request pending and no report due (the
  paper's checkpoint call, Table 1);
- ``report_cycles``: a point whose load report is due: it posts the report, and the master,
  on the same module and of higher priority, runs its policy at once and finds nothing to
  move (Cairn's counterpart of the paper's slave-daemon activation, Table 2; Cairn's slave
  daemons are woken only by a message, so they have no idle activations);
- ``master_cycles``: the master's own handler within that, from its start word to its end.

Every figure is exact; the reports vary by a few cycles with the operands of the software
64-bit division, so they come as min and max with the mean.
"""

from __future__ import annotations

from statistics import mean
from typing import Any

from cairn.experiment import run as cairn_run
from cairn.net_trace import parse
from cairn.paths import firmware_dir

ELF = "checkpoint-overhead.elf"
CLOCK_HZ = 32_000_000
POINTS_PER_REPORT = 4
MASTER_TASK = 1
EV_START, EV_END = 0x02, 0x03
POINT_IN, POINT_OUT, CALIBRATE = 0x90, 0x91, 0x92


class OverheadError(RuntimeError):
    """The firmware did not run to the end or its trace lacks the brackets."""


def measure(clock_hz: int = CLOCK_HZ) -> dict[str, Any]:
    r = cairn_run(firmware_dir() / ELF, outputs=("trace",), options=("--clock", str(clock_hz)), timeout=300)
    trace = r.files["trace"]
    if r.status != 0 or not trace.exists():
        raise OverheadError(f"{ELF}: {r.describe_failure()}")
    return brackets(trace.read_text(), clock_hz)


def brackets(trace_json: str, clock_hz: int) -> dict[str, Any]:
    """The bracketed cycles of the trace (see the module's docstring)."""
    ps_per_cycle = 10**12 / clock_hz
    opened: tuple[int, int] | None = None
    calib: int | None = None
    plain: list[int] = []
    report: list[int] = []
    master: list[int] = []
    started: int | None = None
    in_master: list[int] = []
    for w in parse(trace_json).words:
        if w.code in (POINT_IN, CALIBRATE):
            opened, in_master = (w.code, w.ps), []
        elif w.code == EV_START and w.a == MASTER_TASK and opened:
            started = w.ps
        elif w.code == EV_END and w.a == MASTER_TASK and opened and started is not None:
            in_master.append(w.ps - started)
            started = None
        elif w.code == POINT_OUT and opened:
            cycles = round((w.ps - opened[1]) / ps_per_cycle)
            if opened[0] == CALIBRATE:
                calib = cycles
            elif in_master:
                report.append(cycles)
                master.append(round(sum(in_master) / ps_per_cycle))
            else:
                plain.append(cycles)
            opened = None
    if calib is None or not plain or not report:
        raise OverheadError(f"{ELF}: trace lacks the calibration or a point of each kind "
                            f"({len(plain)} plain, {len(report)} with a report)")
    plain = [c - calib for c in plain]
    report = [c - calib for c in report]
    return {
        "clock_hz": clock_hz,
        "bracket_cycles": calib,
        "points": len(plain),
        "reports": len(report),
        "point_cycles": max(plain),
        "point_cycles_min": min(plain),
        "report_cycles": round(mean(report)),
        "report_cycles_min": min(report),
        "report_cycles_max": max(report),
        "master_cycles": round(mean(master)),
    }


def slow_down_percent(cycles: float, hz: int, calls_per_ms: float) -> float:
    """Share of a task's time taken by `calls_per_ms` calls of `cycles` each (Table 1)."""
    return 100.0 * cycles / hz * calls_per_ms * 1000.0


def wasted_percent(cycles: float, hz: int, per_slice: float, slice_ms: float) -> float:
    """Share of the CPU taken by `per_slice` activations of `cycles` each per time slice (Table 2)."""
    return 100.0 * cycles / hz * per_slice / (slice_ms / 1000.0)


if __name__ == "__main__":
    import json
    import sys

    try:
        print(json.dumps(measure(), indent=2))
    except OverheadError as e:
        print(f"checkpoint_overhead: {e}", file=sys.stderr)
        sys.exit(1)
