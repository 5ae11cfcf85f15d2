"""cairn-sim's exact histograms (docs/stimuli.md: bins of `bin_width_s`) re-binned into the wide
bins SimBed's probability-density plots use."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def density(histograms: Iterable[dict[str, Any]], width_s: float = 100e-6) -> tuple[list[float], list[float]]:
    """The histograms' events pooled into `width_s`-second bins: (bin centres in ms, the share
    of all events in each bin), bins without events left out."""
    bins: dict[int, int] = {}
    total = 0
    for hist in histograms:
        for b in hist["bins"]:
            key = int((b["from_s"] + b["to_s"]) / 2 // width_s)
            bins[key] = bins.get(key, 0) + int(b["count"])
            total += int(b["count"])
    keys = sorted(bins)
    return [(k + 0.5) * width_s * 1e3 for k in keys], [bins[k] / max(total, 1) for k in keys]
