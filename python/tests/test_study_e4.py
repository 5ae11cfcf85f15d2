"""E4 (CoMOS's SSL + FBD application) at the reduced size: the paper's claims judged on our
measurements, and the application's own answer (the source's direction) checked."""

from __future__ import annotations

from typing import Any

import pytest

from cairn.paths import firmware_dir, sim_binary
from cairn.study import e4_comos, e4_overhead, e4_overhead_five
from cairn.study.e4_measure import E4Error, run
from cairn.study.paper import load_study
from cairn.study.result import StudyResult

pytestmark = pytest.mark.skipif(not sim_binary().exists() or not (firmware_dir() / "ssl-five.elf").exists(),
                                reason="needs make build")

SOURCE_DIR = 60.0 / 360.0 * e4_comos.DIRS


@pytest.fixture(scope="module")
def result() -> StudyResult:
    return e4_comos.run(load_study(e4_comos.NAME), "reduced")


def test_every_claim_has_a_verdict(result: StudyResult) -> None:
    paper = load_study(e4_comos.NAME)
    assert {c.id for c in paper.claims} == {v.claim_id for v in result.verdicts}


@pytest.mark.parametrize("claim", ["overhead_below_one_percent", "migration_linear_in_state",
                                   "stack_preemption_responsive", "optimal_assignment_regions"])
def test_the_papers_claim_holds(result: StudyResult, claim: str) -> None:
    v = result.verdict(claim)
    assert v.holds is True, v.evidence


def test_cairn_os_costs_more_than_the_standalone_image(result: StudyResult) -> None:
    table = next(t for t in result.tables if "Table II" in t.title)
    for case, os_ms, bare_ms, overhead in table.rows:
        assert os_ms > bare_ms > 0, case
        assert 0 < overhead < 5, case


def test_five_modules_put_ht_on_the_fast_module(result: StudyResult) -> None:
    five = next(t for t in result.tables if "Five modules" in t.title)
    one = next(t for t in result.tables if "Table II" in t.title)
    assert five.rows[0][1] < next(r[1] for r in one.rows if "HT" in r[0])


def test_five_modules_cost_more_than_the_standalone_images(result: StudyResult) -> None:
    table = next(t for t in result.tables if "Five modules" in t.title)
    for case, os_ms, bare_ms, overhead in table.rows:
        assert os_ms > bare_ms > 0, case
        assert 0 < overhead < 5, case


@pytest.mark.parametrize("scenario,elf", [("one-sound", "ssl-one"), ("one-sound", "ssl-standalone"),
                                          ("five-sound", None), ("five-sound", "ssl-standalone-five")])
def test_ht_finds_the_source(scenario: str, elf: str | None) -> None:
    r = run(scenario, 1, elf)
    assert r.directions and all(abs(d - SOURCE_DIR) <= 2 for d in r.directions), r.directions


def test_noise_never_reaches_ht() -> None:
    r = run("one-noise", 1, "ssl-one")
    assert r.ht_ms is None and r.directions == ()


def test_a_missing_firmware_is_one_error() -> None:
    with pytest.raises(E4Error, match="missing"):
        run("one-sound", 1, "ssl-no-such")


def test_the_assignment_model_picks_the_measured_cheaper_module(result: StudyResult) -> None:
    table = next(t for t in result.tables if t.title.startswith("Jobs of L instructions"))
    cols = table.columns
    assert len(table.rows) >= 10
    for row in table.rows:
        r = dict(zip(cols, row))
        assert r["model"] == r["measured"], r
        if r["E_q_nJ"] is None:
            assert r["measured"] == "p", r


def test_the_event_log_only_adds_to_message_latency(result: StudyResult) -> None:
    table = next(t for t in result.tables if t.title.startswith("Message latency by destination"))
    assert {row[0] for row in table.rows} == {"Timer", "FFT", "SC", "Vote", "HT"}
    for dest, off, on, added in table.rows:
        assert 0 < off <= on, dest
        assert added == pytest.approx(on - off, abs=0.01), dest


def test_multicast_across_modules_is_judged_on_the_receivers_cycles(result: StudyResult) -> None:
    table = next(t for t in result.tables if t.title.startswith("Messages across the five modules"))
    assert all(row[1] > 0 and row[2] > 0 for row in table.rows)
    v = result.verdict("multicast_costlier_than_unicast")
    assert v.holds is not None and "cycles" in v.evidence


def test_energy_is_attributed_to_every_task_where_it_runs(result: StudyResult) -> None:
    table = next(t for t in result.tables if t.title.startswith("Energy by task"))
    where = {task: module for module, task, uj in table.rows if uj > 0}
    assert where["HT"] == where["Vote"] == where["Timer"] == "compute"
    for c in range(4):
        assert where[f"ADC{c}"] == where[f"FFT{c}"] == where[f"SC{c}"] == f"mic{c}"


def test_the_heap_high_water_fits_the_heap(result: StudyResult) -> None:
    row = next(c for c in result.comparisons if c.quantity.startswith("heap size"))
    size, peak = (int(x) for x in row.ours.split(" B")[0].split(" / "))
    assert 0 < peak < size


