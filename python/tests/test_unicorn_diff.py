"""Randomized differential test: cairn-sim's ARMv6-M core against unicorn (QEMU's Cortex-M0
model), state by state after every instruction.

    CAIRN_DIFF_CASES  number of sequences in the big run (default 100000)
    CAIRN_DIFF_SEED   generator seed (default 1)

Reproduce a reported case with: python -m cairn.difftest --seed S --case I
"""

from __future__ import annotations

import os

import pytest

from cairn.difftest.compare import run_diff
from cairn.difftest.contract import FAULT_KINDS
from cairn.paths import sim_binary

CASES = int(os.environ.get("CAIRN_DIFF_CASES", "100000"))
SEED = int(os.environ.get("CAIRN_DIFF_SEED", "1"))


def _sim() -> list[str]:
    path = sim_binary()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"{path} is missing: `make build` builds cairn-sim before the Python tests")
    return [str(path)]


def test_quick_200_cases() -> None:
    """Runs first: a few hundred cases for quick feedback before the long run."""
    s = run_diff(200, SEED + 1_000_000, _sim())
    assert s.ok, s.text()
    assert s.cases == 200


def test_differential_100k() -> None:
    s = run_diff(CASES, SEED, _sim(), max_reports=5)
    print(s.text())
    assert s.error is None, s.text()
    assert s.cases == CASES
    assert s.mismatches == 0, s.text()  # includes any case where the two sides faulted differently
    assert s.harness_errors == 0, s.text()
    if CASES >= 10_000:
        assert set(s.faults) >= set(FAULT_KINDS) - {"invstate"}, s.faults
