"""`make run`'s flagship: three modules, the filter moves and back with nothing lost, the
report's claims follow from the run, and the report opens cleanly in a headless browser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cairn import flagship, net_trace
from cairn.paths import sim_binary
from cairn.study.browser import check_page


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("flagship")
    proc = subprocess.run([sys.executable, "-m", "cairn.flagship", "--sim", str(sim_binary()),
                           "--out", str(out), "--no-studies"], capture_output=True, text=True, timeout=300)
    return proc, out


def test_the_pipeline_moves_and_loses_nothing(run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    proc, out = run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "migrations: 2 ok, 0 lost, 0 duplicated, 0 reordered" in proc.stdout
    for module in ("slow", "fast", "sensor"):
        assert any(line.split()[:1] == [module] for line in proc.stdout.splitlines()), module
    run_dir = out / "flagship"
    assert (run_dir / "trace.json").is_file() and (run_dir / "stats.json").is_file()
    assert (run_dir / "device.toml").is_file()  # the run's record: what it ran


def test_why_it_moves_is_measured(run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = run
    text = (out / "flagship" / "trace.json").read_text()
    commits = sorted(p.ps for p in net_trace.migration_phases(net_trace.parse(text)) if p.phase == "committed")
    arrivals = flagship.logger_starts_ps(json.loads(text))
    assert len(arrivals) == 120 and len(commits) == 2
    paces = flagship.pace(arrivals, commits)
    assert [home for home, _, _ in paces] == ["slow", "fast", "slow"]
    assert sum(n for _, n, _ in paces) == 120
    # The slow module falls behind the 1 ms sensor; the fast one catches up.
    assert paces[0][2] > 1000 and paces[1][2] < 1000


def test_the_report_opens_cleanly(run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = run
    page = check_page(out / "report" / "index.html")
    assert page.images == 2 and page.broken_images == [] and page.console_errors == []


def test_a_missing_simulator_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "cairn.flagship", "--sim", str(tmp_path / "nope"),
                           "--out", str(tmp_path), "--no-studies"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("flagship:") and len(proc.stderr.strip().splitlines()) == 1
