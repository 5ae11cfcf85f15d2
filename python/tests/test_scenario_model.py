"""cairn.scenario: the typed scenario and device files write the TOML cairn-sim reads, read
it back, and are checked by cairn-sim itself."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from cairn import scenario as sc
from cairn.experiment.firmware import build_firmware
from cairn.paths import firmware_dir, repo_root
from cairn.runners import run_cairn_sim
from cairn.scenario.toml_text import dumps

EXPERIMENTS = sorted((repo_root() / "experiments").rglob("*.toml"))
#: files cairn-sim runs as they are (the fault campaign's files hold only a seed and faults;
#: experiments/bench/io_load.toml is an I/O section, checked with a firmware below)
RUNNABLE = [p for p in EXPERIMENTS if p.parent.name in ("devices", "hello-energy") or p.name == "distributed.toml"]


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(repo_root() / "experiments")) for p in paths]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=_ids(EXPERIMENTS))
def test_round_trip_of_the_experiment_files(path: Path, tmp_path: Path) -> None:
    original = tomllib.loads(path.read_text())
    model = sc.load(path)
    assert isinstance(model, sc.Device) == ("processor" in original)
    assert tomllib.loads(model.text()) == original
    assert tomllib.loads(type(model).parse(model.text()).text()) == original
    # Written in its own folder, its paths are kept as they were.
    same = tmp_path / "same.toml"
    model.source_dir = tmp_path
    model.write(same)
    assert tomllib.loads(same.read_text()) == original


@pytest.mark.parametrize("path", RUNNABLE, ids=_ids(RUNNABLE))
def test_cairn_sim_accepts_them_written_anywhere(path: Path, tmp_path: Path) -> None:
    model = sc.load(path)
    model.check()
    elsewhere = tmp_path / "deeper" / path.name
    elsewhere.parent.mkdir()
    model.write(elsewhere)
    again = sc.load(elsewhere)
    again.check()
    assert again.files() == model.files()


def test_typed_fields() -> None:
    dev = sc.Device.load(repo_root() / "experiments" / "devices" / "pingpong.toml")
    assert dev.bus is not None and dev.bus.slot == "8us"
    hub = dev.processor("hub")
    assert hub.energy is not None and hub.energy.profile == "stm32l053"
    assert hub.rtc_ppm == 20.0
    with pytest.raises(KeyError, match="no processor named 'nope'"):
        dev.processor("nope")
    io = sc.Scenario.load(repo_root() / "experiments" / "bench" / "io_load.toml")
    assert io.stimuli is not None and [s.kind for s in io.stimuli] == ["periodic", "poisson"]
    assert io.pins is not None and io.pins["marker"].index == 0
    (bench_cpu,) = build_firmware("bench_cpu")
    io.check(firmware=bench_cpu)


def test_a_scenario_built_in_code() -> None:
    s = sc.Scenario(
        firmware=str(firmware_dir() / "hello.elf"),
        clock="16MHz",
        memory=sc.Memory(flash="256K", sram="64K"),
        energy=sc.Energy(profile="stm32l053", voltage_range=2),
        categories={"app": ["hello_*", "timer_task"]},
        stimuli=[sc.Stimulus(kind="periodic", period="1ms", name="tick")],
        pins={"led": sc.Pin(index=3, edge="both")},
        io=sc.Io(delays=[sc.IoDelay(stimulus="tick", response="led", deadline="100us")]),
    )
    assert tomllib.loads(s.text()) == {
        "firmware": str(firmware_dir() / "hello.elf"),
        "clock": "16MHz",
        "memory": {"flash": "256K", "sram": "64K"},
        "energy": {"profile": "stm32l053", "voltage_range": 2},
        "categories": {"app": ["hello_*", "timer_task"]},
        "stimulus": [{"kind": "periodic", "period": "1ms", "name": "tick"}],
        "pin": {"led": {"index": 3, "edge": "both"}},
        "io": {"delay": [{"stimulus": "tick", "response": "led", "deadline": "100us"}]},
    }
    s.check()


def _sim_says(text: str, name: str, tmp_path: Path) -> str:
    """cairn-sim's own last stderr line for a file of this text and name."""
    d = tmp_path / "direct"
    d.mkdir(exist_ok=True)
    (d / name).write_text(text)
    r = run_cairn_sim(["run", "--device", name, "--max-time", "0"], cwd=d)
    assert r.status == 2, r.describe()
    return r.stderr.decode().strip().splitlines()[-1]


def test_bad_key_gives_cairn_sims_line(tmp_path: Path) -> None:
    s = sc.Scenario.load(repo_root() / "experiments" / "hello-energy" / "scenario.toml")
    s.extra["colour"] = "red"
    with pytest.raises(sc.ScenarioError) as e:
        s.check()
    assert str(e.value) == _sim_says(s.resolved().text(), "scenario.toml", tmp_path)
    assert str(e.value).startswith("cairn-sim: scenario.toml: colour: unknown key (known: board, clock")


def test_bad_values_give_cairn_sims_lines(tmp_path: Path) -> None:
    s = sc.Scenario.load(repo_root() / "experiments" / "hello-energy" / "scenario.toml")
    assert s.energy is not None
    s.energy.profile = "foo"
    with pytest.raises(sc.ScenarioError, match=r'^cairn-sim: scenario.toml: energy.profile: unknown profile "foo"'):
        s.check()
    dev = sc.Device.load(repo_root() / "experiments" / "devices" / "pingpong.toml")
    dev.processor("leaf").extra["colour"] = "red"
    with pytest.raises(sc.ScenarioError) as e:
        dev.check()
    assert str(e.value) == _sim_says(dev.resolved().text(), "pingpong.toml", tmp_path)
    assert "colour" in str(e.value)


def test_missing_firmware_is_cairn_sims_error(tmp_path: Path) -> None:
    elf = tmp_path / "gone.elf"
    shutil.copy(firmware_dir() / "hello.elf", elf)
    s = sc.Scenario(firmware=str(elf))
    s.check()
    elf.unlink()
    with pytest.raises(sc.ScenarioError, match="gone.elf"):
        s.check()


def test_toml_text_quotes_what_it_must() -> None:
    doc = {
        "s": 'a "quoted"\\ line\nand\ttab \x01 é',
        "categories": {"file:heap.c": ["x"], "plain": "y"},
        "n": [1, 2.5, True, "z"],
        "t": [{"a": 1, "inner": {"b": [{"c": 2}]}}, {"a": 3}],
        "inline": [{"at": "1ms", "value": 3}, 4],
        "empty": {},
        "only_tables": {"a": {"x": 1}, "b": {"y": 2}},
    }
    assert tomllib.loads(dumps(doc)) == doc
    assert "[only_tables]" not in dumps(doc) and "[empty]" in dumps(doc)
    import numpy as np

    assert tomllib.loads(dumps({"n": np.int64(3), "x": np.float32(0.5), "l": list(np.arange(2))})) == {
        "n": 3, "x": 0.5, "l": [0, 1],
    }  # fmt: skip
