"""The seeds' abstract workloads under the execution models (docs/models.md, "Workloads"):
the tree-network node of "A performance analysis of MANTIS and TinyOS" (section IV.A,
build/fw/tree-<model>.elf) and SimBed's task sets (build/fw/rtos-<model>.elf), checked
against the papers' qualitative findings with what cairn-sim measured. The parameters come
from generated scenarios: one firmware per model for every point."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.paths import firmware_dir, repo_root
from cairn.runners import run_sim
from cairn.workloads import MODELS, RTOS_MODELS, TaskSet, TaskSetResult, TreeNode, TreeResult, run_task_set, run_tree

SHORT, LONG = 1.0, 75.0  # l_s in ms: the paper's short and long sensing tasks
LEVEL = 3  # lambda = 7 packets/s
NON_PREEMPTIVE = ["tinyos", "nos", "coop"]
PREEMPTIVE = ["limit", "cairn", "mantis"]

Results = dict[tuple[str, int, float], TreeResult]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Results]:
    for model in MODELS:
        elf = firmware_dir() / f"tree-{model}.elf"
        assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    points = [(m, LEVEL, ls, 20) for m in MODELS for ls in (SHORT, LONG)]
    points += [(m, n, LONG, 20) for m in ("tinyos", "mantis", "cairn") for n in (1, 5)]
    out: Results = {}
    for model, n, ls, senses in points:
        d = tmp_path_factory.mktemp(f"{model}-n{n}-ls{ls:g}")
        out[(model, n, ls)] = run_tree(model, TreeNode(n=n, ls_ms=ls, senses=senses), d)
    yield out


def lp_ms() -> float:
    node = TreeNode(n=LEVEL, ls_ms=SHORT)
    return node.lp_cycles / (node.clock_hz / 1000)


@pytest.mark.parametrize("model", MODELS)
def test_every_model_runs_the_node(results: Results, model: str) -> None:
    for ls in (SHORT, LONG):
        r = results[(model, LEVEL, ls)]
        assert r.sensed == 20, r
        assert r.packets > 0 and r.forwarded == r.packets, r
        assert r.idle_percent <= r.idle_max_percent, r


def test_runs_are_exact(tmp_path: Path, results: Results) -> None:
    again = run_tree("tinyos", TreeNode(n=LEVEL, ls_ms=LONG, senses=20), tmp_path)
    assert again == results[("tinyos", LEVEL, LONG)]


@pytest.mark.parametrize("model", NON_PREEMPTIVE)
def test_run_to_completion_couples_packets_to_sensing(results: Results, model: str) -> None:
    """Section VI.D: under TinyOS a packet waits for the sensing task, so E_t and its
    deviation grow with l_s (Figs. 6 b and 7); with short sensing they stay near l_p."""
    short, long = results[(model, LEVEL, SHORT)], results[(model, LEVEL, LONG)]
    assert long.waited > 0, long
    assert long.e_mean_ms - short.e_mean_ms > lp_ms(), (short, long)
    assert long.e_stddev_ms > lp_ms() > short.e_stddev_ms, (short, long)


@pytest.mark.parametrize("model", PREEMPTIVE)
def test_preemption_decouples_packets_from_sensing(results: Results, model: str) -> None:
    """Section VI.D: with forwarding above sensing, E_t does not depend on l_s (Fig. 6 a):
    no packet waits for a sensing job, and the same arrivals cost the same."""
    short, long = results[(model, LEVEL, SHORT)], results[(model, LEVEL, LONG)]
    assert long.waited == 0, long
    assert abs(long.e_mean_ms - short.e_mean_ms) < lp_ms() / 10, (short, long)
    assert long.e_stddev_ms < lp_ms() / 10, long


def test_which_model_forwards_faster_depends_on_ls(results: Results) -> None:
    """Section VI.E: with short sensing TinyOS forwards faster (no context switch); with
    long sensing MANTIS does (preemption)."""
    assert results[("tinyos", LEVEL, SHORT)].e_mean_ms < results[("mantis", LEVEL, SHORT)].e_mean_ms
    assert results[("mantis", LEVEL, LONG)].e_mean_ms < results[("tinyos", LEVEL, LONG)].e_mean_ms


def test_threads_cost_idle_time(results: Results) -> None:
    """Section VII.D: MANTIS idles less than TinyOS (Figs. 9 and 10), its overhead growing
    with the node's load n, while TinyOS's stays small."""
    for ls in (SHORT, LONG):
        tinyos, mantis = results[("tinyos", LEVEL, ls)], results[("mantis", LEVEL, ls)]
        assert 0 < tinyos.overhead_percent < mantis.overhead_percent, (tinyos, mantis)
    growth = [results[("mantis", n, LONG)].overhead_percent for n in (1, LEVEL, 5)]
    assert growth == sorted(growth) and growth[0] < growth[-1], growth
    for n in (1, LEVEL, 5):
        assert results[("tinyos", n, LONG)].overhead_percent < results[("mantis", n, LONG)].overhead_percent


def test_threads_do_not_fragment_idle_time(results: Results) -> None:
    """Section VII.D, Fig. 11: both kernels see idle periods of about the same length and
    number: the thread switches shorten them, they do not split them."""
    for ls in (SHORT, LONG):
        tinyos, mantis = results[("tinyos", LEVEL, ls)], results[("mantis", LEVEL, ls)]
        assert abs(mantis.idle_periods - tinyos.idle_periods) <= tinyos.idle_periods // 10, (tinyos, mantis)
        assert abs(mantis.idle_mean_ms - tinyos.idle_mean_ms) < tinyos.idle_mean_ms / 10, (tinyos, mantis)


def test_limit_is_the_lower_bound(results: Results) -> None:
    """SimBed's LIMIT (section 2.2): the work with no OS idles the most, and its packets
    are the fastest."""
    for ls in (SHORT, LONG):
        limit = results[("limit", LEVEL, ls)]
        for model in MODELS:
            other = results[(model, LEVEL, ls)]
            assert limit.idle_percent >= other.idle_percent, (limit, other)
            assert limit.e_mean_ms <= other.e_mean_ms, (limit, other)


def test_message_kernel_preempts_at_less_cost_than_threads(results: Results) -> None:
    """Cairn's message tasks preempt on one stack: the packet time of the threads without
    their switches, and less idle time lost."""
    for ls in (SHORT, LONG):
        cairn, mantis = results[("cairn", LEVEL, ls)], results[("mantis", LEVEL, ls)]
        assert cairn.e_mean_ms < mantis.e_mean_ms, (cairn, mantis)
        assert cairn.overhead_percent < mantis.overhead_percent, (cairn, mantis)


def test_cooperative_executive_never_sleeps(results: Results) -> None:
    """SimBed, section 4: Echidna's idle loop polls the clock, so it cannot doze."""
    for ls in (SHORT, LONG):
        r = results[("coop", LEVEL, ls)]
        assert r.idle_percent == 0 and r.idle_periods == 0, r


