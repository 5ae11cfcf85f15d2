"""The kernel's run-time overheads, in cycles, as a caller gives them.

The costs come from a plain mapping (later the kernel bench's JSON). Every key is optional
(missing means 0) and every value is a number of cycles >= 0; an unknown key is an error, so a
misspelt key cannot silently count as free. Keys:

``context_switch``
    one switch from one task to another.
``tick``, ``tick_period``
    the timer interrupt's cost and its period (``tick_period`` 0 or absent: no tick).
``fp.block``, ``fp.unblock``, ``fp.select`` and ``edf.block``, ``edf.unblock``, ``edf.select``
    the scheduler operations of the fixed-priority queue and of an EDF queue: take the running
    task off the ready set, put a task on it, pick the next task to run.
``<op>_per_task`` (for each of the six above, e.g. ``edf.select_per_task``)
    the part of that operation's cost that grows with the length of the queue it works on: an
    operation on a queue of n tasks costs ``<op> + <op>_per_task * n``. EMERALDS's EDF queue is
    unsorted (its select parses the queue), its fixed-priority queue is sorted with a pointer to
    the highest-priority ready task (its block parses the queue); the slopes say which.
``csd.queue_check``
    CSD's select looks at each queue's count of ready tasks before it parses one; the cost of
    one such check.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping

Policy = Literal["fp", "edf"]
Operation = Literal["block", "unblock", "select"]

POLICIES: tuple[Policy, ...] = ("fp", "edf")
OPERATIONS: tuple[Operation, ...] = ("block", "unblock", "select")
KEYS: tuple[str, ...] = (
    "context_switch",
    "tick",
    "tick_period",
    "csd.queue_check",
    *(f"{p}.{op}{suffix}" for p in POLICIES for op in OPERATIONS for suffix in ("", "_per_task")),
)


@dataclass(frozen=True)
class Overheads:
    """Costs in cycles; see the module docstring for the keys."""

    costs: Mapping[str, float] = field(default_factory=dict)

    @staticmethod
    def from_mapping(raw: Mapping[str, object]) -> Overheads:
        costs: dict[str, float] = {}
        for key, value in raw.items():
            if key not in KEYS:
                raise ValueError(f"unknown overhead key {key!r} (known: {', '.join(KEYS)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"overhead {key!r} must be a number of cycles >= 0, not {value!r}")
            costs[key] = float(value)
        return Overheads(costs)

    @staticmethod
    def from_json(path: Path) -> Overheads:
        raw = json.loads(path.read_text())
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected a JSON object of overhead costs")
        return Overheads.from_mapping(raw)

    def get(self, key: str) -> float:
        return self.costs.get(key, 0.0)

    def op(self, policy: Policy, operation: Operation, queue_length: int) -> float:
        """One scheduler operation on a queue of ``queue_length`` tasks."""
        base = f"{policy}.{operation}"
        return self.get(base) + self.get(base + "_per_task") * queue_length

    def per_job(self, policy: Policy, queue_length: int) -> float:
        """What one job costs the kernel under a single-queue policy: EMERALDS's
        Δt = Δt_b + Δt_u + 2·Δt_s (each job unblocks once and blocks once per period, and each
        of these selects the next task), plus the two context switches into and out of it."""
        return (self.op(policy, "block", queue_length) + self.op(policy, "unblock", queue_length)
                + 2 * self.op(policy, "select", queue_length) + 2 * self.get("context_switch"))

    def tick_interference(self) -> tuple[int, int] | None:
        """The timer tick as (cost, period) of a highest-priority interrupt, or None."""
        period = int(self.get("tick_period"))
        cost = math.ceil(self.get("tick"))
        if period <= 0 or cost == 0:
            return None
        return cost, period

    def scaled(self, factor: float) -> Overheads:
        """Every cost times ``factor`` (the tick period unchanged)."""
        return Overheads({k: (v if k == "tick_period" else v * factor) for k, v in self.costs.items()})


ZERO = Overheads()
