"""`run`: one cairn-sim run of a scenario, a device or an ELF, its outputs in a folder that
`Result` reads lazily."""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..runners import run_cairn_sim
from .result import Result
from .spec import OUTPUTS, RunSpec, Target, make_spec


def run(
    target: Target,
    outputs: Iterable[str] = ("stats",),
    *,
    seed: int | None = None,
    max_time: str | None = None,
    max_instructions: int | None = None,
    options: Sequence[str] = (),
    firmware: str | os.PathLike[str] | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    check: bool = False,
    sim: str | os.PathLike[str] | None = None,
) -> Result:
    """Run `target` (a Scenario, a Device, a .toml file or an ELF) on cairn-sim.

    `outputs`: any of stats, trace, io_log, vcd, bus_log, console (docs/cli.md). `options`:
    further cairn-sim options, e.g. ("--energy", "stm32l053"). The run happens in `out_dir`
    (kept: the scenario, its input files under inputs/ and the outputs, a record of the
    run), else in a temporary folder removed with the Result. `check=True` raises
    SimulationError unless cairn-sim exits 0 or 124 (a limit). `sim`: another cairn-sim
    binary than build/bin/cairn-sim (or $CAIRN_SIM)."""
    spec = make_spec(target, outputs, seed, max_time, max_instructions, options, firmware, timeout)
    result = execute(spec, Path(out_dir) if out_dir is not None else None, sim)
    if check:
        result.raise_for_status()
    return result


def execute(spec: RunSpec, folder: Path | None = None, sim: str | os.PathLike[str] | None = None) -> Result:
    """Run a spec in `folder` (made if missing), or in a temporary folder the Result owns."""
    owned = folder is None
    where = Path(tempfile.mkdtemp(prefix="cairn-run-")) if folder is None else folder
    where.mkdir(parents=True, exist_ok=True)
    spec.materialise(where)
    proc = run_cairn_sim(spec.command(), timeout=spec.timeout, cwd=where, sim=sim)
    files = {o: where / OUTPUTS[o][1] for o in spec.outputs}
    result = Result(
        status=proc.status,
        stdout=proc.stdout,
        stderr=proc.stderr,
        command=("cairn-sim", *spec.command()),
        folder=where,
        files=files,
        device=spec.kind == "device",
        timed_out=proc.timed_out,
    )
    if owned:
        weakref.finalize(result, shutil.rmtree, where, True)
    return result
