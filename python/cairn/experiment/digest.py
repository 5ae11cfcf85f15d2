"""The simulator's identity for the sweep cache: a hash of the cairn-sim binary itself, so a
rebuilt simulator (whatever its version string) invalidates every cached run."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ..paths import sim_binary


def sim_digest(path: Path | None = None) -> str:
    p = (path or sim_binary()).resolve()
    st = p.stat()
    return _digest(str(p), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
