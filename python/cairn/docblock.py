"""Generated blocks inside hand-written Markdown: a block sits between a begin and an end
marker (HTML comments) and is replaced whole by the script that generates it."""

from __future__ import annotations


def splice(doc: str, block: str, begin: str, end: str, what: str = "the document") -> str:
    """doc with everything from `begin` to `end` (both included) replaced by `block`, which
    starts with `begin` and ends with `end` itself. ValueError when the markers are missing."""
    start, stop = doc.find(begin), doc.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"{what} has no {begin!r} ... {end!r} markers")
    return doc[:start] + block + doc[stop + len(end):]
