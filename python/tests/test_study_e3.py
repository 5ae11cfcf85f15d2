"""E3, EMERALDS at reduced size: its scheduler, semaphore and state-message claims judged on Cairn
OS's measured costs, and the analysis checked on cairn-sim."""

from __future__ import annotations

import pytest

from cairn.study import e3_emeralds
from cairn.study.paper import Paper, load_study
from cairn.study.registry import STUDIES
from cairn.study.result import StudyResult


def _paper() -> Paper:
    return load_study(e3_emeralds.NAME)


@pytest.fixture(scope="module")
def e3() -> StudyResult:
    return e3_emeralds.run(_paper(), "reduced")


@pytest.mark.parametrize("claim", [
    "edf_zero_schedulability_overhead",
    "sem_switch_eliminated",
    "pi_constant_time",
    "state_messages_cheaper",
])
def test_the_papers_mechanism_holds_on_cairn(e3: StudyResult, claim: str) -> None:
    v = e3.verdict(claim)
    assert v.holds is True, v.evidence


def test_every_claim_is_judged_with_its_figures(e3: StudyResult) -> None:
    assert {c.id for c in _paper().claims} == {v.claim_id for v in e3.verdicts}
    assert all(v.holds is not None and any(ch.isdigit() for ch in v.evidence) for v in e3.verdicts)
    assert all(f.png.startswith(b"\x89PNG") for f in e3.figures) and len(e3.figures) == 2
    assert STUDIES[e3_emeralds.NAME] is e3_emeralds.run


def test_the_simulated_check_agrees_with_the_analysis(e3: StudyResult) -> None:
    table = next(t for t in e3.tables if t.title.startswith("The analysis on cairn-sim"))
    assert len(table.rows) == len(e3_emeralds.POLICIES)
    assert all(row[-1] == "yes" for row in table.rows), table.rows
    assert f"{len(table.rows)} of {len(table.rows)} runs" in e3.differences


def test_breakdown_is_a_utilisation_and_edf_leads_without_costs(e3: StudyResult) -> None:
    table = e3.tables[0]
    for row in table.rows:
        values = [float(x) for x in row[1:]]
        assert all(0.5 < v <= 1.0 for v in values), row
        rm_zero, edf_zero = values[-2], values[-1]
        assert edf_zero >= rm_zero and edf_zero >= max(values[:4]), row