def test_shipped_scenario_is_generated() -> None:
    shipped = repo_root() / "experiments" / "workloads" / "tree.toml"
    assert shipped.read_text() == TreeNode(n=LEVEL, ls_ms=LONG).scenario()


def test_firmware_without_parameters_says_so() -> None:
    res = run_sim(firmware_dir() / "tree-tinyos.elf", "--max-time", "10ms")
    assert res.status == 2, res.describe()
    assert res.text().count("\n") == 1 and "parameter block" in res.text(), res.describe()


def test_cli_refuses_bad_level() -> None:
    p = subprocess.run([sys.executable, "-m", "cairn.workloads", "tree", "--n", "0", "--ls-ms", "1"],
                       capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "n: 0" in p.stderr, p.stderr


# ---- SimBed's task sets (sections 2.2 and 3) on the bare models -----------------------

LIGHT = TaskSet(tasks=4, period_ms=16, background=True)
OVERLOAD = TaskSet(tasks=8, period_ms=1, kind="fir", background=True)
TICK_MS = 1.0  # the models' tick; Echidna's AP-IPC object polls once per tick

TaskSets = dict[tuple[str, TaskSet], TaskSetResult]


@pytest.fixture(scope="module")
def task_sets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TaskSets]:
    out: TaskSets = {}
    for ts in (LIGHT, OVERLOAD):
        for model in RTOS_MODELS:
            out[(model, ts)] = run_task_set(model, ts, tmp_path_factory.mktemp(f"rtos-{model}"))
    yield out


