"""E2's single runs: one task set under one model, its result and cairn-sim's statistics
(the histograms SimBed's density plots are made from)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.workloads import RunError, TaskSet, TaskSetResult, run_task_set

MODELS = ("mantis", "coop", "nos", "cairn", "limit")
LABEL = {"mantis": "preemptive (MANTIS-like)", "coop": "cooperative (Echidna-style)", "nos": "NOS",
         "cairn": "Cairn messages", "limit": "LIMIT (no OS)"}
SCHEDULERS = ("mantis", "coop", "nos", "cairn")


@dataclass(frozen=True)
class Point:
    """One run: the result, or None when the model could not run it to its end."""

    result: TaskSetResult | None
    stats: dict[str, Any]
    failure: str = ""


def run_point(model: str, ts: TaskSet, root: Path) -> Point:
    ratio = f"-r{ts.ratio}" if ts.ratio > 1 else ""
    d = root / f"{model}-{ts.kind}{ratio}-{ts.tasks}-{ts.period_ms}-{int(ts.background)}-{int(ts.doze)}-{ts.run_ms}"
    d.mkdir()
    try:
        r = run_task_set(model, ts, d)
    except RunError as e:
        return Point(None, {}, str(e).splitlines()[0])
    return Point(r, json.loads((d / f"rtos-{model}" / "stats.json").read_text()))
