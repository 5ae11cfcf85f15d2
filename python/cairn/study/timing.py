"""How long each study took the last time it ran at each size on this checkout, so a long run
can say up front how long it will take (`make reproduce` prints the estimate first)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from cairn.paths import build_dir


def _file() -> Path:
    return build_dir() / "cache" / "study-times.json"


def _load() -> dict[str, float]:
    try:
        data = json.loads(_file().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def estimate(names: Iterable[str], size: str) -> tuple[float, list[str]]:
    """(seconds the studies took last time, the studies never timed at this size)."""
    times = _load()
    known, unknown = 0.0, []
    for name in names:
        key = f"{name}:{size}"
        if key in times:
            known += times[key]
        else:
            unknown.append(name)
    return known, unknown


def record(name: str, size: str, seconds: float) -> None:
    times = _load()
    times[f"{name}:{size}"] = round(seconds, 1)
    path = _file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(times, indent=1, sort_keys=True))


def describe(names: list[str], size: str) -> str:
    seconds, unknown = estimate(names, size)
    if not unknown:
        return f"estimate: about {seconds / 60:.1f} min ({size}; from the last run of each study here)"
    timed = f"about {seconds / 60:.1f} min for the studies timed before, " if seconds else ""
    return f"estimate: {timed}{', '.join(unknown)} not timed at size {size} on this checkout yet"
