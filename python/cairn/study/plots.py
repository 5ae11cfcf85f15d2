"""Matplotlib figures in the papers' styles, rendered to PNG bytes (no display needed)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.figure import Figure  # noqa: E402


def line_fit(
    title: str,
    xlabel: str,
    ylabel: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    fits: Sequence[tuple[str, float, float]] = (),
) -> bytes:
    """Measured points per series and fitted lines y = base + slope * x (migration-cost style)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    xmax = 0.0
    for label, xs, ys in series:
        ax.plot(list(xs), list(ys), "o", label=label)
        xmax = max([xmax, *xs])
    for label, base, slope in fits:
        ax.plot([0, xmax], [base, base + slope * xmax], "-", label=label)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _png(fig)


def progress_curves(
    title: str,
    xlabel: str,
    ylabel: str,
    curves: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    mark: tuple[str, float] | None = None,
) -> bytes:
    """Curves of progress against time, with an optional vertical marker (a break-even point)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for label, xs, ys in curves:
        ax.plot(list(xs), list(ys), "-", label=label)
    if mark is not None:
        ax.axvline(mark[1], color="grey", linestyle="--", label=mark[0])
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _png(fig)


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def stacked_bars(
    title: str,
    ylabel: str,
    groups: Sequence[str],
    layers: Sequence[tuple[str, Sequence[float]]],
) -> bytes:
    """One bar per group, split into layers (an energy breakdown in SimBed's style)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    bottoms = [0.0] * len(groups)
    for label, values in layers:
        ax.bar(list(groups), list(values), bottom=bottoms, label=label)
        bottoms = [b + v for b, v in zip(bottoms, values)]
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return _png(fig)


def density(
    title: str,
    xlabel: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
) -> bytes:
    """Probability-density points (x, share of events), SimBed's jitter and delay plots."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for label, xs, ps in series:
        ax.plot(list(xs), list(ps), "o", markersize=4, label=label)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _png(fig)
