"""Task migration on a cairn-sim device (docs/migration.md): the filter of the pipeline
sensor -> filter -> logger (kernel/apps/migration) moves from the 4 MHz module to the 32 MHz
one and back while samples flow (experiments/devices/migration.toml). The simulator's trace
alone accounts for the messages (python/cairn/net_trace.py): every numbered message accepted
once and in order wherever the filter was, and each move leaves its phase words."""

from __future__ import annotations

import dataclasses

import pytest

import cairn
from cairn import migration_walkthrough, net_trace
from cairn.paths import firmware_dir, repo_root

DEVICE = repo_root() / "experiments" / "devices" / "migration.toml"
FILTER = 2  # the filter's task ID
SAMPLES = 40


@dataclasses.dataclass
class Run:
    proc: cairn.Result
    trace: net_trace.NetTrace


@pytest.fixture(scope="module")
def run() -> Run:
    elf = firmware_dir() / "migration.elf"
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    proc = cairn.run(DEVICE, ["trace"], max_time="1s", timeout=300)
    trace = proc.files["trace"]
    tr = net_trace.parse(trace.read_text()) if trace.exists() else net_trace.NetTrace()
    return Run(proc, tr)


def test_the_filter_moves_away_and_back_and_nothing_is_lost(run: Run) -> None:
    assert run.proc.status == 0, run.proc.console[-2000:] + run.proc.describe_failure()
    lines = run.proc.console.splitlines()
    # The logger's own view: every sample once, in order.
    assert lines[-1] == f"fast: logger: {SAMPLES} samples, 0 out of order", lines[-3:]
    samples = [line for line in lines if line.startswith("fast: sample ")]
    assert [int(s.split()[2]) for s in samples] == list(range(1, SAMPLES + 1))
    # The line that counts comes from the trace.
    assert net_trace.migration_summary(run.trace) == "migrations: 2 ok, 0 lost, 0 duplicated, 0 reordered"
    c = net_trace.check_messages(run.trace)
    assert c.ok() and len(c.sent) == len(c.accepted) > SAMPLES


def test_the_trace_shows_each_move_phase_by_phase(run: Run) -> None:
    phases = net_trace.migration_phases(run.trace)
    names = {pid: name for pid, name in run.trace.names.items()}
    away = [(names[p.pid], p.phase) for p in phases if p.mig == (0 << 8 | 1)]
    back = [(names[p.pid], p.phase) for p in phases if p.mig == (1 << 8 | 1)]
    assert all(p.task == FILTER for p in phases)
    # Away: the slow module is the source, the fast one the destination.
    assert away[:2] == [("slow", "request"), ("slow", "frozen")]
    assert ("slow", "serialized") in away and ("fast", "staged") in away and ("fast", "committed") in away
    assert ("slow", "freed") in away
    assert sorted(n for n, ph in away if ph == "frozen") == ["fast", "sensor", "slow"]
    assert sorted(n for n, ph in away if ph == "unfrozen") == ["fast", "sensor", "slow"]
    # Back: the roles swap.
    assert back[:2] == [("fast", "request"), ("fast", "frozen")]
    assert ("slow", "committed") in back and ("fast", "freed") in back
    # The commit comes after the staging, the source frees its copy after the commit.
    t = {(names[p.pid], p.phase, p.mig): p.ps for p in phases}
    assert t[("fast", "staged", 1)] < t[("fast", "committed", 1)] < t[("slow", "freed", 1)]
    assert not [p for p in phases if p.phase in ("resumed", "killed", "stage-failed")]


def test_the_checker_finds_a_lost_a_duplicated_and_a_reordered_message(run: Run) -> None:
    words = run.trace.words
    accepts = [i for i, w in enumerate(words) if w.code == net_trace.EV_REL_ACCEPT]
    lost = dataclasses.replace(run.trace, words=[w for i, w in enumerate(words) if i != accepts[5]])
    assert net_trace.migration_summary(lost).endswith("1 lost, 0 duplicated, 1 reordered")
    twice = dataclasses.replace(run.trace, words=words[: accepts[5] + 1] + [words[accepts[5]]] + words[accepts[5] + 1:])
    assert net_trace.migration_summary(twice).endswith("0 lost, 1 duplicated, 0 reordered")
    # Two acceptances of one sender's messages to one task swapped: both out of order.
    a, b = next((x, y) for x, y in zip(accepts, accepts[1:])
                if (words[x].a, words[x].b >> 8) == (words[y].a, words[y].b >> 8))
    swapped = list(words)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    assert net_trace.migration_summary(dataclasses.replace(run.trace, words=swapped)).endswith(
        "0 lost, 0 duplicated, 2 reordered")


def test_the_docs_walkthrough_is_a_fresh_run() -> None:
    """docs/migration.md's traced migration is what the example prints today."""
    doc = migration_walkthrough.DOC.read_text()
    block = migration_walkthrough.render()
    assert block in doc, "docs/migration.md is stale: run python -m cairn.migration_walkthrough --write"
    assert "`committed`" in block and "0 lost, 0 duplicated, 0 reordered" in block

