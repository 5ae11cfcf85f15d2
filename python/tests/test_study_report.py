"""The seed-study report: the reduced E5 study judges the paper's claims on cairn-sim, and the
generated report opens in headless Chromium with no console error and every image loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.paths import repo_root
from cairn.study import e5_mpsoc_migration
from cairn.study.browser import check_page
from cairn.study.paper import load_all
from cairn.study.report import write_report
from cairn.study.result import Figure, StudyResult, Verdict


@pytest.fixture(scope="module")
def papers() -> dict[str, object]:
    return dict(load_all(repo_root() / "experiments"))


@pytest.fixture(scope="module")
def e5(papers: dict[str, object]) -> StudyResult:
    return e5_mpsoc_migration.run(papers[e5_mpsoc_migration.NAME], "reduced")  # type: ignore[arg-type]


def test_e5_the_papers_conclusions_hold_on_cairn(e5: StudyResult) -> None:
    # Table 3 and Fig. 7: linear in the state; Figs. 5-6: the online break-even policy moves
    # the computation when it pays and keeps it when it does not; Table 1: a migration point with
    # nothing pending slows the computation no more than the paper found.
    for claim in ("migration_time_linear_in_state", "freezing_time_linear_in_state",
                  "migration_pays_off_after_break_even", "checkpoint_overhead_negligible"):
        assert e5.verdict(claim).holds is True, e5.verdict(claim)


def test_report_opens_cleanly_in_a_headless_browser(e5: StudyResult, papers: dict[str, object], tmp_path: Path) -> None:
    index = write_report([e5], papers, tmp_path / "report")  # type: ignore[arg-type]
    page = check_page(index)
    assert page.title.startswith("Cairn")
    assert page.images == len(e5.figures) > 0
    assert page.broken_images == [] and page.console_errors == []


def test_the_browser_check_catches_a_broken_image(papers: dict[str, object], tmp_path: Path) -> None:
    bad = StudyResult(study=e5_mpsoc_migration.NAME, size="reduced", setup="x",
                      figures=[Figure("broken", "not a PNG", b"not a png")],
                      verdicts=[Verdict("migration_time_linear_in_state", False, "made up for the test")])
    index = write_report([bad], papers, tmp_path / "report")  # type: ignore[arg-type]
    html = index.read_text()
    assert "does not hold" in html and "not reproduced" in html
    page = check_page(index)
    assert page.broken_images == ["not a PNG"]


def test_the_estimate_comes_from_the_last_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cairn.study import timing

    monkeypatch.setattr(timing, "build_dir", lambda: tmp_path)
    assert "not timed" in timing.describe(["a", "b"], "full")
    timing.record("a", "full", 90.0)
    assert timing.describe(["a", "b"], "full").startswith("estimate: about 1.5 min for the studies timed before, b")
    timing.record("b", "full", 30.0)
    assert timing.describe(["a", "b"], "full") == "estimate: about 2.0 min (full; from the last run of each study here)"
    assert "not timed" in timing.describe(["a"], "reduced")
