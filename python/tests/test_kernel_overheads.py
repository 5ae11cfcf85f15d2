"""The kernel bench's scheduler costs in the analysis's overhead model
(python/cairn/bench/overheads.py, build/fw/kernel-overheads-{fp,edf,csd}.elf): the keys it
writes are ones `cairn.analysis` accepts, measured exactly and the same on every run, and the
breakdown command line takes the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cairn.analysis.overheads import Overheads
from cairn.bench import overheads
from cairn.paths import firmware_dir, sim_binary


def _run(tmp_path: Path, name: str) -> tuple[dict[str, float], dict[str, object]]:
    out, record = tmp_path / f"{name}.json", tmp_path / f"{name}-record.json"
    status = overheads.main(["--sim", str(sim_binary()), "--fw", str(firmware_dir()),
                             "--out", str(out), "--record", str(record)])
    assert status == 0
    return json.loads(out.read_text()), json.loads(record.read_text())


def test_overhead_keys_are_measured_and_exact(tmp_path: Path) -> None:
    keys, record = _run(tmp_path, "a")
    loaded = Overheads.from_json(tmp_path / "a.json")
    for policy in ("fp", "edf"):
        for op in ("block", "unblock", "select"):
            assert loaded.get(f"{policy}.{op}") > 0, (policy, op, keys)
        # The queue is sorted at the insert: the insert walks it, the choice takes the head.
        assert keys[f"{policy}.unblock_per_task"] > 0, keys
        assert keys[f"{policy}.select_per_task"] == 0, keys
    assert keys["context_switch"] > 0 and keys["csd.queue_check"] >= 0, keys
    assert "tick" not in keys  # tickless
    ops = record["operations"]
    assert isinstance(ops, dict) and set(ops) == set(overheads.POLICIES)
    again, _ = _run(tmp_path, "b")
    assert again == keys, "two runs differ"


def test_breakdown_takes_the_measured_overheads(tmp_path: Path) -> None:
    _run(tmp_path, "c")
    p = subprocess.run([sys.executable, "-m", "cairn.analysis.breakdown", "--sets", "3", "--seed", "1",
                        "--tasks", "5", "--overheads", str(tmp_path / "c.json")],
                       capture_output=True, text=True, check=False, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "CSD" in p.stdout, p.stdout


def test_missing_firmware_is_a_one_line_error(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "cairn.bench.overheads", "--sim", str(sim_binary()),
                        "--fw", str(tmp_path), "--out", str(tmp_path / "x.json")],
                       capture_output=True, text=True, check=False, timeout=60)
    assert p.returncode == 1 and p.stderr.startswith("bench: "), p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
