"""E1, MANTIS vs TinyOS at reduced size: the paper's conclusions judged on cairn-sim's records
of the tree node under the TinyOS-like and MANTIS-like models."""

from __future__ import annotations

import pytest

from cairn.study import e1_mantis_tinyos
from cairn.study.paper import load_study
from cairn.study.result import StudyResult

@pytest.fixture(scope="module")
def e1() -> StudyResult:
    paper = load_study(e1_mantis_tinyos.NAME)
    return e1_mantis_tinyos.run(paper, "reduced")


@pytest.mark.parametrize("claim", [
    "tinyos_et_grows_with_ls",
    "tinyos_faster_for_short_ls",
    "idle_drops_with_n",
    "mantis_less_idle",
    "mantis_overhead_grows_with_load",
    "idle_periods_similar",
    "mantis_et_independent_of_ls",
    "tinyos_et_stddev_grows_with_ls",
])
def test_the_papers_conclusion_holds(e1: StudyResult, claim: str) -> None:
    v = e1.verdict(claim)
    assert v.holds is True, v.evidence


def test_every_claim_is_judged_and_every_figure_rendered(e1: StudyResult) -> None:
    paper = load_study(e1_mantis_tinyos.NAME)
    assert {c.id for c in paper.claims} == {v.claim_id for v in e1.verdicts}
    assert all(f.png.startswith(b"\x89PNG") for f in e1.figures) and len(e1.figures) == 4
