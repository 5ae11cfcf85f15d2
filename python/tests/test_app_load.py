"""An application loaded at run time (docs/distributed.md, "Applications"): three modules boot
build/fw/pipeline-load.elf with no application; module 0's loader hands the spread pipeline's
description to its application manager, which patches it, broadcasts it to the other modules'
managers, and starts it on all three once each has acknowledged. The logger prints what the
built-in description prints; a module cut off from the bus is reported, and nothing starts."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import cairn
from cairn.paths import firmware_dir, repo_root

DEVICES = repo_root() / "experiments" / "devices"


def _define(path: str, name: str) -> int:
    text = (repo_root() / path).read_text()
    m = re.search(rf"#define {name} \(?(-?\d+)u?\)?", text)
    assert m, f"{name} not in {path}"
    return int(m.group(1))


NET_HEADER = _define("kernel/include/cairn/net.h", "CAIRN_NET_HEADER")
#: kind, load number, loading module, its boot epoch (then the description, for DESC)
PEER_HEAD = _define("kernel/include/cairn/appmgr.h", "CAIRN_APPMGR_PEER_HEAD")
#: kind, load number, answering module, status, the loader's epoch
ACK_BYTES = _define("kernel/include/cairn/appmgr.h", "CAIRN_APPMGR_ACK_LEN")


def _need(name: str) -> Path:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    return elf


class Load:
    def __init__(self, device: str) -> None:
        _need("pipeline-load.elf")
        r = cairn.run(DEVICES / device, ["bus_log"], timeout=120)
        self.status = r.status
        self.lines = r.console.splitlines()
        with r.files["bus_log"].open() as f:
            self.frames = list(csv.DictReader(f))
        self.described = f"status {r.status}\n{r.console[-3000:]}\n{r.stderr.decode(errors='replace')[-2000:]}"

    def of(self, processor: str) -> list[str]:
        return [line.removeprefix(f"{processor}: ") for line in self.lines if line.startswith(f"{processor}: ")]

    def description_bytes(self) -> int:
        sent = [int(m.group(1)) for line in self.of("sensor") if (m := re.fullmatch(r"loader: (\d+) bytes to the application manager", line))]
        assert len(sent) == 1, self.described
        return sent[0]


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
    n = loaded.description_bytes()
    assert loaded.of("sensor") == [f"loader: {n} bytes to the application manager",
                                   "loader: started on modules 0 1 2 as tasks 1 2 3"]


def test_the_description_is_broadcast_then_every_module_is_initialised(loaded: Load) -> None:
    n = loaded.description_bytes()
    desc, ack, step = NET_HEADER + PEER_HEAD + n, NET_HEADER + ACK_BYTES, NET_HEADER + PEER_HEAD
    manager = [f for f in loaded.frames if int(f["bytes"]) in (desc, ack, step)]
    kinds = [(f["src"], f["dst"], {desc: "DESC", ack: "ACK", step: "INIT"}[int(f["bytes"])]) for f in manager]
    # One DESC to each other module, each acknowledged; then INIT to each, each acknowledged.
    assert sorted(kinds[:4]) == sorted([("sensor", "filter", "DESC"), ("sensor", "logger", "DESC"),
                                        ("filter", "sensor", "ACK"), ("logger", "sensor", "ACK")]), kinds
    assert sorted(kinds[4:]) == sorted([("sensor", "filter", "INIT"), ("sensor", "logger", "INIT"),
                                        ("filter", "sensor", "ACK"), ("logger", "sensor", "ACK")]), kinds
    # Two stages across modules: no INIT leaves before every module has acknowledged the
    # description, and no message of the application before the first INIT.
    acks = [int(f["arrival_ps"]) for f in manager[:4] if f["dst"] == "sensor"]
    inits = [int(f["queued_ps"]) for f in manager[4:] if f["src"] == "sensor"]
    assert max(acks) < min(inits)
    data = [f for f in loaded.frames if f not in manager]
    assert data and all(int(f["queued_ps"]) > min(inits) for f in data)
    assert not any(f["dropped"] != "0" for f in loaded.frames)


def test_a_module_that_does_not_answer_is_reported_and_nothing_starts(cut: Load) -> None:
    tries = _define("kernel/apps/pipeline/pipeline.c", "TRIES")
    edown = _define("kernel/include/cairn/types.h", "CAIRN_EDOWN")
    assert cut.status == 3, cut.described
    n = cut.description_bytes()
    assert cut.of("sensor")[1:] == [f"loader: failed at step 3, error {edown}, modules 2"]
    assert cut.of("logger") == [] and cut.of("filter") == []
    desc, step = NET_HEADER + PEER_HEAD + n, NET_HEADER + PEER_HEAD
    to_logger = [(int(f["bytes"]), f["dropped"]) for f in cut.frames if f["dst"] == "logger"]
    # Every try lost, then the DROP that follows the report, lost too.
    assert to_logger == [(desc, "1")] * tries + [(step, "1")]
    # The filter's module took the description and acknowledged it; it is told to drop it
    # after the last try, and no application message is ever sent.
    to_filter = [(f["src"], f["dst"], int(f["bytes"])) for f in cut.frames if "logger" not in (f["src"], f["dst"])]
    assert to_filter == [("sensor", "filter", desc), ("filter", "sensor", NET_HEADER + ACK_BYTES),
                         ("sensor", "filter", step)]
