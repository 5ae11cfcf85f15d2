"""A finished run as bytes (status, streams, output files), to carry back from a worker on
another machine and to store in the cache, and a Result over a folder it was written to."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from .result import Result
from .spec import OUTPUTS

META = "run.json"


@dataclasses.dataclass(frozen=True)
class RunRecord:
    status: int
    stdout: bytes
    stderr: bytes
    command: tuple[str, ...]
    outputs: tuple[str, ...]
    device: bool
    timed_out: bool
    files: tuple[tuple[str, bytes], ...]  #: (path relative to the run folder, contents)

    @classmethod
    def of(cls, result: Result) -> RunRecord:
        files: list[tuple[str, bytes]] = []
        for out, path in result.files.items():
            paths = sorted(path.iterdir()) if path.is_dir() else [path] if path.is_file() else []
            files += [(str(p.relative_to(result.folder)), p.read_bytes()) for p in paths]
        return cls(result.status, result.stdout, result.stderr, result.command, tuple(result.files),
                   result.device, result.timed_out, tuple(files))  # fmt: skip

    def write(self, folder: Path) -> Result:
        """Write the record into `folder` (made if missing) and return a Result reading it."""
        folder.mkdir(parents=True, exist_ok=True)
        for out in self.outputs:
            if out == "console":
                (folder / OUTPUTS[out][1]).mkdir(exist_ok=True)
        for rel, data in self.files:
            (folder / rel).write_bytes(data)
        (folder / "stdout").write_bytes(self.stdout)
        (folder / "stderr").write_bytes(self.stderr)
        meta = {"status": self.status, "command": list(self.command), "outputs": list(self.outputs),
                "device": self.device, "timed_out": self.timed_out}  # fmt: skip
        (folder / META).write_text(json.dumps(meta, indent=1) + "\n")
        return read(folder)


def read(folder: Path) -> Result:
    """The Result of a run folder written by RunRecord.write."""
    meta = json.loads((folder / META).read_text())
    return Result(
        status=meta["status"],
        stdout=(folder / "stdout").read_bytes(),
        stderr=(folder / "stderr").read_bytes(),
        command=tuple(meta["command"]),
        folder=folder,
        files={o: folder / OUTPUTS[o][1] for o in meta["outputs"]},
        device=meta["device"],
        timed_out=meta["timed_out"],
    )
