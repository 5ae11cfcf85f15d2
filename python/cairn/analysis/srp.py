"""Blocking terms under the Stack Resource Policy (Baker), for EDF and for fixed priority.

A task's preemption level is higher the shorter its relative deadline; a resource's ceiling is
the highest preemption level of the tasks that use it. Task i can be blocked, at most once per
job, by one critical section of a task with a lower preemption level (a longer deadline) on a
resource whose ceiling is at least i's level:

    B_i = max{ |cs| : cs of task j, D_j > D_i, ceiling(cs.resource) ≥ level(i) }
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from .task import Task


@dataclass(frozen=True)
class CriticalSection:
    task: int  # index into the task list
    resource: str
    length: int  # cycles


def srp_blocking(tasks: Sequence[Task], sections: Sequence[CriticalSection]) -> list[int]:
    """B_i for every task (levels compared by relative deadline: shorter is higher)."""
    for cs in sections:
        if not 0 <= cs.task < len(tasks) or cs.length < 0:
            raise ValueError(f"bad critical section {cs}")
    # Ceiling as the shortest deadline among the resource's users.
    ceiling: dict[str, int] = {}
    for cs in sections:
        d = tasks[cs.task].deadline
        ceiling[cs.resource] = min(ceiling.get(cs.resource, d), d)
    out: list[int] = []
    for t in tasks:
        out.append(max((cs.length for cs in sections
                        if tasks[cs.task].deadline > t.deadline
                        and ceiling[cs.resource] <= t.deadline), default=0))
    return out


def with_srp_blocking(tasks: Sequence[Task], sections: Sequence[CriticalSection]) -> list[Task]:
    return [replace(t, blocking=b) for t, b in zip(tasks, srp_blocking(tasks, sections))]
