"""Request-bound and demand-bound functions of periodic work, and the synchronous busy period.

Work is given as (wcet, deadline, period) triples in cycles, already carrying its overheads.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

Work = tuple[int, int, int]  # (wcet, deadline, period)
Interference = tuple[int, int]  # (wcet, period): preempts, has no deadline here


def rbf(interference: Iterable[Interference], length: int) -> int:
    """Most work released in any window of ``length`` cycles: Σ ⌈ℓ/T⌉·C."""
    return sum(-(-length // period) * wcet for wcet, period in interference)


def dbf(work: Iterable[Work], length: int) -> int:
    """Most work both released and due within any window of ``length`` cycles:
    Σ max(0, ⌊(ℓ − D)/T⌋ + 1)·C."""
    return sum(((length - d) // t + 1) * c for c, d, t in work if length >= d)


def busy_period(work: Sequence[Interference], extra: int = 0) -> int | None:
    """Length of the synchronous busy period: the least w > 0 with w = extra + Σ ⌈w/T⌉·C;
    None when the utilisation exceeds 1 (it never ends)."""
    if sum((Fraction(c, t) for c, t in work), Fraction(0)) > 1:
        return None
    w = extra + sum(c for c, _ in work)
    if w == 0:
        return 0
    while True:
        nxt = extra + rbf(work, w)
        if nxt == w:
            return w
        if nxt < w:  # cannot happen for w below the fixed point; guard against a bad input
            return w
        w = nxt
