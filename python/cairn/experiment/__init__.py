"""The experiment layer (docs/experiments.md): run a scenario once (`cairn.run`), read its
outputs as DataFrames (`Result`), sweep parameters and seeds on a process pool or a Dask
cluster (`cairn.sweep`), with an on-disk cache of runs."""

from __future__ import annotations

from .result import MissingOutput, Result, SimulationError
from .runner import execute, run
from .spec import OUTPUTS, RunSpec, make_spec

__all__ = ["OUTPUTS", "MissingOutput", "Result", "RunSpec", "SimulationError", "execute", "make_spec", "run"]
