"""cairn.run and Result: one cairn-sim run, its outputs read into DataFrames."""

from __future__ import annotations

from pathlib import Path

import pytest

import cairn
from cairn import scenario as sc
from cairn.experiment import MissingOutput, SimulationError
from cairn.paths import firmware_dir, repo_root

DEVICES = repo_root() / "experiments" / "devices"
HELLO_SCENARIO = repo_root() / "experiments" / "hello-energy" / "scenario.toml"


def test_bare_elf_console_and_limit() -> None:
    r = cairn.run(firmware_dir() / "hello.elf", max_time="400ms")
    assert r.status == 124 and r.ok
    # The time stamps include the timer's general path to its handler (docs/kernel.md).
    assert r.console.splitlines() == ["125.293 Hello World", "250.293 Hello World", "375.293 Hello World"]
    assert r.stats.loc[0, "processor"] == "cpu0"
    assert r.stats.loc[0, "cycles"] == 10_000_000  # 400 ms at the board's 25 MHz


def test_device_outputs_agree_with_each_other() -> None:
    r = cairn.run(DEVICES / "pingpong.toml", ["stats", "trace", "bus_log", "vcd", "console"])
    assert r.status == 0
    assert list(r.stats["processor"]) == ["hub", "leaf"]
    frames = r.device_stats["bus.frames"]
    assert frames > 0 and len(r.bus) == frames
    tx = r.trace_slices[r.trace_slices["track"] == "bus tx"]
    assert len(tx) == frames
    assert set(tx["processor"]) == {"hub", "leaf"}
    assert {"pingpong.hub.state", "pingpong.bus.busy"} <= set(r.vcd["signal"])
    # With the console output, each processor's lines go to its file, unprefixed.
    plain = cairn.run(DEVICES / "pingpong.toml")
    hub_lines = [line.removeprefix("hub: ") for line in plain.console.splitlines() if line.startswith("hub: ")]
    assert hub_lines and r.console_of("hub").splitlines() == hub_lines
    assert "hub: " not in r.console
    e = r.energy
    for name, st in r.processor_stats.items():
        mine = e[(e["processor"] == name) & (e["breakdown"] == "task")]
        assert int(mine["fj"].sum()) == st["energy_fj"]["total"]


def test_scenario_with_stimuli_io_log_and_tasks() -> None:
    s = sc.Scenario.load(HELLO_SCENARIO)
    s.stimuli = [sc.Stimulus(kind="periodic", period="1ms", name="tick")]
    s.pins = {"marker": sc.Pin(index=0)}
    r = cairn.run(s, ["stats", "trace", "io_log"], max_time="300ms")
    assert r.status == 124
    fired = r.processor_stats["cpu0"]["io"]["stimuli"]["tick"]["fired"]
    assert fired >= 299  # one every ms up to 300 ms (the limit can end the run on the 300th firing's cycle)
    assert (r.io["kind"] == "stimulus").sum() == fired
    assert list(r.ports["port"]) == ["marker"]
    tasks = r.tasks.set_index("task")
    assert (tasks.loc[["task1"], ["runs", "busy_us"]] > 0).all().all()
    assert {"kernel", "task1", "task2"} <= set(tasks.index)
    assert r.energy[r.energy["breakdown"] == "task"]["joules"].sum() == pytest.approx(r.stats.loc[0, "energy_joules.total"])


def test_outputs_not_asked_for_are_refused() -> None:
    r = cairn.run(firmware_dir() / "hello.elf", max_time="10ms")
    with pytest.raises(MissingOutput, match="not asked for 'trace'"):
        r.trace_slices
    with pytest.raises(ValueError, match="unknown output 'waves'"):
        cairn.run(firmware_dir() / "hello.elf", ["waves"])


def test_failure_is_cairn_sims_line() -> None:
    s = sc.Scenario.load(HELLO_SCENARIO)
    s.extra["colour"] = "red"
    r = cairn.run(s)
    assert r.status == 2 and not r.ok
    with pytest.raises(SimulationError, match="status 2: cairn-sim: scenario.toml: colour: unknown key"):
        r.raise_for_status()
    with pytest.raises(SimulationError):
        cairn.run(s, check=True)
    with pytest.raises(MissingOutput, match="cairn-sim wrote no 'stats': cairn-sim exited with status 2: "):
        r.stats


