"""The fault campaign of task migration (python/cairn/fault_campaign.py, docs/migration.md
"Fault campaign"): seeded fault rules on experiments/devices/migration.toml, the invariants
checked from cairn-sim's trace. Every violation the campaign found is kept as a rule file; a
found one not fixed yet is a strict xfail (it fails the suite the day it passes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cairn import fault_campaign, net_trace

SEEDS = 1000


@pytest.fixture(scope="module")
def windows() -> list[tuple[int, int]]:
    return fault_campaign.clean_windows()


def test_a_run_without_faults_passes_every_check() -> None:
    r = fault_campaign.check(fault_campaign.Scenario(0, ()))
    assert r.violations == () and r.outcomes == ("moved", "moved") and r.excused == 0


def test_the_checker_reports_a_doctored_trace() -> None:
    tr, _, _ = fault_campaign.run_device([], 0)
    words = tr.words
    acc = [i for i, w in enumerate(words) if w.code == net_trace.EV_REL_ACCEPT]
    twice = dataclasses.replace(tr, words=words[: acc[5] + 1] + [words[acc[5]]] + words[acc[5] + 1:])
    assert any("accepted twice" in v for v in net_trace.check_migration(twice, fault_campaign.HOMES).violations)
    missing = dataclasses.replace(tr, words=[w for i, w in enumerate(words) if i != acc[5]])
    c = net_trace.check_migration(missing, fault_campaign.HOMES)
    assert any("never accepted" in x for x in c.stalls) and any("out of order" in x for x in c.violations)
    # The filter's handler starting on the slow module after it moved to the fast one.
    commit = next(w for w in words if w.code == net_trace.EV_MIG_COMMITTED)
    ghost = net_trace.Word(1, commit.ps + 1, net_trace.EV_START, 2, 16)
    two = dataclasses.replace(tr, words=sorted(words + [ghost], key=lambda w: (w.ps, w.pid)))
    assert any("ran on module 0 while it lives on 1" in x
               for x in net_trace.check_migration(two, fault_campaign.HOMES).violations)
    # A module that froze and never unfroze.
    unfrozen = [i for i, w in enumerate(words) if w.code == 0x17]
    stuck = dataclasses.replace(tr, words=[w for i, w in enumerate(words) if i != unfrozen[0]])
    assert any("never left" in x for x in net_trace.check_migration(stuck, fault_campaign.HOMES).stalls)
    # A sender dropping a message on NOTASK while no module holding the task was restarted.
    notask = net_trace.Word(3, commit.ps + 1, net_trace.EV_NET_ERR, net_trace.ERR_RX_NO_TASK, 0x100 | 2)
    dropped = dataclasses.replace(tr, words=sorted(words + [notask], key=lambda w: (w.ps, w.pid)))
    assert any("dropped a message to task 2 on NOTASK" in x
               for x in net_trace.check_migration(dropped, fault_campaign.HOMES).violations)


def test_a_kill_after_a_restart_during_the_migration_is_a_loss_with_that_module() -> None:
    """The last STATE part carries the commit: the destination reset meanwhile may have run the
    task before its reset, so the source kills it; the senders' NOTASK drops that follow are
    messages lost with that module. The same kill with no module restarted is not."""
    tr, _, _ = fault_campaign.run_device([], 0)
    request = next(w for w in tr.words if w.code == net_trace.EV_MIG_FIRST)
    before = [w for w in tr.words if w.ps <= request.ps]
    killed = net_trace.Word(request.pid, request.ps + 20, net_trace.EV_MIG_KILLED, request.a, request.b)
    notask = net_trace.Word(3, request.ps + 30, net_trace.EV_NET_ERR, net_trace.ERR_RX_NO_TASK,
                            0x100 | request.a)
    fast = next(p for p, n in tr.names.items() if n == "fast")
    lost = dataclasses.replace(tr, words=before + [killed, notask], restarts=[(fast, request.ps + 10)])
    c = net_trace.check_migration(lost, fault_campaign.HOMES)
    assert not any("NOTASK" in v for v in c.violations)
    assert c.outcomes[request.b] == "killed"
    kept = dataclasses.replace(lost, restarts=[])
    assert any("NOTASK" in v for v in net_trace.check_migration(kept, fault_campaign.HOMES).violations)


def test_progress_is_checked_only_under_fair_loss() -> None:
    periodic = fault_campaign.Scenario(1, ((("action", "drop"), ("every", 2)),))
    random_loss = fault_campaign.Scenario(1, ((("action", "drop"), ("probability", 0.3)),))
    delayed = fault_campaign.Scenario(1, ((("action", "delay"), ("every", 2), ("delay", "20us")),))
    assert not periodic.fair() and random_loss.fair() and delayed.fair()
    # Every 2nd frame lost stalls the pipeline (each DATA and its DACK are two frames), which
    # the checker reports as stalls; under periodic loss they are not violations.
    r = fault_campaign.check(periodic)
    assert not r.fair and r.violations == ()


def test_a_thousand_seeded_scenarios_break_no_invariant() -> None:
    """Every violating seed is one kept as a found-* rule file (not fixed yet): a new one fails
    the test, and so does a fix that forgets to rename its file to fixed-*."""
    results = fault_campaign.run_campaign(range(SEEDS), jobs=2)
    print("\n".join(fault_campaign.summary(results)))
    assert len(results) == SEEDS
    open_seeds = sorted(fault_campaign.load(p).seed for p in FOUND if fault_campaign.load(p).seed < SEEDS)
    assert [r.seed for r in results if r.violations] == open_seeds


#: The scenarios kept as regressions, written out as rule files (experiments/faults/), so that
#: they do not change when the generator does; each file's comment says what it showed.
#: found-*: violations not fixed yet (strict xfails: they fail the suite the day the kernel is
#: fixed); fixed-*: violations that no longer occur, which must stay so.
FOUND = sorted(fault_campaign.KEPT.glob("found-*.toml"))
FIXED = sorted(fault_campaign.KEPT.glob("fixed-*.toml"))


def test_the_kept_scenarios_are_there() -> None:
    assert len(FOUND) + len(FIXED) >= 12


@pytest.mark.parametrize("path", FIXED, ids=lambda p: p.stem)
def test_fixed_scenario(path: Path) -> None:
    r = fault_campaign.check(fault_campaign.load(path))
    assert r.violations == (), f"{path.name}: {r.violations[:3]}"


@pytest.mark.parametrize("path", FOUND, ids=lambda p: p.stem)
@pytest.mark.xfail(strict=True, reason="a violation found by the campaign, not fixed yet (experiments/faults/)")
def test_found_scenario(path: Path) -> None:
    r = fault_campaign.check(fault_campaign.load(path))
    assert r.violations == (), f"{path.name}: {r.violations[:3]}"


def test_numbers_wrap_from_255_to_1() -> None:
    """The reliable layer numbers 1..255 and wraps to 1 (0 means "none" in a DACK): the checker
    counts on across the wrap, and a duplicate behind the wrap stays behind."""
    last: dict[tuple[int, ...], int] = {}
    raws = [(n - 1) % 255 + 1 for n in range(1, 601)]
    assert [net_trace._unwrap(last, (0,), r) for r in raws] == list(range(1, 601))
    assert net_trace._unwrap(last, (0,), raws[595]) == 596  # a late duplicate of 596
    assert net_trace._unwrap(last, (1,), 255) == 255 and net_trace._unwrap(last, (1,), 1) == 256

