"""I/O measurements end to end: kernel/tests/sim/io_response.c answers each stimulus by
writing its sequence number to an output port and toggles a marker pin from a timer. The
core sleeps between events, so cycle-exact timing makes every answer take the same number of
cycles and every interval equal the period: zero jitter, one delay value. The stats, the
io-log CSV and the VCD must agree with each other to the cycle. `make test` builds the ELF."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from cairn.paths import expected_toml, firmware
from cairn.runners import run_sim

CLOCK_HZ = 25_000_000
PS_PER_CYCLE = 10**12 // CLOCK_HZ
N_STIMULI = 20


def _run(tmp_path: Path) -> tuple[dict[str, Any], list[dict[str, str]], str]:
    elf = firmware("io_response")
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    scenario = expected_toml().parent / "io_response.toml"
    stats, vcd, log = tmp_path / "s.json", tmp_path / "r.vcd", tmp_path / "io.csv"
    r = run_sim(elf, "--io", str(scenario), "--stats", str(stats), "--vcd", str(vcd), "--io-log", str(log))
    assert r.status == 0, r.describe()
    with open(log, newline="") as f:
        rows = list(csv.DictReader(f))
    return json.loads(stats.read_text())["io"], rows, vcd.read_text()


def _vcd_changes(text: str, name: str) -> list[tuple[int, int]]:
    """(time_ps, value) changes of the variable called `name` (a minimal VCD reader)."""
    ident = None
    changes: list[tuple[int, int]] = []
    t = 0
    body = False
    for line in text.splitlines():
        parts = line.split()
        if not body:
            if parts[:1] == ["$var"] and parts[4] == name:
                ident = parts[3]
            body = parts[:1] == ["$enddefinitions"]
            continue
        if line.startswith("#"):
            t = int(line[1:])
        elif line.startswith("b") and len(parts) == 2 and parts[1] == ident:
            changes.append((t, int(parts[0][1:], 2)))
        elif line[:1] in "01" and line[1:] == ident:
            changes.append((t, int(line[0])))
    assert ident is not None, f"no VCD variable {name}"
    return changes


def test_delay_and_jitter_are_exact(tmp_path: Path) -> None:
    io, rows, vcd = _run(tmp_path)
    stim = [int(r["cycle"]) for r in rows if r["kind"] == "stimulus"]
    outs = [(int(r["cycle"]), int(r["value"])) for r in rows if r["kind"] == "output" and r["name"] == "answer"]
    assert len(stim) == len(outs) == N_STIMULI
    assert [v for _, v in outs] == list(range(1, N_STIMULI + 1))
    # The stimulus period is 200 us = 5000 cycles, starting at 150 us.
    assert stim == [3750 + 5000 * k for k in range(N_STIMULI)]
    delays = {o - s for s, (o, _) in zip(stim, outs)}
    assert len(delays) == 1, delays
    (delay_cycles,) = delays

    d = io["delay"]["request->answer"]
    assert (d["answered"], d["unanswered"]) == (N_STIMULI, 0)
    assert d["delay"]["min_s"] == d["delay"]["max_s"] == delay_cycles / CLOCK_HZ
    assert d["deadline"]["misses"] == 0
    for name, period_s in (("answer", 200e-6), ("toggle", 100e-6)):
        j = io["jitter"][name]
        assert j["max_abs_jitter_s"] == 0.0
        assert j["interval"]["min_s"] == j["interval"]["max_s"] == period_s

    # The VCD shows the same output writes at cycle * 40,000 ps.
    answer = _vcd_changes(vcd, "answer")
    assert answer[1:] == [(c * PS_PER_CYCLE, v) for c, v in outs]
    gpio = [int(r["cycle"]) for r in rows if r["kind"] == "gpio"]
    toggle = _vcd_changes(vcd, "toggle")
    assert [t for t, _ in toggle[1:]] == [c * PS_PER_CYCLE for c in gpio]
    assert "$timescale 1ps $end" in vcd