def test_out_dir_is_a_record_of_the_run(tmp_path: Path) -> None:
    r = cairn.run(HELLO_SCENARIO, ["stats", "vcd"], max_time="10ms", out_dir=tmp_path / "run")
    assert r.folder == tmp_path / "run"
    assert (r.folder / "scenario.toml").is_file()
    assert (r.folder / "inputs" / "hello.elf").read_bytes() == (firmware_dir() / "hello.elf").read_bytes()
    again = cairn.run(r.folder / "scenario.toml", ["stats", "vcd"], max_time="10ms")
    assert (again.folder / "run.vcd").read_bytes() == (r.folder / "run.vcd").read_bytes()


def test_a_temporary_run_folder_goes_with_its_result() -> None:
    r = cairn.run(firmware_dir() / "hello.elf", max_time="10ms")
    folder = r.folder
    assert folder.is_dir()
    del r
    assert not folder.exists()


def test_waveform_io_log_and_delay_table_agree() -> None:
    s = sc.Scenario.load(HELLO_SCENARIO)
    s.stimuli = [sc.Stimulus(kind="poisson", rate_hz=500.0, name="req")]
    s.pins = {"led": sc.Pin(index=1)}
    s.io = sc.Io(delays=[sc.IoDelay(stimulus="req", response="led", deadline="1ms")])
    r = cairn.run(s, ["stats", "io_log", "vcd"], max_time="100ms", seed=7)
    firings = r.io[r.io["kind"] == "stimulus"]
    changes = r.vcd[r.vcd["signal"] == "cairn.stimulus.req"]
    changes = changes[changes["time_ps"] > 0]  # the dump's initial value at time 0
    # 25 MHz: a cycle is 40,000 ps exactly, so the waveform's times are the log's cycles.
    assert list(changes["time_ps"]) == [c * 40_000 for c in firings["cycle"]]
    assert list(changes["value"]) == list(firings["value"])
    d = r.delays.set_index("name").loc["req->led"]
    assert d["stimuli"] == len(firings) > 10
    assert d["answered"] + d["unanswered"] == d["stimuli"]  # hello never drives the led
    again = cairn.run(s, ["io_log"], max_time="100ms", seed=8)
    assert list(again.io["cycle"]) != list(r.io["cycle"])  # the seed draws the Poisson times


def test_a_devices_io_log_and_waveform_have_each_processors_io() -> None:
    fw = str(firmware_dir() / "test-io_response.elf")
    stimuli = [sc.Stimulus(kind="periodic", period="200us", start="150us", count=20, line=0, name="request")]
    procs = [
        sc.Processor(name=name, firmware=fw, clock=clock, stimuli=stimuli, pins={"toggle": sc.Pin(index=0)},
                     ports={"answer": sc.Port(index=0)})
        for name, clock in (("slow", "25MHz"), ("fast", "50MHz"))
    ]  # fmt: skip
    r = cairn.run(sc.Device(name="pair", processors=procs), ["stats", "io_log", "vcd"], check=True)
    io = r.io
    assert list(io.columns) == ["cycle", "time_s", "processor", "kind", "name", "value"]
    assert io["time_s"].is_monotonic_increasing
    for name, cycles_per_us in (("slow", 25), ("fast", 50)):
        mine = io[io["processor"] == name]
        answers = mine[mine["name"] == "answer"]
        assert list(answers["value"]) == list(range(1, 21))  # each firing answered with its sequence number
        changes = r.vcd[r.vcd["signal"] == f"pair.{name}.ports.answer"]
        changes = changes[changes["time_ps"] > 0]
        assert list(changes["time_ps"]) == [c * 1_000_000 // cycles_per_us for c in answers["cycle"]]
        toggles = r.vcd[(r.vcd["signal"] == f"pair.{name}.gpio.toggle") & (r.vcd["time_ps"] > 0)]
        assert len(toggles) == (mine["kind"] == "gpio").sum() > 20
    alone = cairn.run(fw, ["io_log"], options=["--io", str(repo_root() / "kernel/tests/sim/io_response.toml")])
    assert list(alone.io["processor"].unique()) == ["cpu0"]
    slow = io[io["processor"] == "slow"].drop(columns="processor").reset_index(drop=True)
    assert slow.equals(alone.io.drop(columns="processor"))
