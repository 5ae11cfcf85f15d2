"""`make run`'s demo prints an energy breakdown by state, category and task."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import cairn
from cairn.summary import print_energy

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "build" / "bin" / "cairn-sim"
HELLO = ROOT / "build" / "fw" / "hello.elf"
SCENARIO = ROOT / "experiments" / "hello-energy" / "scenario.toml"


def test_print_energy_lists_states_categories_and_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    stats = {
        "energy_joules": {
            "total": 3e-6,
            "by_state": {"active": 2e-6, "deep_sleep": 1e-6},
            "by_category": {"kernel": 1e-6, "user": 1e-6, "idle": 1e-6},
            "by_task": {"kernel": 1e-6, "task1": 2e-6},
        },
        "energy_model": {"profile": "stm32l053", "voltage_v": 3.0, "average_power_w": 1e-3},
        "idle": {"percent": 50.0, "periods": 2, "mean_s": 0.01, "stddev_s": 0.0},
        "profile": [{"symbol": "main", "energy_joules": 1e-6, "calls": 1}],
    }
    print_energy(stats, "test")
    out = capsys.readouterr().out
    for word in ("by_state", "deep_sleep", "by_category", "kernel", "by_task", "task1", "idle", "main"):
        assert word in out, out


def test_print_energy_without_energy_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    print_energy({"cycles": 1}, "plain")
    assert capsys.readouterr().out == ""


def test_hello_scenario_breakdown_sums_exactly() -> None:
    assert SIM.is_file() and HELLO.is_file(), "`make build` builds cairn-sim and hello.elf"
    r = cairn.run(SCENARIO, ["stats"], max_time="1s", sim=SIM)
    assert r.status == 124, r.describe_failure()
    doc = r.stats_json
    fj = doc["energy_fj"]
    for key in ("by_state", "by_category", "by_task"):
        assert sum(fj[key].values()) == fj["total"], key
    assert fj["by_task"].get("task1", 0) > 0 and fj["by_category"].get("app", 0) > 0
    assert doc["idle"]["periods"] > 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
