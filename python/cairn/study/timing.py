"""How long each study takes, so a long run can say up front how long it will take (`make
reproduce` prints the estimate first): the time it took the last time it ran at that size on
this checkout (build/cache/study-times.json), else the study's stated default."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cairn.paths import build_dir

#: Seconds each study is expected to take when it never ran here, rounded up from runs on a
#: 2-core x86_64 host shared with other work. A study missing from this table (a new one)
#: takes UNLISTED_SECONDS.
DEFAULT_SECONDS: dict[str, dict[str, float]] = {
    "full": {"e1-mantis-tinyos": 20, "e2-simbed-rtos": 20, "e3-emeralds": 240, "e4-comos": 20,
             "e5-mpsoc-migration": 5},
    "reduced": {"e1-mantis-tinyos": 10, "e2-simbed-rtos": 20, "e3-emeralds": 90, "e4-comos": 20,
                "e5-mpsoc-migration": 5},
}  # fmt: skip
UNLISTED_SECONDS = 60.0


@dataclass(frozen=True)
class Expected:
    name: str
    seconds: float
    measured: bool  #: from this checkout's last run (else the stated default)


def _file() -> Path:
    return build_dir() / "cache" / "study-times.json"


def _load() -> dict[str, float]:
    try:
        data = json.loads(_file().read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def expected(names: Iterable[str], size: str) -> list[Expected]:
    """Each study's expected time at `size`: its last run here, else its stated default."""
    times = _load()
    defaults = DEFAULT_SECONDS.get(size, {})
    out = []
    for name in names:
        key = f"{name}:{size}"
        if key in times:
            out.append(Expected(name, times[key], True))
        else:
            out.append(Expected(name, float(defaults.get(name, UNLISTED_SECONDS)), False))
    return out


def record(name: str, size: str, seconds: float) -> None:
    times = _load()
    times[f"{name}:{size}"] = round(seconds, 1)
    path = _file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(times, indent=1, sort_keys=True))


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def describe(names: list[str], size: str) -> str:
    """The estimate as printed before the studies start: the total, then a line a study."""
    rows = expected(names, size)
    total = sum(r.seconds for r in rows)
    guessed = [r.name for r in rows if not r.measured]
    if not guessed:
        source = "from the last run of each study here"
    elif len(guessed) == len(rows):
        source = "stated defaults: no study has run at this size here yet"
    else:
        source = f"{len(guessed)} of {len(rows)} from stated defaults, never run at this size here"
    width = max((len(r.name) for r in rows), default=0)
    lines = [f"estimate: about {_minutes(total)} at size {size} ({source})"]
    lines += [f"  {r.name:<{width}}  {_minutes(r.seconds):>9}  {'last run' if r.measured else 'default'}" for r in rows]
    return "\n".join(lines)
