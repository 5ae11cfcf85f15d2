"""cairn.sweep: points and seeds into one DataFrame, the run cache, and a Dask cluster giving
the same table as the local process pool."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import cairn
from cairn import scenario as sc
from cairn.experiment import Result, apply, default_metrics, grid
from cairn.paths import firmware_dir, repo_root, sim_binary

HELLO_SCENARIO = repo_root() / "experiments" / "hello-energy" / "scenario.toml"
PINGPONG = repo_root() / "experiments" / "devices" / "pingpong.toml"


def energy_and_lines(r: Result) -> dict[str, object]:
    return {"energy_j": r.device_stats["energy_joules.total"], "lines": r.console.count("Hello World")}


def test_grid_and_apply() -> None:
    assert grid({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"},
    ]  # fmt: skip
    dev = sc.Device.load(PINGPONG)
    changed = apply(dev, {"processor.leaf.clock": "8MHz", "processor.0.rtc_ppm": 1.5, "bus.slot": "16us"})
    assert changed.processor("leaf").clock == "8MHz" and changed.processor("hub").rtc_ppm == 1.5
    assert changed.bus is not None and changed.bus.slot == "16us"
    assert dev.processor("leaf").clock == "4MHz"  # the base is left alone
    assert changed.source_dir == dev.source_dir
    s = apply(sc.Scenario.load(HELLO_SCENARIO), {"measure.profile_top": 3, "energy.voltage_range": None})
    assert s.measure is not None and s.measure.profile_top == 3
    assert s.energy is not None and s.energy.voltage_range is None
    assert "voltage_range" not in s.text() and "profile_top = 3" in s.text()
    odd = apply(sc.Scenario(extra={"colour": "red"}), {"colour": None, "shade": 2})
    assert odd.extra == {"shade": 2}
    with pytest.raises(KeyError, match="processor.nope.clock: no element 'nope'"):
        apply(dev, {"processor.nope.clock": "1MHz"})


def test_sweep_table() -> None:
    df = cairn.sweep(HELLO_SCENARIO, {"clock": ["4MHz", "25MHz"]}, seeds=[0, 1], max_time="500ms",
                     extract=energy_and_lines, cache=False, workers=2, progress=False)  # fmt: skip
    assert list(df.columns) == ["clock", "seed", "energy_j", "lines", "run_key"]
    assert list(df["clock"]) == ["4MHz", "4MHz", "25MHz", "25MHz"] and list(df["seed"]) == [0, 1, 0, 1]
    # hello draws nothing random: the seed changes nothing
    assert (df.groupby("clock")[["energy_j", "lines"]].nunique() == 1).all().all()
    assert list(df[df["clock"] == "25MHz"]["lines"]) == [3, 3]  # built for 25 MHz: 125, 250, 375 ms
    e = df.groupby("clock")["energy_j"].first()
    assert e["25MHz"] > e["4MHz"]


def _counting_sim(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "invocations"
    wrapper = tmp_path / "cairn-sim"
    wrapper.write_text(f'#!/bin/sh\necho run >> "{log}"\nexec "{sim_binary().resolve()}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def _runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_cache_hit_runs_nothing_and_a_firmware_byte_invalidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, log = _counting_sim(tmp_path)
    monkeypatch.setenv("CAIRN_SIM", str(wrapper))
    elf = tmp_path / "hello.elf"
    shutil.copy(firmware_dir() / "hello.elf", elf)
    base = sc.Scenario.load(HELLO_SCENARIO)
    base.firmware = str(elf)
    kw = dict(seeds=[0], max_time="200ms", cache=tmp_path / "cache", workers=2, progress=False)
    first = cairn.sweep(base, {"clock": ["4MHz", "8MHz", "16MHz"]}, **kw)  # type: ignore[arg-type]
    assert _runs(log) == 3
    again = cairn.sweep(base, {"clock": ["4MHz", "8MHz", "16MHz"]}, **kw)  # type: ignore[arg-type]
    assert _runs(log) == 3
    assert again.equals(first)
    more = cairn.sweep(base, {"clock": ["4MHz", "8MHz", "16MHz", "32MHz"]}, **kw)  # type: ignore[arg-type]
    assert _runs(log) == 4 and more.iloc[:3].equals(first)
    # One byte of the ELF's .comment text (the compiler's name): the same program, another file.
    data = bytearray(elf.read_bytes())
    at = data.index(b"GCC: (")
    data[at] = ord("g")
    elf.write_bytes(bytes(data))
    changed = cairn.sweep(base, {"clock": ["4MHz", "8MHz", "16MHz"]}, **kw)  # type: ignore[arg-type]
    assert _runs(log) == 7
    assert (changed["status"] == 124).all()
    assert not set(changed["run_key"]) & set(first["run_key"])
    assert changed.drop(columns="run_key").equals(first.drop(columns="run_key"))
    assert cairn.load_run(first["run_key"][0], tmp_path / "cache").stats.loc[0, "clock_hz"] == 4_000_000


def test_dask_gives_the_local_pools_table() -> None:
    from distributed import Client, LocalCluster

    axes = {"processor.leaf.clock": ["4MHz", "8MHz"], "bus.slot": ["8us", "16us"]}
    local = cairn.sweep(PINGPONG, axes, seeds=[0, 3], cache=False, workers=2, progress=False)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)  # type: ignore[no-untyped-call]
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        on_dask = cairn.sweep(PINGPONG, axes, seeds=[0, 3], cache=False, client=client, progress=False)
        assert len(client.scheduler_info()["workers"]) == 2
        by_address = cairn.sweep(PINGPONG, axes, seeds=[0, 3], cache=False, client=cluster.scheduler_address,
                                 progress=False)  # fmt: skip
    assert by_address.equals(local)
    assert on_dask.equals(local)
    assert len(local) == 8 and (local["status"] == 0).all()
    assert local["simulated_seconds"].nunique() > 1  # the points change the runs


def test_option_keys_and_configure() -> None:
    elf = firmware_dir() / "hello.elf"
    df = cairn.sweep(elf, [{"--max-time": "130ms"}, {"--max-time": "260ms"}], cache=False, workers=1, progress=False,
                     extract=lambda r: {"lines": r.console.count("Hello World")})  # fmt: skip
    assert list(df["--max-time"]) == ["130ms", "260ms"] and list(df["lines"]) == [1, 2]

    def on_clock(base: object, mhz: int) -> sc.Scenario:
        return sc.Scenario(firmware=str(elf), clock=f"{mhz}MHz")

    df = cairn.sweep(None, {"mhz": [5, 25]}, configure=on_clock, max_time="10ms", cache=False, workers=2, progress=False)
    assert list(df["cycles"]) == [50_000, 250_000]
    with pytest.raises(ValueError, match="needs configure="):
        cairn.sweep(elf, {"clock": ["4MHz"]}, cache=False, progress=False)


def test_a_worker_refuses_another_simulator() -> None:
    import cloudpickle

    from cairn.experiment import make_spec
    from cairn.experiment.worker import work

    spec = make_spec(firmware_dir() / "hello.elf", max_time="1ms")
    with pytest.raises(RuntimeError, match="is not the sweep's"):
        work(spec, cloudpickle.dumps(default_metrics), "0" * 64)


def _fails_at_8mhz(r: Result) -> dict[str, object]:
    if r.stats.loc[0, "clock_hz"] == 8_000_000:
        raise ValueError("this metric cannot be computed")
    return default_metrics(r)


def test_a_sweep_that_stops_keeps_its_finished_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, log = _counting_sim(tmp_path)
    monkeypatch.setenv("CAIRN_SIM", str(wrapper))
    kw = dict(max_time="50ms", cache=tmp_path / "cache", workers=1, progress=False)
    with pytest.raises(ValueError, match="cannot be computed"):
        cairn.sweep(HELLO_SCENARIO, {"clock": ["4MHz", "8MHz", "16MHz"]}, extract=_fails_at_8mhz, **kw)  # type: ignore[arg-type]
    ran = _runs(log)
    assert 2 <= ran <= 3  # 4MHz stored; 8MHz ran and failed; 16MHz may have started
    df = cairn.sweep(HELLO_SCENARIO, {"clock": ["4MHz", "8MHz", "16MHz"]}, **kw)  # type: ignore[arg-type]
    assert _runs(log) - ran == 2  # 8MHz (its run was not stored) and 16MHz; not 4MHz
    assert list(df["cycles"]) == [200_000, 400_000, 800_000]
