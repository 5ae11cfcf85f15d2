"""The papers' transcribed figures load, follow the format, and keep what the report needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.paths import repo_root
from cairn.study.paper import PaperDataError, load, load_all

STUDIES = ["e1-mantis-tinyos", "e2-simbed-rtos", "e3-emeralds", "e4-comos", "e5-mpsoc-migration"]


def test_every_study_has_its_paper_data() -> None:
    papers = load_all(repo_root() / "experiments")
    assert sorted(papers) == STUDIES
    for name, paper in papers.items():
        assert paper.claims, f"{name}: a study needs at least one claim to check"
        if paper.values_available:
            assert paper.values or paper.tables, f"{name}: no figure transcribed"


def test_tables_read_as_records() -> None:
    comos = load(repo_root() / "experiments/e4-comos/paper.toml")
    rows = comos.table("ssl_single_module").records()
    assert rows[0]["system"] == "CoMOS"
    # The paper's overhead columns follow from its latency columns (difference over CoMOS's).
    for latency, overhead in (("ssl_single_module", "ssl_overhead_single_module"),
                              ("ssl_five_modules", "ssl_overhead_five_modules")):
        comos_row, alone = comos.table(latency).records()
        for case, column in (("sound source", "sound_source_ms"), ("noise", "noise_ms")):
            stated = {r["case"]: r["overhead_percent"] for r in comos.table(overhead).records()}[case]
            derived = (comos_row[column] - alone[column]) / comos_row[column] * 100
            assert stated == pytest.approx(derived, abs=0.01), (latency, case)


def test_transcription_is_self_consistent() -> None:
    mpsoc = load(repo_root() / "experiments/e5-mpsoc-migration/paper.toml")
    for row in mpsoc.table("migration_time").records():
        assert row["ms_per_kb"] == pytest.approx(row["time_ms"] / row["state_kb"], rel=0.01)
    comos = load(repo_root() / "experiments/e4-comos/paper.toml")
    base = comos.value("migration_base").value
    per_byte = comos.value("migration_per_byte").value
    # The paper's 1 kB example sits a little above its own fitted line (noted in the file).
    assert base + per_byte * 1024 == pytest.approx(comos.value("migration_1kb").value, rel=0.03)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[paper]\ntitle='t'\n", "needs title, citation and platform"),
        ("[paper]\ntitle='t'\ncitation='c'\nplatform='p'\n[[claim]]\nid='a'\ntext='x'\n", "lacks 'ref'"),
        (
            "[paper]\ntitle='t'\ncitation='c'\nplatform='p'\n[[table]]\nid='a'\nref='r'\ncaption='c'\n"
            "columns=['x','y']\nrows=[[1]]\n",
            "row 0 has 1 cells for 2 columns",
        ),
        ("[paper]\ntitle='t'\ncitation='c'\nplatform='p'\n[[claim]]\nid='a'\nref='r'\ntext='x'\nwhy='?'\n", "unknown key 'why'"),
        ("[paper]\ntitle='t'\ncitation='c'\nplatform='p'\n[figures]\n", "unknown section 'figures'"),
        ("not toml [", "paper.toml"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "study" / "paper.toml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(PaperDataError, match=message.replace("[", r"\[")):
        load(path)
