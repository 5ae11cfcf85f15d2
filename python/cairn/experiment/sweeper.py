"""`sweep`: run a base scenario over a grid (or list) of parameter points and seeds, on a
local process pool or a Dask cluster, into one tidy DataFrame: one row per run, the point's
parameter columns, `seed`, the metric columns `extract` returns, and `run_key` (the cache
entry holding the run's outputs: `cairn.experiment.load_run(key)`)."""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cloudpickle

from ..scenario import Device, Scenario, load
from .cache import RunCache
from .digest import sim_digest
from .params import Point, apply, points
from .record import RunRecord
from .result import Result
from .spec import RunSpec, Target, make_spec
from .worker import Extract, Metrics, default_metrics, work

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

Configure = Callable[..., Target]
#: a finished run as the executors hand it back: (index of its spec, its record, its metrics)
Done = tuple[int, RunRecord, Metrics]


def sweep(
    base: Target | None,
    grid_or_list: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]] = (),
    seeds: Sequence[int | None] = (None,),
    *,
    extract: Extract = default_metrics,
    configure: Configure | None = None,
    outputs: Sequence[str] = ("stats",),
    max_time: str | None = None,
    max_instructions: int | None = None,
    options: Sequence[str] = (),
    timeout: float | None = None,
    cache: bool | str | os.PathLike[str] = True,
    client: Client | str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Run `base` at every point of `grid_or_list` (a dict of axes, or a list of dicts) for
    every seed, and tabulate `extract(result)` of each run. (`base` may be None when
    `configure` builds every run itself.)

    A point's keys are TOML key paths set in the base scenario (`clock`, `energy.profile`,
    `processor.fast.clock`: cairn.experiment.params.apply), unless `configure` is given:
    then `configure(base, **point)` returns what to run (a Scenario, Device or ELF path). A
    key starting with `--` is a cairn-sim option of that point's runs instead
    (`{"--max-instructions": 10**8}`, `{"--energy": "nrf51822"}` for a bare ELF).
    `cache`: True for build/cache/runs, a folder, or False. `client`: a dask.distributed
    Client or a scheduler address ("tcp://host:8786"); without one, a local process pool of
    `workers` processes (default: the CPU count). `progress`: a tqdm bar (default: on a tty)."""
    pts = points(grid_or_list) or [{}]
    base_doc = load(base) if isinstance(base, (str, os.PathLike)) and Path(base).suffix == ".toml" else base
    specs: list[RunSpec] = []
    rows: list[dict[str, Any]] = []
    for point in pts:
        settings = {k: v for k, v in point.items() if not k.startswith("--")}
        run_options = [*options, *(x for k, v in point.items() if k.startswith("--") for x in (k, str(v)))]
        target = _target(base_doc, settings, configure)
        for seed in seeds:
            specs.append(make_spec(target, outputs, seed, max_time, max_instructions, run_options, timeout=timeout))
            rows.append({**point, "seed": seed})
    digest = sim_digest()
    keys = [s.key(digest) for s in specs]
    store = None if cache is False else RunCache(None if cache is True else cache)

    metrics: dict[str, Metrics] = {}
    todo: dict[str, int] = {}  # key -> index of the first spec with that key
    for i, key in enumerate(keys):
        hit = store.get(key) if store is not None else None
        if hit is not None and key not in metrics:
            metrics[key] = extract(hit)
        elif hit is None and key not in todo:
            todo[key] = i

    if todo:
        blob = cloudpickle.dumps(extract)
        jobs = [(i, specs[i]) for i in todo.values()]
        runner = _dask(client, jobs, blob, digest) if client is not None else _pool(jobs, blob, digest, workers)
        for i, record, m in _progress(runner, len(jobs), progress):
            metrics[keys[i]] = m
            if store is not None and not record.timed_out:
                store.put(keys[i], record)

    import pandas as pd

    return pd.DataFrame([{**row, **metrics[key], "run_key": key} for row, key in zip(rows, keys)])


def load_run(key: str, cache: str | os.PathLike[str] | None = None) -> Result:
    """The Result of a cached run, by a sweep row's `run_key`."""
    r = RunCache(cache).get(key)
    if r is None:
        raise KeyError(f"no cached run {key}")
    return r


def _target(base: Target | None, point: Point, configure: Configure | None) -> Target:
    if configure is not None:
        return configure(base, **point)
    if base is None:
        raise ValueError("a sweep without a base needs configure= to turn each point into a run")
    if not point:
        return base
    if not isinstance(base, (Scenario, Device)):
        raise ValueError("a sweep over a bare ELF needs configure= to turn each point into a run")
    return apply(base, point)


def _pool(jobs: list[tuple[int, RunSpec]], blob: bytes, digest: str, workers: int | None) -> Iterator[Done]:
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures = {pool.submit(work, spec, blob, digest): i for i, spec in jobs}
        for f in concurrent.futures.as_completed(futures):
            record, m = f.result()
            yield futures[f], record, m


def _dask(client: Client | str, jobs: list[tuple[int, RunSpec]], blob: bytes, digest: str) -> Iterator[Done]:
    from distributed import Client, as_completed

    own = isinstance(client, str)
    c = Client(client) if isinstance(client, str) else client  # type: ignore[no-untyped-call]
    try:
        futures = [c.submit(work, spec, blob, digest, pure=False) for _, spec in jobs]
        index = {f.key: i for f, (i, _) in zip(futures, jobs)}
        for f in as_completed(futures):  # type: ignore[no-untyped-call]
            record, m = f.result()
            yield index[f.key], record, m
    finally:
        if own:
            c.close()  # type: ignore[no-untyped-call]


def _progress(done: Iterator[Done], total: int, progress: bool | None) -> Iterator[Done]:
    from tqdm import tqdm

    disable = None if progress is None else not progress
    with tqdm(total=total, desc="cairn sweep", unit="run", disable=disable) as bar:
        for item in done:
            bar.update(1)
            yield item
