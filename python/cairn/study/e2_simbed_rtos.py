"""E2: SimBed's study of embedded RTOSs ("The Performance and Energy Consumption of Embedded
Real-Time Operating Systems") reproduced on cairn-sim.

SimBed ran P-IPC, UP, DOWN, FIR, ADPCM and G721 task sets (1-8 tasks, periods from 16 ms down,
with and without the AP-IPC + control-loop background load) under uC/OS-II (preemptive), Echidna (cooperative) and
NOS (a multirate executive) on a 20 MHz M-CORE, measuring jitter, interrupt response delay and
energy by category. Here the same task sets (cairn.workloads.tasksets, kernel/models/rtos/)
run on a 20 MHz Cortex-M0+ under the MANTIS-like preemptive threads (for uC/OS-II), the
Echidna-style cooperative executive, NOS, Cairn's message kernel and the no-OS LIMIT.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from cairn.workloads import TaskSet

from . import e2_sampling_codecs, histogram, plots
from .e2_runs import LABEL, MODELS, SCHEDULERS, Point, run_point
from .paper import Paper
from .result import Comparison, Figure, OurTable, StudyResult, Verdict

NAME = "e2-simbed-rtos"
ACTIVE = ("user", "kernel", "handler", "lib", "timer")


@dataclass(frozen=True)
class Grid:
    tasks: tuple[int, ...]
    periods: tuple[int, ...]
    run_ms: int


GRID = {
    "reduced": Grid((1, 8), (16, 4, 1), 256),
    "full": Grid((1, 2, 4, 8), (16, 8, 4, 2, 1), 512),
}


Key = tuple[str, str, int, int, bool, bool]  # model, kind, tasks, period, background, doze


def sweep(g: Grid) -> dict[Key, Point]:
    out: dict[Key, Point] = {}
    with tempfile.TemporaryDirectory() as root:
        for model in MODELS:
            for kind in ("pipc", "fir"):
                for tasks in g.tasks:
                    for period in g.periods:
                        ts = TaskSet(tasks, period, kind, background=True, run_ms=g.run_ms, energy=True)
                        out[(model, kind, tasks, period, True, True)] = run_point(model, ts, Path(root))
        for model in ("nos", "mantis", "cairn"):
            for tasks in (1, 8):
                ts = TaskSet(tasks, 16, "pipc", background=True, run_ms=g.run_ms, energy=True, doze=False)
                out[(model, "pipc", tasks, 16, True, False)] = run_point(model, ts, Path(root))
    return out


def meets(p: Point, period_ms: int, tasks: int, run_ms: int) -> bool:
    """On time: every output came, none more than a tenth of the period early or late."""
    r = p.result
    if r is None:
        return False
    expected = tasks * max(run_ms // period_ms - 1, 1)  # the first release's output may fall in the next period
    tol = period_ms / 10
    return r.outputs >= 0.95 * expected and r.jitter_max_ms <= tol and r.jitter_min_ms >= -tol


def run(paper: Paper, size: str = "reduced") -> StudyResult:
    g = GRID[size]
    res = sweep(g)
    heavy, light = (max(g.tasks), min(g.periods)), (min(g.tasks), max(g.periods))

    def ok(model: str, kind: str, tasks: int, period: int) -> bool:
        return meets(res[(model, kind, tasks, period, True, True)], period, tasks, g.run_ms)

    def breaking_period(model: str, kind: str, tasks: int) -> int:
        """The longest period at which the model misses (0: it meets every period tried)."""
        return max((p for p in g.periods if not ok(model, kind, tasks, p)), default=0)

    def energy(model: str, kind: str, tasks: int, period: int, doze: bool = True) -> dict[str, float]:
        p = res[(model, kind, tasks, period, True, doze)]
        return p.result.energy_uj if p.result else {}

    r = StudyResult(study=NAME, size=size, setup=(
        f"SimBed's task sets on one simulated 20 MHz Cortex-M0+ (SimBed: a 20 MHz M-CORE): P-IPC and "
        f"128-tap FIR tasks, {list(g.tasks)} tasks, periods {list(g.periods)} ms, {g.run_ms} ms per run, "
        f"with the background load (AP-IPC: an interrupt every 100 us with probability 0.01; a 32 ms "
        f"control loop), under {', '.join(LABEL[m] for m in MODELS)} (kernel/models/rtos/, one workload "
        f"source). Jitter is measured at each task's output port, the AP-IPC response at a marker pin, "
        f"energy with the STM32L053 profile by SimBed's categories (user, kernel, handler, idle). "
        f"'On time' means every output came, none off its period by more than a tenth."))

    rows = []
    for (model, kind, tasks, period, bg, doze), p in sorted(res.items()):
        if p.result is None:
            rows.append((LABEL[model], kind, tasks, period, "yes" if doze else "no", "failed: " + p.failure[:60],
                         "", "", "", ""))
            continue
        x = p.result
        rows.append((LABEL[model], kind, tasks, period, "yes" if doze else "no",
                     "yes" if meets(p, period, tasks, g.run_ms) else "no",
                     f"{x.jitter_min_ms:+.3f} .. {x.jitter_max_ms:+.3f}", f"{x.delay_mean_ms:.3f} / {x.delay_max_ms:.3f}",
                     f"{x.apipc_answered}/{x.apipc}", f"{sum(x.energy_uj.values()):.0f}"))
    r.tables.append(OurTable("Every run: on time, jitter range (ms), AP-IPC delay mean / max (ms), interrupts "
                             "answered, energy (uJ)",
                             ("model", "kind", "tasks", "period ms", "doze", "on time", "jitter", "delay",
                              "answered", "energy"), tuple(rows)))

    cats = ("user", "kernel", "handler", "idle")
    for kind, period in (("pipc", max(g.periods)), ("fir", min(g.periods))):
        layers = [(c, [energy(m, kind, heavy[0], period).get(c, 0.0) for m in MODELS]) for c in cats]
        r.figures.append(Figure(f"energy-{kind}", f"Energy of {heavy[0]} {kind.upper()} tasks every {period} ms by "
                                f"category, per model (SimBed's Figs. {'6' if kind == 'pipc' else '7'}).",
                                plots.stacked_bars(f"{kind.upper()}, {heavy[0]} tasks, {period} ms", "energy (uJ)",
                                                   [m for m in MODELS], layers)))
    dens = []
    for m in MODELS:
        p = res[(m, "pipc", heavy[0], max(g.periods), True, True)]
        if p.result is not None:
            xs, ps = histogram.density(p.stats["io"]["jitter"][f"task{k}"]["histogram"] for k in range(heavy[0]))
            dens.append((LABEL[m], xs, ps))
    r.figures.append(Figure("jitter", f"Jitter of {heavy[0]} P-IPC tasks every {max(g.periods)} ms with background "
                            "load: probability per 100 us bin (SimBed's Fig. 2).",
                            plots.density("P-IPC jitter", "jitter (ms)", dens)))

    # The paper's conclusions.
    cliff = {m: ok(m, "pipc", light[0], light[1]) and not ok(m, "fir", heavy[0], heavy[1]) for m in SCHEDULERS}
    r.verdicts.append(Verdict("deadline_cliff", all(cliff.values()),
                              "; ".join(f"{m}: on time at {light[0]} P-IPC / {light[1]} ms "
                                        f"{'yes' if ok(m, 'pipc', light[0], light[1]) else 'no'}, at {heavy[0]} FIR / "
                                        f"{heavy[1]} ms {'yes' if ok(m, 'fir', heavy[0], heavy[1]) else 'no'}"
                                        for m in SCHEDULERS)))
    nos_heavy = res[("nos", "fir", heavy[0], heavy[1], True, True)].result
    nos_light = res[("nos", "pipc", light[0], light[1], True, True)].result
    starved = bool(nos_heavy and nos_light and nos_heavy.apipc_answered <= 0.1 * max(nos_heavy.apipc, 1)
                   and nos_light.apipc_answered == nos_light.apipc)
    r.verdicts.append(Verdict("nos_starves_low_priority", starved,
                              f"NOS answered {nos_light.apipc_answered if nos_light else '-'}/{nos_light.apipc if nos_light else '-'} "
                              f"AP-IPC interrupts at light load, {nos_heavy.apipc_answered if nos_heavy else '-'}/"
                              f"{nos_heavy.apipc if nos_heavy else '-'} overloaded"))
    brk = {m: breaking_period(m, "pipc", heavy[0]) for m in SCHEDULERS}
    r.verdicts.append(Verdict("echidna_breaks_first", brk["coop"] >= max(brk["mantis"], brk["nos"]) and brk["coop"] > 0,
                              f"longest period missed with {heavy[0]} P-IPC tasks: " +
                              ", ".join(f"{m} {brk[m] or 'none'}" for m in SCHEDULERS)))
    fir_first = {m: breaking_period(m, "fir", heavy[0]) >= breaking_period(m, "pipc", heavy[0]) for m in SCHEDULERS}
    r.verdicts.append(Verdict("fir_breaks_before_ipc", all(fir_first.values()),
                              ", ".join(f"{m}: FIR misses from {breaking_period(m, 'fir', heavy[0]) or 'none'} ms, P-IPC "
                                        f"from {breaking_period(m, 'pipc', heavy[0]) or 'none'}" for m in SCHEDULERS)))

    def delay_max(model: str, kind: str, tasks: int, period: int) -> float | None:
        p = res[(model, kind, tasks, period, True, True)].result
        return p.delay_max_ms if p and p.apipc_answered else None

    pl, ph = delay_max("mantis", "pipc", light[0], light[1]), delay_max("mantis", "pipc", heavy[0], light[1])
    cl, ch = delay_max("coop", "pipc", light[0], light[1]), delay_max("coop", "pipc", heavy[0], light[1])
    indep = None not in (pl, ph, cl, ch) and ph <= 2 * pl + 0.05 and ch > cl  # type: ignore[operator]
    r.verdicts.append(Verdict("preemptive_delay_independent_of_load", indep,
                              f"AP-IPC max delay, {light[0]} -> {heavy[0]} P-IPC tasks at {light[1]} ms: preemptive "
                              f"{pl} -> {ph} ms, cooperative {cl} -> {ch} ms"))
    nos_d = res[("nos", "pipc", light[0], light[1], True, True)].result
    spread = bool(nos_d and nos_d.apipc_answered and nos_d.delay_max_ms >= 0.5)
    r.verdicts.append(Verdict("nos_doze_spreads_delay", spread,
                              f"NOS with doze at light load: AP-IPC delay mean {nos_d.delay_mean_ms if nos_d else '-'} ms, "
                              f"max {nos_d.delay_max_ms if nos_d else '-'} ms against a 1 ms tick (our NOS wakes from "
                              f"sleep on the interrupt itself, where SimBed's M-CORE doze woke on the timer only)"))
    lim = sum(energy("limit", "pipc", heavy[0], max(g.periods)).values())
    over = {m: (energy(m, "pipc", heavy[0], max(g.periods)).get("kernel", 0.0),
                energy(m, "pipc", heavy[0], max(g.periods)).get("user", 0.0)) for m in SCHEDULERS}
    r.verdicts.append(Verdict("ipc_rtos_overkill", all(k > u for k, u in over.values()),
                              f"P-IPC, {heavy[0]} tasks every {max(g.periods)} ms, kernel / user energy (uJ): " +
                              ", ".join(f"{m} {k:.0f} / {u:.0f}" for m, (k, u) in over.items()) + f"; LIMIT total {lim:.0f}"))

    def kernel(model: str, tasks: int) -> float:
        return energy(model, "pipc", tasks, max(g.periods)).get("kernel", 0.0)

    growth = {m: kernel(m, heavy[0]) / kernel(m, light[0]) if kernel(m, light[0]) else 0.0 for m in SCHEDULERS}
    scales = growth["nos"] > growth["mantis"] and kernel("nos", light[0]) < kernel("mantis", light[0])
    r.verdicts.append(Verdict("nos_kernel_scales_with_load", scales,
                              f"kernel energy at {max(g.periods)} ms, {light[0]} -> {heavy[0]} P-IPC tasks: " +
                              ", ".join(f"{m} {kernel(m, light[0]):.0f} -> {kernel(m, heavy[0]):.0f} uJ" for m in SCHEDULERS)))
    same_rate = [(t, p) for t in g.tasks for p in g.periods if t * 1000 // p == heavy[0] * 1000 // max(g.periods)]
    if len(same_rate) >= 2:
        ks = {tp: energy("nos", "fir", tp[0], tp[1]).get("kernel", 0.0) for tp in same_rate}
        order = sorted(same_rate, key=lambda tp: tp[0])
        cheaper = all(ks[a] <= ks[b] for a, b in zip(order, order[1:]))
        r.verdicts.append(Verdict("faster_cheaper_than_more_tasks", cheaper,
                                  "NOS kernel energy at the same job rate: " +
                                  ", ".join(f"{t} tasks / {p} ms {ks[(t, p)]:.0f} uJ" for t, p in order)))
    else:
        r.verdicts.append(Verdict("faster_cheaper_than_more_tasks", None,
                                  "this size's grid has no two points at the same job rate (the full size has)"))
    doze_on = sum(energy("nos", "pipc", light[0], 16).values())
    doze_off = sum(energy("nos", "pipc", light[0], 16, doze=False).values())
    r.verdicts.append(Verdict("doze_saves_energy", 0 < doze_on < doze_off,
                              f"NOS, {light[0]} P-IPC task every 16 ms: {doze_on:.0f} uJ with doze, {doze_off:.0f} uJ polling"))

    # SimBed's processors never slept, so its totals are the cycles' energy: compare the
    # energy of the code that ran (sleep and the peripherals' standing current left out).
    def active(model: str, kind: str, tasks: int, period: int) -> float | None:
        p = res[(model, kind, tasks, period, True, True)].result
        return sum(v for c, v in p.energy_uj.items() if c in ACTIVE) if p else None

    def factor(model: str, kind: str, tasks: int, period: int) -> str:
        a, base = active(model, kind, tasks, period), active("limit", kind, tasks, period)
        return f"{LABEL[model]} {a / base:.1f}x" if a is not None and base else f"{LABEL[model]} did not finish"

    ipc = paper.value("ipc_kernel_energy_factor_nos")
    r.comparisons.append(Comparison(ipc.ref, f"P-IPC energy of the code that ran / the no-OS limit's, {heavy[0]} tasks, "
                                    f"{max(g.periods)} ms", f"NOS about {ipc.value}x",
                                    ", ".join(factor(m, "pipc", heavy[0], max(g.periods)) for m in SCHEDULERS)))
    fir_f = paper.value("fir_kernel_energy_factor")
    r.comparisons.append(Comparison(fir_f.ref, f"FIR energy of the code that ran / the limit's, {heavy[0]} tasks, "
                                    f"{min(g.periods)} ms", "NOS below 2x; Echidna, uC/OS-II below 3x",
                                    ", ".join(factor(m, "fir", heavy[0], min(g.periods)) for m in SCHEDULERS)))
    r.comparisons.append(Comparison(paper.value("echidna_min_period").ref, "shortest period the cooperative model schedules",
                                    "1 ms (Echidna)", f"{min(g.periods)} ms tried, "
                                    f"{'on time' if ok('coop', 'pipc', light[0], min(g.periods)) else 'late'} with one P-IPC task"))
    failed = [k for k, p in res.items() if p.result is None]
    r.differences = (
        "SimBed ran the real uC/OS-II, Echidna and NOS; here they are small runtimes after the paper's "
        "descriptions on another instruction set, and uC/OS-II's place is taken by the MANTIS-like "
        "preemptive threads, so absolute energies and breaking points differ while the mechanisms "
        "(preemption, cooperative polling, a multirate executive with masked, polled interrupts) are the "
        "paper's. Each of SimBed's tasks is two separately scheduled jobs, and so they are here under every "
        "model (LIMIT calls both from its tick). "
        + (f"{len(failed)} runs did not finish ({', '.join(sorted({LABEL[k[0]] for k in failed}))}): the "
           f"model collapsed under overload (message pool or mailboxes full), counted as missing its "
           f"deadlines. " if failed else "").rstrip())
    e2_sampling_codecs.add(r, paper, size)
    return r