@pytest.mark.parametrize("model", RTOS_MODELS)
def test_task_set_runs_on_time_at_light_load(task_sets: TaskSets, model: str) -> None:
    r = task_sets[(model, LIGHT)]
    releases = LIGHT.run_ms // LIGHT.period_ms
    assert r.outputs >= LIGHT.tasks * (releases - 1), r
    assert max(-r.jitter_min_ms, r.jitter_max_ms) < TICK_MS, r  # within the models' clock
    assert r.apipc > 0 and r.apipc_answered == r.apipc, r


def test_echidna_answers_interrupts_at_its_poll(task_sets: TaskSets) -> None:
    """SimBed, section 3.2: Echidna's response time is spread over its 1 ms polling
    period; NOS answers almost at once at light load (as do the TinyOS-like model and
    Cairn's interrupt bound to a message), LIMIT at once."""
    coop = task_sets[("coop", LIGHT)]
    assert TICK_MS / 4 < coop.delay_mean_ms < 3 * TICK_MS / 4 and coop.delay_max_ms > TICK_MS / 2, coop
    for model in ("nos", "tinyos", "cairn"):
        assert task_sets[(model, LIGHT)].delay_mean_ms < coop.delay_mean_ms / 4, model
    limit = task_sets[("limit", LIGHT)]
    assert limit.delay_max_ms < coop.delay_mean_ms / 10, limit


def test_nos_starves_low_interrupts_under_overload(task_sets: TaskSets) -> None:
    """SimBed, section 2.4.3: NOS's fixed priorities ignore low-priority work while there
    is enough higher-priority work: with more FIR work than time, no AP-IPC interrupt is
    answered, where the handler of LIMIT answers every one."""
    nos, limit = task_sets[("nos", OVERLOAD)], task_sets[("limit", OVERLOAD)]
    assert nos.apipc > 0 and nos.apipc_answered == 0, nos
    assert limit.apipc_answered == limit.apipc > 0, limit


