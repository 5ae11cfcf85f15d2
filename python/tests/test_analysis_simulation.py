"""cairn.analysis against a brute-force schedule: small random task sets (zero overheads) are
simulated cycle by cycle from a synchronous release over a hyperperiod. The RM/DM and EDF tests
are exact there, so they must agree with the simulation; the CSD test is sufficient, so a set
it accepts must never miss in the simulation."""

from __future__ import annotations

import math
import random
from typing import Callable, Sequence

from cairn.analysis.csd import csd_schedulable_with, queues
from cairn.analysis.edf import edf_schedulable
from cairn.analysis.fixed_priority import fp_schedulable
from cairn.analysis.task import Task, by_deadline

Key = Callable[[int, int], tuple[int, ...]]  # (task index, absolute deadline) -> priority


def misses(tasks: Sequence[Task], key: Key) -> bool:
    """Does any job miss its deadline in the synchronous schedule under priority ``key``
    (smallest first)?"""
    horizon = math.lcm(*(t.period for t in tasks)) + max(t.deadline for t in tasks)
    left = [0] * len(tasks)  # remaining work of each task's current job
    due = [0] * len(tasks)
    for now in range(horizon):
        for i, t in enumerate(tasks):
            if now % t.period == 0:
                if left[i]:
                    return True  # the previous job is still running at its next release
                left[i], due[i] = t.wcet, now + t.deadline
        ready = [i for i in range(len(tasks)) if left[i]]
        if ready:
            run = min(ready, key=lambda i: key(i, due[i]))
            left[run] -= 1
        if any(left[i] and due[i] <= now + 1 for i in range(len(tasks))):
            return True
    return False


def random_set(rng: random.Random, n: int, constrained: bool) -> list[Task]:
    out = []
    for _ in range(n):
        period = rng.choice((2, 3, 4, 5, 6, 8, 10, 12))
        deadline = rng.randint(max(1, period // 2), period) if constrained else period
        out.append(Task(period=period, wcet=rng.randint(1, max(1, period // n)), deadline=deadline))
    return out


def test_rm_dm_and_edf_are_exact() -> None:
    rng = random.Random(11)
    seen = {"fp": set(), "edf": set()}  # type: dict[str, set[bool]]
    for _ in range(400):
        ts = random_set(rng, rng.randint(2, 4), constrained=rng.random() < 0.5)
        rank = {id(t): r for r, t in enumerate(by_deadline(ts))}
        fp_ok = not misses(ts, lambda i, d: (rank[id(ts[i])],))
        edf_ok = not misses(ts, lambda i, d: (d, i))
        assert fp_schedulable(ts) == fp_ok, ts
        assert edf_schedulable(ts) == edf_ok, ts
        seen["fp"].add(fp_ok)
        seen["edf"].add(edf_ok)
    assert seen == {"fp": {True, False}, "edf": {True, False}}


def test_csd_accepts_only_sets_that_meet_their_deadlines() -> None:
    rng = random.Random(12)
    accepted = 0
    for _ in range(300):
        ts = random_set(rng, rng.randint(2, 4), constrained=rng.random() < 0.3)
        n = len(ts)
        alloc = tuple(sorted(rng.randint(0, n) for _ in range(rng.randint(1, 2))))
        qs = queues(ts, alloc)
        order = [t for q in qs for t in q]
        level = {id(t): j for j, q in enumerate(qs) for t in q}
        rank = {id(t): r for r, t in enumerate(by_deadline(qs[-1]))}
        last = len(qs) - 1

        def key(i: int, d: int) -> tuple[int, ...]:
            j = level[id(order[i])]
            return (j, rank[id(order[i])] if j == last else d, i)

        if csd_schedulable_with(ts, alloc):
            accepted += 1
            assert not misses(order, key), (ts, alloc)
    assert accepted > 50
