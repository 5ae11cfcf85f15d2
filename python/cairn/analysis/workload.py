"""The EMERALDS workload generator (EMERALDS paper (Zuberi, Pillai and Shin, SOSP 1999),
section 5).

Each task's period is, with equal probability, a single-digit, a double-digit or a triple-digit
number of milliseconds (uniform within the decade: 1–9, 10–99, 100–999 ms), divided by
``period_divisor`` (the paper divides the base workload's periods to get shorter-period
workloads). The paper draws execution times at random without naming a distribution; here each
task's utilisation is uniform on (0, 1] before the set is normalised to ``utilisation`` (the
breakdown search rescales it anyway, so only the proportions matter). Deadlines are implicit.
"""

from __future__ import annotations

import random

from .task import Task

DECADES_MS: tuple[tuple[int, int], ...] = ((1, 9), (10, 99), (100, 999))


def period_ms(rng: random.Random) -> int:
    low, high = rng.choice(DECADES_MS)
    return rng.randint(low, high)


def generate(n: int, rng: random.Random, cycles_per_ms: int = 25_000,
             period_divisor: int = 1, utilisation: float = 0.5) -> list[Task]:
    """One workload of ``n`` tasks, in cycles."""
    if n <= 0 or cycles_per_ms <= 0 or period_divisor <= 0 or not 0 < utilisation <= 1:
        raise ValueError("need n, cycles_per_ms, period_divisor > 0 and 0 < utilisation <= 1")
    periods = [max(1, period_ms(rng) * cycles_per_ms // period_divisor) for _ in range(n)]
    weights = [1.0 - rng.random() for _ in range(n)]  # uniform on (0, 1]
    total = sum(weights)
    return [Task(period=p, wcet=max(1, round(p * w / total * utilisation)), name=f"t{i}")
            for i, (p, w) in enumerate(zip(periods, weights))]