def test_mantis_degrades_under_overload(tmp_path: Path) -> None:
    """A resume on the MANTIS-like model is a binary semaphore's give (docs/models.md): as
    the FIR tasks' period shrinks past what the processor can do, the model keeps running
    and misses releases (resumes coalesce) rather than collapsing: its share of the
    releases put out falls with the load, and the work it gets done does not fall with
    it."""
    periods = (4, 3, 2, 1)
    runs: dict[int, TaskSetResult] = {}
    for p in periods:
        d = tmp_path / f"period-{p}"
        d.mkdir()
        runs[p] = run_task_set("mantis", TaskSet(tasks=8, period_ms=p, kind="fir", background=True), d)
    run_ms = TaskSet(tasks=8, period_ms=1).run_ms
    share = {p: r.outputs / (8 * (run_ms // p)) for p, r in runs.items()}
    assert share[4] > 0.95 and share[3] > 0.95, share  # within capacity: every release but the last
    assert share[1] < 0.75, share  # overload: releases are missed
    for a, b in zip(periods, periods[1:]):
        assert share[b] <= share[a] + 0.01, share
        # Past capacity (2 and 1 ms) each period's release thread costs its switches and
        # resumes, most of which only coalesce at 1 ms: the work done falls by about a fifth.
        assert runs[b].outputs >= 0.75 * runs[a].outputs, (a, b, runs[a], runs[b])
    for r in runs.values():
        # Every AP-IPC interrupt is answered, but for one that comes as the firmware stops
        # (seed 1 at 1 ms: the 55th comes in the run's last instant).
        assert r.apipc > 0 and r.apipc - 1 <= r.apipc_answered <= r.apipc, r


def test_only_echidna_cannot_doze(task_sets: TaskSets) -> None:
    """SimBed, section 4: Echidna polls its clock when idle; the others sleep."""
    assert task_sets[("coop", LIGHT)].idle_percent == 0
    for model in RTOS_MODELS:
        if model != "coop":
            assert task_sets[(model, LIGHT)].idle_percent > 50, model


def test_shipped_task_set_scenario_is_generated() -> None:
    shipped = repo_root() / "experiments" / "workloads" / "rtos.toml"
    assert shipped.read_text() == LIGHT.scenario()


def test_task_set_firmware_without_parameters_says_so() -> None:
    res = run_sim(firmware_dir() / "rtos-nos.elf", "--max-time", "10ms")
    assert res.status == 2, res.describe()
    assert res.text().count("\n") == 1 and "parameter block" in res.text(), res.describe()


IPC_ENERGY = TaskSet(tasks=4, period_ms=4, energy=True)
FIR_ENERGY = TaskSet(tasks=4, period_ms=4, kind="fir", energy=True)


@pytest.fixture(scope="module")
def energy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TaskSets]:
    out: TaskSets = {}
    for ts in (IPC_ENERGY, FIR_ENERGY):
        for model in RTOS_MODELS:
            out[(model, ts)] = run_task_set(model, ts, tmp_path_factory.mktemp(f"energy-{model}"))
    yield out


def test_same_work_costs_the_same_user_energy(energy: TaskSets) -> None:
    """SimBed runs the same application code on every RTOS: its user energy is the same."""
    for ts in (IPC_ENERGY, FIR_ENERGY):
        users = [energy[(m, ts)].energy_uj["user"] for m in RTOS_MODELS]
        assert max(users) - min(users) < min(users) / 100, users


def test_an_os_is_overkill_for_trivial_jobs(energy: TaskSets) -> None:
    """SimBed, section 3.3 (Figs. 6 and 7): for P-IPC, which only moves data, every
    scheduler's kernel energy exceeds the jobs' own, LIMIT's kernel energy is the least; for
    FIR the overhead is a far smaller share of the work."""
    kernel = {m: energy[(m, IPC_ENERGY)].energy_uj["kernel"] for m in RTOS_MODELS}
    for model in RTOS_MODELS:
        ipc, fir = energy[(model, IPC_ENERGY)].energy_uj, energy[(model, FIR_ENERGY)].energy_uj
        if model != "limit":
            assert ipc["kernel"] > ipc["user"], (model, ipc)
            assert kernel["limit"] < kernel[model], kernel
        assert fir["kernel"] / fir["user"] < ipc["kernel"] / ipc["user"] / 10, (model, ipc, fir)


def test_doze_saves_energy(tmp_path: Path) -> None:
    """SimBed, section 3.4: NOS idling with the doze instruction rather than polling spends
    far less energy for the same work."""
    runs = {doze: run_task_set("nos", TaskSet(tasks=1, period_ms=4, energy=True, doze=doze), tmp_path)
            for doze in (True, False)}  # fmt: skip
    assert runs[True].energy_uj["user"] == pytest.approx(runs[False].energy_uj["user"], rel=0.01)
    assert runs[False].idle_percent == 0 < runs[True].idle_percent
    assert sum(runs[True].energy_uj.values()) < sum(runs[False].energy_uj.values()) / 2, runs


def test_task_set_firmware_refuses_a_bad_parameter(tmp_path: Path) -> None:
    scenario = tmp_path / "nine.toml"
    text = LIGHT.scenario()
    assert "index = 0\ndeliver = [{ at = \"0s\", value = 4 }]" in text
    scenario.write_text(text.replace("index = 0\ndeliver = [{ at = \"0s\", value = 4 }]",
                                     "index = 0\ndeliver = [{ at = \"0s\", value = 9 }]"))  # fmt: skip
    res = run_sim(firmware_dir() / "rtos-coop.elf", "--device", str(scenario), "--max-time", "10ms")
    assert res.status == 2 and res.text() == "rtos: parameter block: IN[0] (tasks) must be 1 to 8\n", res.describe()
