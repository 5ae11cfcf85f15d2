"""The differential-test harness proven against itself: the fast unicorn runner (one engine,
`until` stepping) against the reference one (fresh engine per case, count=1 stepping) behind
the exec-cases CLI, and against deliberately wrong simulators."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cairn.difftest.compare import reference_cmd, run_diff
from cairn.difftest.contract import FAULT_KINDS
from cairn.difftest.gen import CaseGen
from cairn.difftest.uc_runner import ReferenceRunner, UnicornRunner

MUTANT = [sys.executable, str(Path(__file__).with_name("mutant_sim.py"))]


def test_self_check() -> None:
    s = run_diff(2500, 99, reference_cmd(), names=("unicorn", "reference"))
    assert s.ok, s.text()
    assert s.cases == 2500
    # Every fault kind the generator aims for shows up, on both sides identically.
    assert set(s.faults) >= set(FAULT_KINDS) - {"invstate"}, s.faults


def test_fast_runner_reuse_matches_fresh_engine() -> None:
    """Running cases in one engine in a different order gives the same results."""
    cases = list(CaseGen(5).cases(300))
    fast = UnicornRunner()
    forward = [fast.run(c) for c in cases]
    backward = [fast.run(c) for c in reversed(cases)][::-1]
    assert forward == backward
    ref = ReferenceRunner()
    assert forward[:100] == [ref.run(c) for c in cases[:100]]


@pytest.mark.parametrize("mutation", ["reg", "hash", "drop", "fault", "nofault"])
def test_mutant_simulators_are_caught(mutation: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUTATION", mutation)
    s = run_diff(200, 3, MUTANT)
    assert s.error is None, s.text()
    assert s.mismatches == 1, s.text()
    assert "reproduce: python -m cairn.difftest --seed 3 --case" in s.reports[0]
    if mutation in ("reg", "hash"):
        assert "<<" in s.reports[0]


def test_unmutated_mutant_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUTATION", "none")
    s = run_diff(50, 3, MUTANT)
    assert s.ok, s.text()


def test_crashing_simulator_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUTATION", "crash")
    s = run_diff(50, 3, MUTANT)
    assert s.error is not None and "exit status 3" in s.error and "crashing on purpose" in s.error, s.text()
    assert not s.ok


def test_missing_simulator_binary_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        run_diff(5, 1, ["/nonexistent/cairn-sim"])


def test_cli_self_check_and_single_case(capsys: pytest.CaptureFixture[str]) -> None:
    from cairn.difftest.__main__ import main

    assert main(["--self-check", "--cases", "100", "--seed", "4", "-q"]) == 0
    out = capsys.readouterr().out
    assert "mismatches=0" in out
    assert main(["--self-check", "--seed", "4", "--case", "17"]) == 0
    out = capsys.readouterr().out
    assert "case 17 (seed 4)" in out and "states (" in out
    assert main(["--sim", "/nonexistent/cairn-sim", "--cases", "5"]) == 2
