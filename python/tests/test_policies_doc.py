"""The scheduling policies' generated figures (python/cairn/bench/policies_doc.py): the table
in docs/policies.md and each policy's block on its page (docs/policies/) are the script's, from
one run, the pages' claims on how the policies compare hold, and bad input is a one-line error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.bench import kernel, policies_doc
from cairn.paths import firmware_dir, repo_root, sim_binary

OVERVIEW = repo_root() / "docs" / "policies.md"
POLICY_KEYS = [key for key, _, _ in policies_doc.POLICIES]


@pytest.fixture(scope="module")
def figs() -> dict[str, Any]:
    return policies_doc.measure(str(sim_binary()), firmware_dir())


def test_the_overview_table_is_the_scripts(figs: dict[str, Any]) -> None:
    assert policies_doc.render_overview(figs) in OVERVIEW.read_text(), \
        f"docs/policies.md's figures are stale: {policies_doc.FIX}"


@pytest.mark.parametrize("policy", POLICY_KEYS)
def test_each_policy_page_has_the_scripts_block(policy: str, figs: dict[str, Any]) -> None:
    page = policies_doc.page_path(OVERVIEW, policy)
    assert policies_doc.render_page(figs, policy) in page.read_text(), \
        f"{page.name}'s figures are stale: {policies_doc.FIX}"


def test_the_pages_comparisons_hold(figs: dict[str, Any]) -> None:
    """fp.md: fixed priority is the cheapest on every path of the kernel bench, with the
    smallest message; csd.md: CSD's queue costs more than EDF on each of them."""
    bench = figs["bench"]
    for key, _ in policies_doc.BENCH_ROWS:
        assert bench["fp"][key] < bench["edf"][key] <= bench["csd"][key], (key, bench)
    assert bench["fp"]["msg_bytes"] < bench["edf"]["msg_bytes"] <= bench["csd"]["msg_bytes"], bench
    assert [bench[p]["fast_paths"] for p in POLICY_KEYS] == [kernel.FAST_PATHS[p] for p in POLICY_KEYS]


def test_a_page_shows_each_other_policy_with_its_difference(figs: dict[str, Any]) -> None:
    changed = {**figs, "bench": {p: dict(v) for p, v in figs["bench"].items()}}
    changed["bench"]["fp"]["send_preempt_cycles"] = 100
    changed["bench"]["edf"]["send_preempt_cycles"] = 130
    changed["bench"]["csd"]["send_preempt_cycles"] = 90
    row = next(line for line in policies_doc.render_page(changed, "fp").splitlines()
               if line.startswith("| send → preempting handler's first"))
    assert row.endswith("| 100 | 130 (+30) | 90 (-10) |"), row
    block = policies_doc.render_page(changed, "edf")
    assert "`edf.unblock`" in block and "`fp.unblock`" not in block, block


def test_write_docs_reports_a_stale_page(tmp_path: Path, figs: dict[str, Any]) -> None:
    overview = tmp_path / "policies.md"
    overview.write_text(f"{policies_doc.OVERVIEW_BEGIN}\nold\n{policies_doc.OVERVIEW_END}\n")
    (tmp_path / "policies").mkdir()
    for policy in POLICY_KEYS:
        begin, end = policies_doc.page_markers(policy)
        policies_doc.page_path(overview, policy).write_text(f"# {policy}\n{begin}\n{end}\n")
    assert policies_doc.write_docs(overview, figs, False) == 1
    assert policies_doc.write_docs(overview, figs, True) == 0
    assert policies_doc.write_docs(overview, figs, False) == 0
    assert policies_doc.render_page(figs, "csd") in (tmp_path / "policies" / "csd.md").read_text()


def test_the_cli_refuses_a_missing_firmware(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "cairn.bench.policies_doc", "--sim", str(sim_binary()),
                        "--fw", str(tmp_path)], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert p.returncode == 1 and p.stderr.startswith("policies_doc:"), p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_the_cli_refuses_a_page_without_markers(tmp_path: Path) -> None:
    doc = tmp_path / "policies.md"
    doc.write_text("# no markers\n")
    p = subprocess.run([sys.executable, "-m", "cairn.bench.policies_doc", "--sim", str(sim_binary()),
                        "--fw", str(firmware_dir()), "--write-doc", str(doc)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert p.returncode == 1 and p.stderr.startswith("policies_doc:"), p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
