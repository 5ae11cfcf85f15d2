"""Periodic tasks in integer cycles."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Sequence


@dataclass(frozen=True)
class Task:
    """A periodic task: a job every ``period`` cycles, due ``deadline`` cycles after its
    release, needing at most ``wcet`` cycles, and blocked at most ``blocking`` cycles by
    lower-priority tasks holding a resource it needs."""

    period: int
    wcet: int
    deadline: int = 0  # 0: implicit, equal to the period
    blocking: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if self.deadline == 0:
            object.__setattr__(self, "deadline", self.period)
        if self.period <= 0 or self.wcet < 0 or self.blocking < 0:
            raise ValueError(f"task {self.name or '?'}: period > 0, wcet and blocking >= 0")
        if not 0 < self.deadline <= self.period:
            raise ValueError(f"task {self.name or '?'}: need 0 < deadline <= period")

    @property
    def utilisation(self) -> Fraction:
        return Fraction(self.wcet, self.period)

    def with_wcet(self, wcet: int) -> Task:
        return replace(self, wcet=wcet)


def utilisation(tasks: Sequence[Task]) -> Fraction:
    """Exact total utilisation (a Fraction, so U = 1 is decided exactly)."""
    return sum((t.utilisation for t in tasks), Fraction(0))


def implicit_deadlines(tasks: Sequence[Task]) -> bool:
    return all(t.deadline == t.period for t in tasks)


def by_period(tasks: Sequence[Task]) -> list[Task]:
    """Rate-monotonic order: shortest period first (ties by deadline, so the order is stable)."""
    return sorted(tasks, key=lambda t: (t.period, t.deadline))


def by_deadline(tasks: Sequence[Task]) -> list[Task]:
    """Deadline-monotonic order: shortest relative deadline first."""
    return sorted(tasks, key=lambda t: (t.deadline, t.period))


def scaled(tasks: Sequence[Task], factor: float) -> list[Task]:
    """Every WCET multiplied by ``factor``, rounded to whole cycles (at least one cycle)."""
    return [t.with_wcet(max(1, round(t.wcet * factor))) for t in tasks]
