"""What a sweep's worker does with one run: execute it in a temporary folder with the same
cairn-sim the sweep's key names, extract its metrics, and send back both."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle

from .digest import sim_digest
from .record import RunRecord
from .result import Result
from .runner import execute
from .spec import RunSpec

Metrics = dict[str, Any]
Extract = Callable[[Result], Metrics]


def work(spec: RunSpec, extract_blob: bytes, want_digest: str) -> tuple[RunRecord, Metrics]:
    have = sim_digest()
    if have != want_digest:
        raise RuntimeError(
            f"this worker's cairn-sim ({have[:12]}) is not the sweep's ({want_digest[:12]}): "
            "run the same build on every worker (docs/experiments.md)"
        )
    extract: Extract = cloudpickle.loads(extract_blob)
    with tempfile.TemporaryDirectory(prefix="cairn-sweep-") as tmp:
        result = execute(spec, Path(tmp))
        return RunRecord.of(result), extract(result)


def default_metrics(result: Result) -> Metrics:
    """The sweep's metrics when none are asked for: the exit status, and the run's
    instructions, cycles, simulated time and total energy where the stats have them."""
    out: Metrics = {"status": result.status}
    if "stats" in result.files and result.files["stats"].is_file():
        s = result.device_stats
        for k in ("instructions", "cycles", "simulated_seconds", "energy_joules.total"):
            if k in s:
                out[k] = s[k]
    return out
