"""README.md's tour shows what its commands really print today (python -m cairn.tour)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import summary, tour
from cairn.paths import repo_root

ROOT = repo_root()


def test_readme_tour_matches_a_fresh_run() -> None:
    readme = (ROOT / "README.md").read_text()
    fresh = tour.splice(readme, tour.render(ROOT))
    assert fresh == readme, "README.md's tour is stale: run `.venv/bin/python -m cairn.tour --write`"


def test_splice_replaces_only_the_tour() -> None:
    readme = f"intro\n{tour.BEGIN}\nold\n{tour.END}\noutro\n"
    assert tour.splice(readme, f"{tour.BEGIN}\nnew\n{tour.END}") == f"intro\n{tour.BEGIN}\nnew\n{tour.END}\noutro\n"
    with pytest.raises(ValueError):
        tour.splice("no markers", "x")


def test_transcript_shows_a_failing_status() -> None:
    cmd = f"{tour.SIM} run --clock 1x build/fw/hello.elf"
    out = tour.run_command(cmd, ROOT)
    assert out.startswith(f"$ {cmd}\ncairn-sim: --clock: ") and out.endswith("\n# exit status 2\n"), out
    assert out.count("\n") == 3, out


def test_the_tour_runs_only_what_it_can_run_through_the_runner() -> None:
    with pytest.raises(ValueError, match="the tour runs"):
        tour.run_command("echo hi; exit 3", ROOT)


def test_summary_of_a_stats_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = {"instructions": 1234, "cycles": 5000, "sleep_cycles": 1000, "simulated_seconds": 0.0002,
             "clock_hz": 25_000_000,
             "io": {"delay": {"a->b": {"answered": 2, "stimuli": 3,
                                       "delay": {"mean_s": 1.5e-6, "max_s": 2e-6},
                                       "deadline": {"deadline_s": 1e-5, "misses": 1}}},
                    "jitter": {"b": {"events": 2, "expected_period_s": 1e-4, "max_abs_jitter_s": 4e-8}}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(stats))
    assert summary.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "1,234" in out and "(sleeping 1,000)" in out and "0.000200 s at 25 MHz" in out
    assert "2/3 answered, mean 1.500 us, max 2.000 us, deadline 10 us missed 1 times" in out
    assert "max |jitter| 0.040 us" in out


def test_summary_of_a_missing_file_is_one_line_and_status_2(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert summary.main([str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err
