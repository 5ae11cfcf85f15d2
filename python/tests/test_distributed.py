"""Cairn OS across modules on cairn-sim devices (docs/distributed.md): the pipeline
application (kernel/apps/pipeline) prints the same lines on one module and spread over three
modules, which differ only in the application description's placement; multicast across five
modules (kernel/apps/multicast) is one broadcast per message, delivered on every module by
priority. The simulator's trace alone accounts for every message: each delivery matches its
send, none lost, duplicated or reordered, and a remote hop costs the receiver the same exact
cycles each time."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import cairn
from cairn import net_trace
from cairn.paths import firmware_dir, repo_root

CLOCK_HZ = 25_000_000
PS_PER_CYCLE = 1_000_000_000_000 // CLOCK_HZ
DEVICES = repo_root() / "experiments" / "devices"


def _need(name: str) -> Path:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    return elf


class DeviceRun:
    def __init__(self, device: Path) -> None:
        self.proc = cairn.run(device, ["trace", "bus_log"], timeout=120)
        self.lines = self.proc.console.splitlines()
        trace, log = self.proc.files["trace"], self.proc.files["bus_log"]
        self.trace = net_trace.parse(trace.read_text()) if trace.exists() else net_trace.NetTrace()
        self.frames = list(csv.DictReader(log.read_text().splitlines())) if log.exists() else []

    def describe(self) -> str:
        err = self.proc.stderr.decode(errors="replace")
        return f"status {self.proc.status}\n{self.proc.console[-3000:]}\n{err[-2000:]}"


@pytest.fixture(scope="module")
def pipeline_three() -> DeviceRun:
    _need("pipeline-spread.elf")
    return DeviceRun(DEVICES / "pipeline-three.toml")


def test_the_pipeline_prints_the_same_on_one_module_and_on_three(pipeline_three: DeviceRun) -> None:
    one = cairn.run(_need("pipeline.elf"), [], timeout=120)
    assert one.status == 0, one.describe_failure()
    assert pipeline_three.proc.status == 0, pipeline_three.describe()
    lines = one.console.splitlines()
    assert len(lines) == 9 and lines[-1] == "pipeline done", one.console
    # Spread, every line comes from the logger module, and they are the same lines.
    assert all(line.startswith("logger: ") for line in pipeline_three.lines), pipeline_three.describe()
    assert [line.removeprefix("logger: ") for line in pipeline_three.lines] == lines


def test_every_remote_message_is_matched_to_its_send(pipeline_three: DeviceRun) -> None:
    tr = pipeline_three.trace
    d = net_trace.check(tr, modules=[0, 1, 2])
    assert d.ok(), d
    # 8 samples sensor -> filter and 8 filter -> logger; one frame on the wire each.
    assert len(d.matched) == 16 and len(pipeline_three.frames) == 16
    for (send, recv), row in zip(sorted(d.matched, key=lambda m: m[0].ps), pipeline_three.frames):
        assert (send.src_module, recv.dst_module) == ({"sensor": 0, "filter": 1}[row["src"]], {"filter": 1, "logger": 2}[row["dst"]])
        # The NET_SEND word is logged just after the frame's TX_SEND store (queued); the frame
        # goes in its slot, which may begin before or after that word, and arrives before the
        # receiver hands it on.
        queued, start, arrival = int(row["queued_ps"]), int(row["start_ps"]), int(row["arrival_ps"])
        assert queued < send.ps and queued <= start <= arrival < recv.ps


def test_a_remote_hop_costs_the_receiver_the_same_exact_cycles(pipeline_three: DeviceRun) -> None:
    """From the frame's arrival in the receiver's RX FIFO (bus log) to the first instruction
    of the destination's handler: the receiver sleeps between samples, so its path (wake-up,
    RX interrupt bound to the bus manager, the frame read into a message, dispatch) is the same
    every time, to the cycle. The sender's side (handler's send to the frame queued) too."""
    tr = pipeline_three.trace
    d = net_trace.check(tr, modules=[0, 1, 2])
    pairs = sorted(d.matched, key=lambda m: m[0].ps)
    rx: dict[int, set[int]] = {}
    for (send, recv), row in zip(pairs, pipeline_three.frames):
        start = net_trace.handler_start_after(tr, recv.pid, recv.ps, recv.task)
        assert start % PS_PER_CYCLE == 0, f"handler start {start} ps is not a whole cycle"
        # The receiver sees the frame from its first cycle at or after the arrival.
        arrival = -(-int(row["arrival_ps"]) // PS_PER_CYCLE)
        rx.setdefault(recv.dst_module, set()).add(start // PS_PER_CYCLE - arrival)
    assert set(rx) == {1, 2}
    for module, figures in rx.items():
        assert len(figures) == 1, f"module {module}: frame arrival -> handler took {sorted(figures)} cycles"
    # The filter's and the logger's modules run the same receive path.
    assert rx[1] == rx[2], rx
    print(f"frame arrival -> remote handler: {rx} cycles")


def test_multicast_across_five_modules() -> None:
    _need("multicast.elf")
    r = DeviceRun(DEVICES / "multicast-five.toml")
    assert r.proc.status == 0, r.describe()
    # Members: module -> [(name, priority)] as kernel/apps/multicast places them.
    members = {0: [("a", 2), ("b", 4)], 1: [("c", 1)], 2: [("d", 1), ("e", 5)], 3: [("f", 3)], 4: [("g", 2)]}
    for module, mine in members.items():
        got = [line for line in r.lines if line.startswith(f"m{module}: m{module} ")]
        order = [n for n, _ in sorted(mine, key=lambda m: -m[1])]
        want = [f"m{module}: m{module} {n} prio {p} got {k}" for k in range(1, 5) for n, p in
                sorted(mine, key=lambda m: order.index(m[0]))]
        assert got == want, r.describe()
    assert r.lines[-1] == "m0: multicast done"
    # One broadcast frame per message; every other module delivered each once, in order.
    assert [f["dst"] for f in r.frames] == ["*"] * 4
    d = net_trace.check(r.trace, modules=[0, 1, 2, 3, 4])
    assert d.ok(), d
    assert len(d.matched) == 4 * 4
    assert sorted(f.seq for f in r.trace.sent) == [0, 1, 2, 3]
