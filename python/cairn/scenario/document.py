"""What a whole file (a scenario or a device) can do: be read and written, name the files it
refers to, and be checked by cairn-sim itself."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Self

from .section import Section
from .toml_text import dumps


class ScenarioError(ValueError):
    """cairn-sim refused the file: the message is its one line (`cairn-sim: FILE: KEY: ...`)."""


@dataclasses.dataclass
class Document(Section):
    #: the folder the file's relative paths start from (the file's own folder when loaded);
    #: None: relative paths start from the working directory, as they would for cairn-sim
    source_dir: Path | None = dataclasses.field(default=None, kw_only=True, compare=False, metadata={"internal": True})
    #: the file name, used when the scenario is written for a check or a run
    file_name: str = dataclasses.field(default="scenario.toml", kw_only=True, compare=False, metadata={"internal": True})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        p = Path(path)
        return cls.parse(p.read_text(), source_dir=p.resolve().parent, file_name=p.name)

    @classmethod
    def parse(cls, text: str, source_dir: Path | None = None, file_name: str = "scenario.toml") -> Self:
        doc = cls.from_toml(tomllib.loads(text))
        doc.source_dir, doc.file_name = source_dir, file_name
        return doc

    def text(self) -> str:
        """The TOML text, paths as they are in the model."""
        return dumps(self.to_toml())

    def resolved(self) -> Self:
        """A copy whose relative paths are absolute, so it can be written anywhere."""
        out = self.copy()
        base = self.source_dir or Path.cwd()
        out.map_paths(lambda p: str((base / p).resolve()) if not os.path.isabs(p) else p)
        out.source_dir = None
        return out

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the file at `path`; relative paths are rewritten to hold from its folder."""
        p = Path(path)
        target = p.resolve().parent
        out = self.copy()
        if (self.source_dir or Path.cwd()).resolve() != target:
            base = self.source_dir or Path.cwd()
            out.map_paths(lambda f: f if os.path.isabs(f) else os.path.relpath((base / f).resolve(), target))
        p.write_text(out.text())
        return p

    def files(self) -> list[Path]:
        """Every file the scenario refers to (firmware, profiles, boards, input data), absolute."""
        found: list[Path] = []

        def collect(f: str) -> str:
            found.append(Path(f))
            return f

        self.resolved().map_paths(collect)
        return found

    def check(self, firmware: str | os.PathLike[str] | None = None, timeout: float = 60.0) -> None:
        """Raise ScenarioError with cairn-sim's own message unless cairn-sim accepts the file.
        cairn-sim is the validator: it reads and checks everything (firmware ELFs included)
        before the first instruction, so a run stopped at 0 s of simulated time is a check."""
        from ..runners import run_cairn_sim

        with tempfile.TemporaryDirectory(prefix="cairn-check-") as tmp:
            (Path(tmp) / self.file_name).write_text(self.resolved().text())
            args = ["run", "--device", self.file_name, "--max-time", "0"]
            if firmware is not None:
                args.append(str(Path(firmware).resolve()))
            r = run_cairn_sim(args, timeout=timeout, cwd=tmp)
        if r.status == 124 and not r.timed_out:
            return
        lines = r.stderr.decode(errors="replace").strip().splitlines()
        raise ScenarioError(lines[-1] if lines else r.describe())
