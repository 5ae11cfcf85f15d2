"""Cairn: experiments, analysis and test harnesses around Cairn OS and cairn-sim.

The experiment layer (docs/experiments.md): `cairn.run` runs a scenario, device or ELF once
and returns a `Result` whose outputs load as DataFrames; `cairn.sweep` runs a grid of
parameters and seeds on a process pool or a Dask cluster into one tidy DataFrame; the typed
scenario files are in `cairn.scenario`."""

from .experiment import Result, load_run, run, sweep

__version__ = "0.1.0"

__all__ = ["Result", "load_run", "run", "sweep"]
