"""A run of cairn-sim as plain data: the scenario text, the bytes of every file it refers to,
the options and the outputs wanted. It is self-contained, so it can be hashed (the sweep
cache's key), pickled to a process pool or a Dask worker on another machine, and executed in
any folder: the files are written beside the scenario under `inputs/`."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..scenario import Device, Scenario

#: output name -> (cairn-sim option, file name in the run's folder)
OUTPUTS: dict[str, tuple[str, str]] = {
    "stats": ("--stats", "stats.json"),
    "trace": ("--trace", "trace.json"),
    "io_log": ("--io-log", "io.csv"),
    "vcd": ("--vcd", "run.vcd"),
    "bus_log": ("--bus-log", "bus.csv"),
    "console": ("--console-dir", "console"),
}

Target = Scenario | Device | str | os.PathLike[str]


@dataclasses.dataclass(frozen=True)
class RunSpec:
    kind: str  #: "elf" (a bare firmware), "scenario" or "device"
    file_name: str  #: the scenario's or the ELF's name in the run folder
    text: str  #: the scenario's TOML, its paths pointing into inputs/ ("" for a bare ELF)
    inputs: tuple[tuple[str, bytes], ...]  #: (name under inputs/, contents)
    outputs: tuple[str, ...]
    options: tuple[str, ...]  #: seed, limits and any other cairn-sim options, in order
    timeout: float | None = None

    def key(self, sim_digest: str) -> str:
        """What the run's result depends on: everything it reads, and the simulator."""
        h = hashlib.sha256()
        for part in (self.kind, self.file_name, self.text, *self.outputs, "\0", *self.options, sim_digest):
            h.update(part.encode() + b"\0")
        for name, data in self.inputs:
            h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return h.hexdigest()

    def command(self) -> list[str]:
        """cairn-sim's arguments, relative to the run's folder."""
        args = ["run"]
        if self.kind != "elf":
            args += ["--device", self.file_name]
        for out in self.outputs:
            opt, name = OUTPUTS[out]
            args += [opt, name]
        args += list(self.options)
        if self.kind == "elf":
            args.append(f"inputs/{self.file_name}")
        return args

    def materialise(self, folder: Path) -> None:
        """Write the scenario and its input files into `folder`."""
        (folder / "inputs").mkdir(parents=True, exist_ok=True)
        for name, data in self.inputs:
            (folder / "inputs" / name).write_bytes(data)
        if self.text:
            (folder / self.file_name).write_text(self.text)
        if "console" in self.outputs:
            (folder / OUTPUTS["console"][1]).mkdir(exist_ok=True)


def make_spec(
    target: Target,
    outputs: Iterable[str] = ("stats",),
    seed: int | None = None,
    max_time: str | None = None,
    max_instructions: int | None = None,
    options: Sequence[str] = (),
    firmware: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
) -> RunSpec:
    """The spec of running `target`: a Scenario or Device, a scenario/device TOML file, or a
    firmware ELF. `firmware` gives a scenario's ELF when it names none (or replaces it)."""
    outs = tuple(dict.fromkeys(outputs))
    for o in outs:
        if o not in OUTPUTS:
            raise ValueError(f"unknown output {o!r} (known: {', '.join(OUTPUTS)})")
    opts: list[str] = []
    if seed is not None:
        opts += ["--seed", str(seed)]
    if max_time is not None:
        opts += ["--max-time", str(max_time)]
    if max_instructions is not None:
        opts += ["--max-instructions", str(max_instructions)]
    opts += list(options)
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.suffix != ".toml":
            data = path.read_bytes()
            return RunSpec("elf", path.name, "", ((path.name, data),), outs, tuple(opts), timeout)
        from ..scenario import load

        target = load(path)
    doc = target.resolved()
    if firmware is not None:
        if isinstance(doc, Device):
            raise ValueError("firmware=: a device names each processor's firmware in its [[processor]] table")
        doc.firmware = str(Path(firmware).resolve())
    inputs: dict[str, str] = {}  # absolute path -> name under inputs/

    def localise(p: str) -> str:
        if not Path(p).is_file():
            return p  # left for cairn-sim to report, in its own words
        if p not in inputs:
            stem = Path(p).name
            name = stem if stem not in inputs.values() else f"{len(inputs)}-{stem}"
            inputs[p] = name
        return f"inputs/{inputs[p]}"

    doc.map_paths(localise)
    files = tuple((name, Path(p).read_bytes()) for p, name in inputs.items())
    kind = "device" if isinstance(doc, Device) else "scenario"
    return RunSpec(kind, target.file_name, doc.text(), files, outs, tuple(opts), timeout)
