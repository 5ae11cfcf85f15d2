"""The seed-study report: the reduced E5 study judges the paper's claims on cairn-sim, and the
generated report opens in headless Chromium with no console error and every image loaded."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from cairn.paths import repo_root
from cairn.study import e5_mpsoc_migration
from cairn.study.browser import check_page
from cairn.study.paper import load_all
from cairn.study.registry import STUDIES
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
    monkeypatch.setitem(timing.DEFAULT_SECONDS, "full", {"a": 60.0})
    first = timing.describe(["a", "b"], "full").splitlines()
    # Never run here: a's stated default, and the default of a study with none for b.
    assert first[0] == f"estimate: about {(60 + timing.UNLISTED_SECONDS) / 60:.1f} min at size full " \
                       "(stated defaults: no study has run at this size here yet)"
    assert first[1].split() == ["a", "1.0", "min", "default"]
    timing.record("a", "full", 90.0)
    assert timing.describe(["a", "b"], "full").splitlines()[0].endswith("(1 of 2 from stated defaults, never run at this size here)")
    timing.record("b", "full", 30.0)
    lines = timing.describe(["a", "b"], "full").splitlines()
    assert lines[0] == "estimate: about 2.0 min at size full (from the last run of each study here)"
    assert [line.split() for line in lines[1:]] == [["a", "1.5", "min", "last", "run"], ["b", "0.5", "min", "last", "run"]]
    assert "default" in timing.describe(["a"], "reduced")


def test_every_study_has_a_stated_default_at_each_size() -> None:
    from cairn.study import timing
    from cairn.study.registry import STUDIES

    for size in ("reduced", "full"):
        assert set(timing.DEFAULT_SECONDS[size]) == set(STUDIES), size


def test_the_estimate_comes_before_any_study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from cairn.study import __main__ as study_main
    from cairn.study import registry, timing

    monkeypatch.setattr(timing, "build_dir", lambda: tmp_path)

    def never(paper: object, size: str) -> StudyResult:
        raise AssertionError("--estimate runs no study")

    monkeypatch.setitem(registry.STUDIES, e5_mpsoc_migration.NAME, never)
    assert study_main.main(["--estimate", "--size", "full", e5_mpsoc_migration.NAME]) == 0
    assert capsys.readouterr().out.startswith("estimate: about ")


def test_a_study_bar_follows_the_time_and_ends_full() -> None:
    import io

    from cairn.study.progress import TICK, study_bar

    out = io.StringIO()
    with study_bar("e9-made-up", TICK / 2, disable=False, file=out) as bar:  # at least a tick
        time.sleep(1.2)
        held = bar.n
    assert 0 < held < TICK  # held short of the end while the study runs on
    assert bar.n == TICK
    assert "e9-made-up" in out.getvalue() and "100%" in out.getvalue()


def test_every_study_links_its_own_page(papers: dict[str, object], tmp_path: Path) -> None:
    """Each study the checkout knows has a page under docs/studies/, and the report links it
    by a path that resolves from wherever the report is written."""
    assert set(STUDIES) <= {p.stem for p in (repo_root() / "docs" / "studies").glob("*.md")}
    stub = StudyResult(study=e5_mpsoc_migration.NAME, size="reduced", setup="x")
    out = tmp_path / "deep" / "report"
    index = write_report([stub], papers, out)  # type: ignore[arg-type]
    hrefs = re.findall(r'href="([^"#]+\.md)"', index.read_text())
    assert len(hrefs) == 1 and (out / hrefs[0]).resolve() == (
        repo_root() / "docs" / "studies" / f"{e5_mpsoc_migration.NAME}.md").resolve(), hrefs
