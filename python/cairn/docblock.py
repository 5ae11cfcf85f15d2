"""Generated blocks inside hand-written Markdown: a block sits between a begin and an end
marker (HTML comments) and is replaced whole by the script that generates it."""

from __future__ import annotations

import sys
from pathlib import Path


def splice(doc: str, block: str, begin: str, end: str, what: str = "the document") -> str:
    """doc with everything from `begin` to `end` (both included) replaced by `block`, which
    starts with `begin` and ends with `end` itself. ValueError when the markers are missing."""
    start, stop = doc.find(begin), doc.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"{what} has no {begin!r} ... {end!r} markers")
    return doc[:start] + block + doc[stop + len(end):]


def write_or_check(path: Path, block: str, begin: str, end: str, write: bool, fix: str) -> int:
    """--write: put block into the file at path; --check: 0 when the file already holds it,
    else 1 with a one-line hint (`fix`, the command that regenerates it) on stderr."""
    doc = path.read_text()
    fresh = splice(doc, block, begin, end, str(path))
    if write:
        path.write_text(fresh)
        return 0
    if fresh != doc:
        print(f"{path.name} is stale: run {fix}", file=sys.stderr)
        return 1
    return 0
