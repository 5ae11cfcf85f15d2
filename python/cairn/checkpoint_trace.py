"""Checkpoint migration, read from a device's ``cairn-sim run --device ... --trace`` file.

The middleware writes one kernel trace word per phase (docs/checkpoint.md, "Trace words"):
request (0x30), suspend at the migration point (0x31), checkpoint sent (0x32), received
(0x33), restarted (0x34), confirmed (0x35), resumed (0x36), stay (0x37), dropped (0x38).
The simulator stamps each with the device's time, so the migration cost as the paper
defines it (from the migration point to the restart on the destination) is exact here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cairn
from cairn import net_trace

REQUEST, SUSPEND, SENT, RECEIVED, RESTART, CONFIRM, RESUME, STAY, ERR = range(0x30, 0x39)
NAMES = {REQUEST: "request", SUSPEND: "suspend", SENT: "sent", RECEIVED: "received",
         RESTART: "restart", CONFIRM: "confirm", RESUME: "resume", STAY: "stay", ERR: "err"}


@dataclass(frozen=True)
class Phase:
    pid: int
    ps: int
    name: str
    a: int
    b: int


def phases(trace_json: str) -> list[Phase]:
    """Every checkpoint trace word of the device, in time order."""
    tr = net_trace.parse(trace_json)
    return [Phase(w.pid, w.ps, NAMES[w.code], w.a, w.b) for w in tr.words if w.code in NAMES]


@dataclass
class DeviceRun:
    returncode: int
    lines: list[str]
    phases: list[Phase]
    simulated_ps: int


def run_device(device: Path) -> DeviceRun:
    r = cairn.run(device, ["trace"], timeout=300)
    trace = r.files["trace"]
    ph = phases(trace.read_text()) if trace.exists() else []
    last = max((p.ps for p in ph), default=0)
    return DeviceRun(r.status, r.console.splitlines(), ph, last)


def migration_cost_ps(ph: list[Phase]) -> tuple[int, int]:
    """(migration cost, transfer part): suspend -> restart, and sent -> received, in ps."""
    at = {p.name: p.ps for p in ph if p.name in ("suspend", "sent", "received", "restart")}
    return at["restart"] - at["suspend"], at["received"] - at["sent"]
