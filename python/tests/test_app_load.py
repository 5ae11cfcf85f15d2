"""An application loaded at run time (docs/distributed.md, "Applications"): three modules boot
build/fw/pipeline-load.elf with no application; module 0's loader hands the spread pipeline's
description to its application manager, which patches it, broadcasts it to the other modules'
managers, and starts it on all three once each has acknowledged. The logger prints what the
built-in description prints; a module cut off from the bus is reported, and nothing starts."""

from __future__ import annotations

from pathlib import Path

import pytest

import cairn
from cairn import app_load
from cairn.app_load import Sizes
from cairn.paths import firmware_dir, repo_root

DEVICES = repo_root() / "experiments" / "devices"


def _need(name: str) -> Path:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    return elf


class Load:
    def __init__(self, device: str) -> None:
        _need("pipeline-load.elf")
        r = app_load.run(DEVICES / device)
        self.status = r.status
        self.lines = r.console.splitlines()
        self.frames = r.frames
        self.n = app_load.description_bytes(r.console)
        self.described = f"status {r.status}\n{r.console[-3000:]}\n{r.stderr[-2000:]}"

    def of(self, processor: str) -> list[str]:
        return [line.removeprefix(f"{processor}: ") for line in self.lines if line.startswith(f"{processor}: ")]


@pytest.fixture(scope="module")
def loaded() -> Load:
    return Load("pipeline-load.toml")


@pytest.fixture(scope="module")
def cut() -> Load:
    return Load("pipeline-load-cut.toml")


def test_loaded_at_run_time_it_prints_what_the_built_in_description_prints(loaded: Load) -> None:
    one = cairn.run(_need("pipeline.elf"), timeout=120)
    assert one.status == 0, one.console
    built_in = one.console.splitlines()
    assert built_in[-1] == "pipeline done" and len(built_in) > 1
    assert loaded.status == 0, loaded.described
    assert loaded.of("logger") == built_in
    assert loaded.of("filter") == []
    n = loaded.n
    assert loaded.of("sensor") == [f"loader: {n} bytes to the application manager",
                                   "loader: started on modules 0 1 2 as tasks 1 2 3"]


def test_the_description_is_broadcast_then_every_module_is_initialised(loaded: Load) -> None:
    sizes = Sizes.of(loaded.n)
    manager = [f for f in loaded.frames if sizes.kind(f)]
    kinds = [(f["src"], f["dst"], sizes.kind(f)) for f in manager]
    # One DESC to each other module, each acknowledged; then INIT to each, each acknowledged.
    assert sorted(kinds[:4]) == sorted([("sensor", "filter", "DESC"), ("sensor", "logger", "DESC"),
                                        ("filter", "sensor", "ACK"), ("logger", "sensor", "ACK")]), kinds
    assert sorted(kinds[4:]) == sorted([("sensor", "filter", "STEP"), ("sensor", "logger", "STEP"),
                                        ("filter", "sensor", "ACK"), ("logger", "sensor", "ACK")]), kinds
    # Two stages across modules: no INIT leaves before every module has acknowledged the
    # description, and the application's first message comes after the first INIT.
    steps = app_load.steps(loaded.frames, sizes)
    assert steps.desc_queued_ps < steps.desc_acked_ps < steps.init_queued_ps < steps.init_acked_ps
    assert steps.first_message_ps is not None and steps.first_message_ps > steps.init_queued_ps
    assert not any(f["dropped"] != "0" for f in loaded.frames)
    print(steps.summary())


def test_a_module_that_does_not_answer_is_reported_and_nothing_starts(cut: Load) -> None:
    tries = app_load.define("kernel/apps/pipeline/pipeline.c", "TRIES")
    edown = app_load.define("kernel/include/cairn/types.h", "CAIRN_EDOWN")
    assert cut.status == 3, cut.described
    n = cut.n
    assert cut.of("sensor")[1:] == [f"loader: failed at step 3, error {edown}, modules 2"]
    assert cut.of("logger") == [] and cut.of("filter") == []
    sizes = Sizes.of(n)
    desc, step = sizes.desc, sizes.step
    to_logger = [(int(f["bytes"]), f["dropped"]) for f in cut.frames if f["dst"] == "logger"]
    # Every try lost, then the DROP that follows the report, lost too.
    assert to_logger == [(desc, "1")] * tries + [(step, "1")]
    # The filter's module took the description and acknowledged it; it is told to drop it
    # after the last try, and no application message is ever sent.
    to_filter = [(f["src"], f["dst"], int(f["bytes"])) for f in cut.frames if "logger" not in (f["src"], f["dst"])]
    assert to_filter == [("sensor", "filter", desc), ("filter", "sensor", sizes.ack),
                         ("sensor", "filter", step)]


def test_a_module_powered_off_is_woken_by_the_description_and_answers_a_resend_once() -> None:
    off = Load("pipeline-load-off.toml")
    assert off.status == 0, off.described
    loaded = Load("pipeline-load.toml")
    assert off.of("logger") == loaded.of("logger")
    assert off.of("sensor") == loaded.of("sensor")
    sizes = Sizes.of(off.n)
    to_logger = [sizes.kind(f) for f in off.frames if f["dst"] == "logger"]
    from_logger = [sizes.kind(f) for f in off.frames if f["src"] == "logger"]
    # The first DESC woke it; the resend sent while it booted is answered too: two ACKs for
    # two DESCs, then INIT and its ACK, then the application's frames (kind None).
    assert to_logger[:3] == ["DESC", "DESC", "STEP"], to_logger
    assert from_logger[:3] == ["ACK", "ACK", "ACK"], from_logger
    assert set(to_logger[3:]) == {None} and set(from_logger[3:]) <= {None}


def test_app_load_refuses_a_missing_device_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.toml"
    assert app_load.main(["--device", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"app_load: {missing}: "), err


def test_app_load_times_the_load_and_fails_on_a_failed_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert app_load.main([]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("load: broadcast ")
    assert app_load.main(["--device", str(DEVICES / "pipeline-load-cut.toml")]) == 1
