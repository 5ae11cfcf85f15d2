"""The least-squares straight line the benchmarks fit cost against size with."""

from __future__ import annotations


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares y = base + slope x: (base, slope, R²)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    base = my - slope * mx
    ss_res = sum((y - base - slope * x) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return base, slope, 1.0 - ss_res / ss_tot if ss_tot else 1.0
