"""Matplotlib figures in the papers' styles, rendered to PNG bytes (no display needed)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Literal

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.axes import Axes  # noqa: E402
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
    return _finish(fig, ax, title, xlabel, ylabel)


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
    return _finish(fig, ax, title, xlabel, ylabel)


def _finish(fig: Figure, ax: Axes, title: str, xlabel: str | None, ylabel: str, *,
            grid_axis: Literal["both", "x", "y"] = "both", which: Literal["major", "minor", "both"] = "major",
            legend: str = "small", ncol: int = 1) -> bytes:
    """The labels, grid and legend every figure here has, then its PNG."""
    ax.set_title(title)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis=grid_axis, alpha=0.3, which=which)
    ax.legend(fontsize=legend, ncol=ncol)
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
    return _finish(fig, ax, title, None, ylabel, grid_axis="y")


def assignment_regions(
    title: str,
    lines: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    points: Sequence[tuple[str, float, float]],
) -> bytes:
    """The appendix's Figure 1: boundary lines in the (L, D) plane, log-log, and measured
    points labelled with the cheaper processor."""
    fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=110)
    for label, xs, ys in lines:
        ax.plot(list(xs), list(ys), "-", label=label)
    markers = {"p": "s", "q": "o", "none": "x"}
    for choice in sorted({c for c, _, _ in points}):
        pts = [(x, y) for c, x, y in points if c == choice]
        ax.plot([x for x, _ in pts], [y for _, y in pts], markers.get(choice, "^"), label=f"measured: {choice}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    return _finish(fig, ax, title, "L (instructions)", "D (s)", which="both", legend="x-small")


def paired_bars(title: str, ylabel: str, labels: Sequence[str],
                series: Sequence[tuple[str, Sequence[float]]]) -> bytes:
    """Bars side by side per label (the CoMOS paper's Figure 6: without and with the event log)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series):
        ax.bar([k + i * width for k in range(len(labels))], list(values), width, label=name)
    ax.set_xticks([k + width * (len(series) - 1) / 2 for k in range(len(labels))])
    ax.set_xticklabels(list(labels))
    return _finish(fig, ax, title, None, ylabel, grid_axis="y")


def density(
    title: str,
    xlabel: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
) -> bytes:
    """Probability-density points (x, share of events), SimBed's jitter and delay plots."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for label, xs, ps in series:
        ax.plot(list(xs), list(ps), "o", markersize=4, label=label)
    return _finish(fig, ax, title, xlabel, "probability")


def lines(
    title: str,
    xlabel: str,
    ylabel: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    log_y: bool = False,
) -> bytes:
    """One line with markers per series (the MANTIS/TinyOS paper's curves against n)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for label, xs, ys in series:
        ax.plot(list(xs), list(ys), "o-", markersize=3, label=label)
    if log_y:
        ax.set_yscale("log")
    return _finish(fig, ax, title, xlabel, ylabel, legend="x-small", ncol=2)


def density_grid(
    title: str,
    xlabel: str,
    rows: Sequence[str],
    columns: Sequence[str],
    panels: Sequence[Sequence[Sequence[tuple[str, Sequence[float], Sequence[float]]]]],
    x_span: tuple[float, float] = (-0.5, 0.5),
) -> bytes:
    """Probability-density panels, rows x columns, each with its series: SimBed's Figs. 4
    and 5 (one panel per configuration, one marker per load). Every panel shows at least
    `x_span` and probabilities 0 to 1, so panels compare at a glance."""
    fig, axes = plt.subplots(len(rows), len(columns), figsize=(max(2.6 * len(columns), 5.5), 2.2 * len(rows)), dpi=90,
                             squeeze=False)  # fmt: skip
    for r, row in enumerate(rows):
        for c, column in enumerate(columns):
            ax = axes[r][c]
            lo, hi = x_span
            for label, xs, ps in panels[r][c]:
                ax.plot(list(xs), list(ps), "o", markersize=3, label=label)
                lo, hi = min([lo, *xs]), max([hi, *xs])
            ax.set_xlim(lo - 0.05, hi + 0.05)
            ax.set_ylim(0, 1.05)
            ax.set_title(f"{row}: {column}", fontsize="small")
            ax.tick_params(labelsize="x-small")
            ax.grid(True, alpha=0.3)
            if r == len(rows) - 1:
                ax.set_xlabel(xlabel, fontsize="small")
            if c == 0:
                ax.set_ylabel("probability", fontsize="small")
            if panels[r][c]:
                ax.legend(fontsize="xx-small")
    fig.suptitle(title)
    return _png(fig)
