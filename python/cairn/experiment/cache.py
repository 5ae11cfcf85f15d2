"""The sweep cache: one folder per run under build/cache/runs/, named by the run's key (a
hash of the scenario text, every input file's bytes, the seed and options, and the cairn-sim
binary: RunSpec.key). A run is looked up before it is started, so re-running a sweep only runs
what changed. Entries are written under a temporary name and renamed, so a half-written entry
is never read."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..paths import build_dir
from .record import META, RunRecord, read
from .result import Result


def default_root() -> Path:
    return build_dir() / "cache" / "runs"


class RunCache:
    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def folder(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> Result | None:
        f = self.folder(key)
        return read(f) if (f / META).is_file() else None

    def put(self, key: str, record: RunRecord) -> Result:
        """Store a finished run and return a Result reading the stored folder. (The sweep
        does not store a run ended by its wall-clock timeout: another try could finish.)"""
        final = self.folder(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=final.parent))
        record.write(tmp)
        try:
            os.rename(tmp, final)
        except OSError:  # another sweep stored the same run first: theirs is identical
            shutil.rmtree(tmp, ignore_errors=True)
        return read(final)