def test_the_overhead_splits_into_messaging_memory_and_the_rest() -> None:
    os_run, bare_run = run("one-sound", 1, "ssl-one"), run("one-sound", 1, "ssl-standalone")
    s = e4_overhead.split(os_run.sc_ms, "ssl-one")
    bare = e4_overhead.split(bare_run.sc_ms, "ssl-standalone")
    overhead = (os_run.sc_ms - bare_run.sc_ms) * s.clock_hz / 1e3
    assert s.messaging > 0 and s.memory > 0
    assert bare.messaging == bare.memory == bare.other_kernel == 0
    # What messaging and memory leave of the overhead is the rest of the kernel, the
    # application's extra cycles and the longer wake-up from the idle loop's deep sleep, to
    # the cycle the pin delay is rounded to.
    unexplained = overhead - s.messaging - s.memory
    assert unexplained == pytest.approx(s.other_kernel + s.rest - bare.rest + s.wakeup - bare.wakeup, abs=2)
    assert s.wakeup > bare.wakeup


def test_the_split_is_in_the_report(result: StudyResult) -> None:
    table = next(t for t in result.tables if t.title.startswith("The one-module overhead"))
    rows = {r[0].split(" (")[0]: r for r in table.rows}
    assert rows["messaging"][1] > 0 and rows["memory management"][1] > 0
    for col in (2, 4):
        assert rows["sum"][col] == pytest.approx(rows["measured overhead"][col], abs=0.001)
    # The event log's writes sit in the kernel's functions: compiling it out shrinks them.
    assert rows["messaging"][3] < rows["messaging"][1]


def test_a_window_before_the_last_sample_is_one_error() -> None:
    with pytest.raises(E4Error, match="before the round's last sample"):
        e4_overhead.split(100.0, "ssl-one")


FIVE_PARTS = ("messaging", "memory", "bus", "other_kernel", "app_drivers_libgcc", "wake_up")


def _rows(result: StudyResult, title: str) -> list[dict[str, Any]]:
    table = next(t for t in result.tables if t.title.startswith(title))
    return [dict(zip(table.columns, row)) for row in table.rows]


def test_the_five_module_split_sums_to_each_modules_busy_cycles(result: StudyResult) -> None:
    rows = [r for r in _rows(result, "The five-module overhead split by module") if r["unit"] == "cycles"]
    assert {r["module"] for r in rows} == {"compute", "mic0", "mic1", "mic2", "mic3"}
    for r in rows:
        # The parts come from the per-function profile and the wake-up count, busy from the
        # module's cycles less its sleep: two counters that must agree to the cycle.
        assert sum(r[p] for p in FIVE_PARTS) == r["busy"], r
        assert 0 < r["busy"] <= r["window"], r
        # One window in the device's time, each module's cycles at its own clock (each stops
        # on its own cycle: within one of the slowest clock, in us).
        assert r["window"] / r["clock_mhz"] == pytest.approx(
            rows[0]["window"] / rows[0]["clock_mhz"], abs=0.125)
    # Every sensing module sends its verdict to Vote over the bus in the window.
    for r in rows:
        if str(r["module"]).startswith("mic"):
            assert r["messaging"] > 0 and r["bus"] > 0, r


def test_the_critical_path_crosses_from_a_sensing_module_to_the_compute_module(result: StudyResult) -> None:
    rows = _rows(result, "The five-module round's critical path")
    stretches = [r for r in rows if r["stretch"].isdigit()]
    total = next(r for r in rows if r["stretch"] == "critical path")
    share = next(r for r in rows if r["stretch"] == "share %")
    assert [str(r["module"])[:3] for r in stretches] == ["mic", "com"]
    assert stretches[0]["from_ms"] == 0 and stretches[0]["to_ms"] == stretches[1]["from_ms"]
    assert stretches[1]["to_ms"] == total["to_ms"]
    for r in stretches:
        # Each stretch's length from its module's cycle counter is its span of the device's time.
        assert r["length_ms"] == pytest.approx(r["to_ms"] - r["from_ms"], abs=2e-4)
        assert r["asleep_ms"] >= 0
    # The compute module waits asleep for the verdict's frame on the wire.
    assert stretches[1]["asleep_ms"] > 0
    assert total["length_ms"] == pytest.approx(total["to_ms"], abs=2e-4)
    assert share["length_ms"] == pytest.approx(100, abs=0.01)
    assert all(stretches[0][f"{p}_ms"] > 0 for p in ("messaging", "memory", "bus"))


def test_the_critical_path_starts_with_the_longest_sensing_chain(result: StudyResult) -> None:
    chains = _rows(result, "Each sensing module's chain")
    first = next(r for r in _rows(result, "The five-module round's critical path") if r["stretch"] == "1")
    assert {r["module"] for r in chains} == {"mic0", "mic1", "mic2", "mic3"}
    longest = max(chains, key=lambda r: r["length_ms"])
    assert longest["module"] == first["module"] and longest["length_ms"] == first["length_ms"]
    for r in chains:
        assert r["messaging_ms"] > 0 and r["bus_ms"] > 0, r


def test_a_five_module_split_of_no_known_case_is_one_error() -> None:
    with pytest.raises(E4Error, match="no case"):
        e4_overhead_five.split("silence")
