"""The distributed benchmark (kernel/apps/net_bench on experiments/bench/distributed.toml,
python/cairn/bench/distributed.py, which `make bench` runs to write
build/bench/distributed.json): its figures are exact and add up, the bus part is what the bus
parameters give, and the latency targets hold on the production build (event log compiled
out). cairn-sim is cycle-exact, so these are deterministic guards, not timing tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cairn.bench import distributed
from cairn.paths import firmware_dir, repo_root, sim_binary

DEVICE = repo_root() / "experiments" / "bench" / "distributed.toml"


def _elf(name: str) -> Path:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    return elf


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    return distributed.measure(str(sim_binary()), DEVICE, _elf("net-bench-notrace.elf"))


def test_distributed_figures_are_exact_and_add_up(production: dict[str, Any]) -> None:
    f = production["figures"]
    for name in ("local_send_to_handler_cycles", "remote_send_to_handler_cycles",
                 "remote_send_to_handler_bus_cycles", "remote_send_return_cycles", "distributed_text_bytes"):
        assert isinstance(f[name], int) and f[name] > 0, f"{name} = {f[name]!r}"
    assert f["marker_overhead_cycles"] == 2  # one STR
    assert f["remote_send_to_handler_cycles"] == (
        f["remote_send_to_handler_sender_cycles"] + f["remote_send_to_handler_bus_cycles"]
        + f["remote_send_to_handler_receiver_cycles"])
    # The frame's time on the wire is exactly the bus parameters' (default bus: 18 bytes at
    # 64 MB/s, then 500 ns); the rest of the bus part is the wait for the sender's slot, at most
    # a TDMA round of five 8 us slots (320 cycles at 8 MHz).
    assert f["remote_frame_wire_ps"] == f["remote_frame_wire_ps_from_bus_parameters"] == 781_250
    wire_cycles = -(-f["remote_frame_wire_ps"] // distributed.PS_PER_CYCLE)
    assert wire_cycles <= f["remote_send_to_handler_bus_cycles"] <= wire_cycles + 5 * 64 + 1
    # The sender returns once the frame is in the controller, before it reaches the other module.
    assert f["remote_send_to_handler_sender_cycles"] < f["remote_send_return_cycles"] < f["remote_send_to_handler_cycles"]
    groups = f["multicast_cycles_by_group_size"]
    assert sorted(groups) == [str(g) for g in range(1, distributed.PROBES + 1)]
    assert all(c > f["remote_send_to_handler_bus_cycles"] for c in groups.values()), groups
    per_obj = f["distributed_per_object"]
    assert "boards/mps2-an385/bus_driver.o" in per_obj and "core/net/bus_manager.o" in per_obj, per_obj


def test_distributed_figures_are_deterministic(production: dict[str, Any]) -> None:
    again = distributed.measure(str(sim_binary()), DEVICE, _elf("net-bench-notrace.elf"))
    assert again["figures"] == production["figures"], "two runs differ"


def test_the_local_fast_path_keeps_its_cycles_with_the_bus_manager_linked(production: dict[str, Any]) -> None:
    f, t = production["figures"], production["targets"]
    assert f["local_send_to_handler_cycles"] <= t["local_send_to_handler_cycles_max"], f


def test_the_event_log_costs_the_remote_path_a_few_stores(production: dict[str, Any]) -> None:
    traced = distributed.measure(str(sim_binary()), DEVICE, _elf("net-bench.elf"))["figures"]
    f = production["figures"]
    # The slot wait differs (the frame is queued at another point of the TDMA round), the wire does not.
    assert traced["remote_frame_wire_ps"] == f["remote_frame_wire_ps"]
    assert traced["remote_send_to_handler_receiver_cycles"] > f["remote_send_to_handler_receiver_cycles"]
    # The send's fast path writes its NET_SEND words after TX_SEND: up to it, the log costs nothing.
    assert traced["remote_send_to_handler_sender_cycles"] == f["remote_send_to_handler_sender_cycles"]


def test_remote_send_to_handler_meets_the_target(production: dict[str, Any]) -> None:
    f, t = production["figures"], production["targets"]
    limit = t["remote_send_to_handler_beyond_bus_cycles_max"]
    assert f["remote_send_to_handler_beyond_bus_cycles"] <= limit, (
        f"remote send -> handler {f['remote_send_to_handler_cycles']} cycles, bus "
        f"{f['remote_send_to_handler_bus_cycles']}: {f['remote_send_to_handler_beyond_bus_cycles']} beyond "
        f"the bus, target <= {limit}")


def test_status_block_takes_the_distributed_figures_and_keeps_sections_not_rerun(tmp_path: Path) -> None:
    """status.py renders distributed.json into the STATUS bench block; a section whose JSON
    this run did not write keeps its previous lines."""
    from cairn.bench import status

    result = distributed.build_result(str(sim_binary()), DEVICE, _elf("net-bench.elf"), _elf("net-bench-notrace.elf"))
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "distributed.json").write_text(json.dumps(result))
    doc = tmp_path / "STATUS.md"
    old_sim = ["Latest `make bench`: earlier, a host.", "", "- CPU-bound firmware: an old figure"]
    old_device = ["- Devices (build/bench/device.json; an old figure)"]
    doc.write_text("\n".join(["# Status", status.BEGIN, *old_sim, "- Cairn OS across modules: stale",
                              *old_device, status.END, "after"]) + "\n")
    assert status.main(["--bench-dir", str(bench), "--status", str(doc)]) == 0
    lines = doc.read_text().splitlines()
    block = lines[lines.index(status.BEGIN) + 1: lines.index(status.END)]
    assert block[:3] == old_sim and block[-1] == old_device[0], block
    assert "stale" not in doc.read_text()
    mine = [line for line in block if str(result["remote_send_to_handler_beyond_bus_cycles"]) in line]
    assert mine and "target ≤ 400" in mine[0], block
    assert lines[-1] == "after"
