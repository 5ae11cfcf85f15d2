"""A VCD waveform (docs/stimuli.md, "VCD waveform") as a table of value changes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["signal", "time_ps", "value"]


def read_vcd(path: Path) -> pd.DataFrame:
    """One row per value change: `signal` is the scope path and name (`hub.state`,
    `cairn.power.state`), `time_ps` the time, `value` an integer, or None where any bit is
    x or z (an unknown value, as at the start of a bus's vectors)."""
    import pandas as pd

    names: dict[str, list[str]] = {}
    scope: list[str] = []
    rows: list[tuple[str, int, int | None]] = []
    now = 0
    in_defs = True
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line:
            continue
        if in_defs:
            words = line.split()
            if words[0] == "$scope":
                scope.append(words[2])
            elif words[0] == "$upscope":
                scope.pop()
            elif words[0] == "$var":
                names.setdefault(words[3], []).append(".".join([*scope, words[4]]))
            elif words[0] == "$enddefinitions":
                in_defs = False
            continue
        if line[0] == "#":
            now = int(line[1:])
        elif line[0] in "bB":
            bits, code = line[1:].split()
            value = None if any(c in "xXzZ" for c in bits) else int(bits, 2)
            rows.extend((n, now, value) for n in names.get(code, []))
        elif line[0] in "01xXzZ":
            value = int(line[0]) if line[0] in "01" else None
            rows.extend((n, now, value) for n in names.get(line[1:], []))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["value"] = frame["value"].astype("Int64")
    return frame
