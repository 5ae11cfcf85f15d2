"""python -m cairn.spin reads pan's report right and judges each configuration right.

The searches themselves run in `make test-spin`; here, pan's reports as SPIN 6.5 prints them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn import spin
from cairn.paths import repo_root

SAFE = """(Spin Version 6.5.2 -- 6 December 2019)
	+ Partial Order Reduction
	+ Compression

Full statespace search for:
	never claim         	- (none specified)
	assertion violations	+
	cycle checks       	- (disabled by -DSAFETY)
	invalid end states	+

State-vector 180 byte, depth reached 220, errors: 0
  1060381 states, stored
  1723360 states, matched
  2783741 transitions (= stored+matched)
"""

VIOLATION = """pan:1: assertion violated (fired==deadline) (at depth 142)
pan: wrote migration.pml.trail

(Spin Version 6.5.2 -- 6 December 2019)
Warning: Search not completed
	+ Partial Order Reduction

State-vector 180 byte, depth reached 142, errors: 1
      212 states, stored
      118 states, matched
      330 transitions (= stored+matched)
"""

FAIR = """State-vector 188 byte, depth reached 197, errors: 0
   196610 states, stored (2.11068e+06 visited)
  7735422 states, matched
  9846097 transitions (= visited+matched)
"""

CUT_SHORT = """pan: reached -DMEMLIM bound
Warning: Search not completed
State-vector 180 byte, depth reached 310, errors: 0
 12305539 states, stored
 40536150 states, matched
52841689 transitions (= stored+matched)
"""

GOOD = spin.Config("good", "", ())
BROKEN = spin.Config("bug", "", ("BUG_X",), bug="BUG_X")


def test_a_complete_search_without_error_passes() -> None:
    r = spin.parse(SAFE, GOOD, 1.0)
    assert (r.errors, r.complete, r.states, r.transitions, r.depth) == (0, True, 1060381, 2783741, 220)
    assert r.ok


def test_a_violation_fails_a_correct_configuration_and_passes_a_broken_one() -> None:
    r = spin.parse(VIOLATION, GOOD, 1.0)
    assert r.errors == 1 and r.violation == "assertion violated (fired==deadline)"
    assert not r.ok
    assert spin.parse(VIOLATION, BROKEN, 1.0).ok


def test_a_broken_variant_that_spin_passes_fails() -> None:
    assert not spin.parse(SAFE, BROKEN, 1.0).ok


def test_a_search_cut_short_fails_even_without_error() -> None:
    r = spin.parse(CUT_SHORT, GOOD, 1.0)
    assert r.errors == 0 and not r.complete and not r.ok


def test_fairness_runs_count_visited_states() -> None:
    assert spin.parse(FAIR, GOOD, 1.0).states == 2110680


def test_no_report_is_an_error() -> None:
    with pytest.raises(ValueError):
        spin.parse("pan: error: too many processes", GOOD, 1.0)


def test_the_table_escapes_pipes_and_splices_between_its_markers() -> None:
    block = spin.table([spin.parse(VIOLATION.replace("fired==deadline", "a||b"), BROKEN, 1.0)])
    assert "a\\|\\|b" in block
    doc = f"intro\n{spin.BEGIN}\nold\n{spin.END}\nafter\n"
    assert spin.splice(doc, block) == f"intro\n{block}\nafter\n"
    with pytest.raises(ValueError):
        spin.splice("no markers", block)


def test_every_broken_variant_is_named_in_the_model() -> None:
    model = (repo_root() / spin.MODEL).read_text()
    bugs = [c.bug for c in spin.CONFIGS if c.bug]
    assert len(bugs) >= 5
    for bug in bugs:
        assert f"#ifdef {bug}" in model or f"defined({bug})" in model, bug


def test_the_timing_file_says_whether_the_bound_ran_in_time(tmp_path: Path) -> None:
    from cairn.bench.status import render_spin
    import json

    quick = spin.parse(SAFE, GOOD, 3.0)
    slow = spin.parse(SAFE, spin.Config("slow", "", ()), 50.0)
    path = tmp_path / "spin.json"
    spin.write_timing([quick, slow], 60.0, 2, path)
    d = json.loads(path.read_text())
    assert (d["configurations"], d["jobs"], d["met"]) == (2, 2, True)
    assert d["states"] == 2 * 1060381
    assert d["largest"]["name"] == "slow"
    spin.write_timing([quick, slow], spin.TARGET_SECONDS + 1, 1, path)
    late = json.loads(path.read_text())
    assert late["met"] is False
    line = render_spin(late)[0]
    assert "not met" in line and "slow" in line
