"""The experiment layer (docs/experiments.md): run a scenario once (`cairn.run`), read its
outputs as DataFrames (`Result`), sweep parameters and seeds on a process pool or a Dask
cluster (`cairn.sweep`), with an on-disk cache of runs."""

from __future__ import annotations

from .cache import RunCache
from .firmware import FirmwareBuildError, build_firmware
from .params import apply, grid
from .result import MissingOutput, Result, SimulationError
from .runner import execute, run
from .spec import OUTPUTS, RunSpec, make_spec
from .sweeper import load_run, sweep
from .worker import default_metrics

__all__ = [
    "OUTPUTS", "FirmwareBuildError", "MissingOutput", "Result", "RunCache", "RunSpec", "SimulationError", "apply",
    "build_firmware", "default_metrics", "execute", "grid", "load_run", "make_spec", "run", "sweep",
]  # fmt: skip
