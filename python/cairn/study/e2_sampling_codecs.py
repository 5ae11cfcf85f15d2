"""E2's UP, DOWN, ADPCM and G721 task sets (SimBed, sections 2.2, 3.1, 3.2 and 3.4): UP's
jitter densities in Fig. 4's layout, the AP-IPC delay densities of Fig. 5's three loads,
DOWN's and the codecs' runs, and the paper's statements about them judged on the
measurements."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from cairn.workloads import TaskSet

from . import histogram, plots
from .e2_runs import LABEL, MODELS, SCHEDULERS, Point, run_point
from .paper import Paper
from .result import Comparison, Figure, OurTable, StudyResult, Verdict

BIN_MS = 0.1  # SimBed's density bins


@dataclass(frozen=True)
class Grid:
    up_models: tuple[str, ...]
    up_pairs: tuple[tuple[int, int], ...]  # (slower job's period, faster job's period) in ms
    up_tasks: tuple[int, ...]
    down_ratios: tuple[int, ...]
    run_ms: int
    delay_run_ms: int  # Fig. 5's runs: long enough for a few hundred AP-IPC interrupts at full size


GRID = {
    "reduced": Grid(("coop", "mantis"), ((8, 1),), (1, 8), (8,), 256, 384),
    "full": Grid(SCHEDULERS, ((8, 4), (8, 2), (8, 1), (4, 2), (4, 1), (2, 1)), (1, 2, 4, 8), (2, 4, 8), 512, 2048),
}

#: Fig. 5's columns: light (1 G721 decode task every 16 ms) to heavy (8 ADPCM encode tasks
#: every 80 ms); SimBed ran Echidna's 4 G721 tasks every 2 ms, the others' every 1 ms.
LOADS = ("1 G721, 16 ms", "4 G721, 1-2 ms", "8 ADPCM, 80 ms")
COST_KINDS = ("pipc", "up", "down", "fir", "adpcm", "g721")

Runs = dict[tuple[str, TaskSet], Point]


def up_point(tasks: int, pair: tuple[int, int], background: bool, g: Grid) -> TaskSet:
    slow, fast = pair
    return TaskSet(tasks, fast, "up", background=background, run_ms=g.run_ms, ratio=slow // fast)


def load_point(model: str, load: int, g: Grid) -> TaskSet:
    tasks, period, kind = ((1, 16, "g721"), (4, 2 if model == "coop" else 1, "g721"), (8, 80, "adpcm"))[load]
    return TaskSet(tasks, period, kind, background=True, run_ms=g.delay_run_ms, energy=True)


def one_adpcm(g: Grid) -> TaskSet:
    return TaskSet(1, 80, "adpcm", background=True, run_ms=g.delay_run_ms, energy=True)


def down_point(tasks: int, ratio: int, g: Grid) -> TaskSet:
    return TaskSet(tasks, 1, "down", background=True, run_ms=g.run_ms, ratio=ratio)


def cost_point(kind: str, g: Grid) -> TaskSet:
    """One task every 16 ms alone on LIMIT: what one release of each kind's jobs costs."""
    return TaskSet(1, 16, kind, run_ms=g.run_ms, energy=True, ratio=2 if kind in ("up", "down") else 1)


def sweep(g: Grid) -> Runs:
    points: list[tuple[str, TaskSet]] = []
    for m in g.up_models:
        points += [(m, up_point(t, pair, bg, g)) for pair in g.up_pairs for bg in (False, True) for t in g.up_tasks]
        points += [(m, down_point(t, r, g)) for r in g.down_ratios for t in (1, 8)]
    for m in MODELS:
        points += [(m, load_point(m, i, g)) for i in range(len(LOADS))] + [(m, one_adpcm(g))]
    points += [("limit", cost_point(k, g)) for k in COST_KINDS]
    points += [("limit", load_point("coop", 1, g))]  # the cooperative model's period, for _load
    with tempfile.TemporaryDirectory() as root:
        return {(m, ts): run_point(m, ts, Path(root)) for m, ts in points}


def _jitter_density(p: Point, tasks: int) -> tuple[list[float], list[float]]:
    return histogram.density(p.stats["io"]["jitter"][f"task{k}"]["histogram"] for k in range(tasks))


def _delay_density(p: Point) -> tuple[list[float], list[float]]:
    d = p.stats.get("io", {}).get("delay", {}).get("apipc")
    return histogram.density([d["histogram"]]) if d and d["answered"] else ([], [])


def _off_time(xs: list[float], ps: list[float]) -> float:
    """The share of outputs a whole bin or more off the period (outside the two bins around 0)."""
    return sum(p for x, p in zip(xs, ps) if abs(x) > BIN_MS)


def _busy(p: Point) -> float | None:
    return 100.0 - p.result.idle_percent if p.result else None


def _load(runs: Runs, model: str, i: int, g: Grid) -> float | None:
    """Fig. 5's load i as the share of the CPU it takes with no OS (LIMIT), at the model's period:
    the cooperative model never idles, so its own busy share says nothing."""
    ts = load_point(model, i, g)
    limit = runs.get(("limit", ts))
    return _busy(limit) if limit else None


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}%"


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def add(r: StudyResult, paper: Paper, size: str) -> None:
    """Runs this size's grid and adds its table, figures, verdicts and comparisons to r."""
    g = GRID[size]
    runs = sweep(g)
    _table(r, runs)
    _up_figures(r, runs, g)
    _delay_figure(r, runs, g)
    _delay_table(r, runs, g)
    _up_verdict(r, runs, g)
    _delay_verdicts(r, runs, g)
    cost = _cost_verdict(r, runs, g)
    _energy_comparisons(r, paper, runs, g)
    r.differences += (
        " Every task's input and output jobs are scheduled separately by each model (a message, post, object, "
        "event or turn of the round robin per job; LIMIT calls both from its tick), UP's and DOWN's at their own "
        "rates, the other kinds' output job after its release's input job. DOWN puts out a window's mean one "
        "period after its last read; ADPCM and G721 encode or decode one sample per job (an IMA ADPCM encoder and a "
        "G.721 decoder core without the A-/u-law output stage, both written from the algorithms). One release "
        "costs " + ", ".join(f"{k.upper()} {v:.2f} uJ" for k, v in cost.items()) + " of user energy on LIMIT, "
        f"so 8 ADPCM tasks every 80 ms take {_pct(_load(runs, 'nos', 2, g))} of the processor with no OS: a light "
        f"load here, where SimBed's Fig. 5 calls it the heaviest, and the heaviest of our three is 4 G721 tasks "
        f"({_pct(_load(runs, 'nos', 1, g))} every 1 ms)."
    )


def _table(r: StudyResult, runs: Runs) -> None:
    rows = []
    for (m, ts), p in runs.items():
        head = (LABEL[m], ts.label, ts.tasks, ts.period_ms, "AP-IPC+CL" if ts.background else "none")
        if p.result is None:
            rows.append((*head, "failed: " + p.failure[:60], "", "", "", ""))
            continue
        x = p.result
        rows.append((*head, f"{x.jitter_min_ms:+.3f} .. {x.jitter_max_ms:+.3f}",
                     f"{x.delay_mean_ms:.3f} / {x.delay_max_ms:.3f}" if x.apipc else "",
                     f"{x.apipc_answered}/{x.apipc}" if x.apipc else "", _pct(_busy(p)),
                     f"{sum(x.energy_uj.values()):.0f}" if x.energy_uj else ""))
    r.tables.append(OurTable("UP, DOWN, ADPCM and G721 runs: jitter range (ms), AP-IPC delay mean / max (ms), "
                             "interrupts answered, CPU busy, energy (uJ)",
                             ("model", "kind", "tasks", "period ms", "background", "jitter", "delay", "answered",
                              "busy", "energy"), tuple(rows)))


def _up_figures(r: StudyResult, runs: Runs, g: Grid) -> None:
    columns = [f"{s}/{f} ms" for s, f in g.up_pairs]
    backgrounds = ((False, "no background"), (True, "AP-IPC+CL"))
    for m in g.up_models:
        panels = []
        for bg, _ in backgrounds:
            row = []
            for pair in g.up_pairs:
                series = []
                for t in g.up_tasks:
                    p = runs[(m, up_point(t, pair, bg, g))]
                    if p.result is not None:
                        series.append((f"{t} tasks", *_jitter_density(p, t)))
                row.append(series)
            panels.append(row)
        r.figures.append(Figure(f"up-jitter-{m}", f"UP jitter under {LABEL[m]}: probability per 100 us bin of each "
                                f"output's deviation from the faster job's period, by slower/faster period, without "
                                f"and with background load, one marker per task count (SimBed's Fig. 4).",
                                plots.density_grid(f"UP jitter, {LABEL[m]}", "jitter (ms)",
                                                   [b for _, b in backgrounds], columns, panels)))


def _delay_figure(r: StudyResult, runs: Runs, g: Grid) -> None:
    panels = []
    for m in MODELS:
        row = []
        for i in range(len(LOADS)):
            p = runs[(m, load_point(m, i, g))]
            xs, ps = _delay_density(p) if p.result else ([], [])
            row.append([("AP-IPC delay", xs, ps)] if xs else [])
        panels.append(row)
    r.figures.append(Figure("delay", "AP-IPC delay (interrupt to the answering job's output) with the control loop "
                            "and AP-IPC background: probability per 100 us bin, per model and load; the cooperative "
                            "model runs its 4 G721 tasks every 2 ms, the others every 1 ms (SimBed's Fig. 5).",
                            plots.density_grid("AP-IPC delay", "delay (ms)", [LABEL[m] for m in MODELS],
                                               list(LOADS), panels, x_span=(0.0, 1.0))))


def _kept_up(p: Point, ts: TaskSet) -> bool:
    """Every output came: a model that falls behind is overloaded, not interfering with itself."""
    expected = ts.tasks * (ts.run_ms // ts.output_period_ms - 1)
    return p.result is not None and p.result.outputs >= 0.95 * expected


def _delay_table(r: StudyResult, runs: Runs, g: Grid) -> None:
    rows = []
    for m in MODELS:
        for i, load in enumerate(LOADS):
            p = runs[(m, load_point(m, i, g))]
            if p.result is None:
                rows.append((LABEL[m], load, "", "failed: " + p.failure[:60]))
                continue
            xs, ps = _delay_density(p)
            rows.append((LABEL[m], load, f"{p.result.apipc_answered}/{p.result.apipc}",
                         " ".join(f"{x:.2f}:{share:.3f}" for x, share in zip(xs, ps))))
    r.tables.append(OurTable("SimBed's Fig. 5 as numbers: AP-IPC delay density, bin centre (ms): share of the "
                             "answered interrupts, per 100 us bin (empty bins left out)",
                             ("model", "load", "answered", "density"), tuple(rows)))


#: The paper's kernels the claim names: Echidna and uC/OS-II (whose place the preemptive model takes).
UP_JUDGED = ("coop", "mantis")


def _up_verdict(r: StudyResult, runs: Runs, g: Grid) -> None:
    worst: dict[str, tuple[float, str, float]] = {}
    for m in g.up_models:
        for pair in g.up_pairs:
            for t in g.up_tasks:
                ts = up_point(t, pair, False, g)
                p = runs[(m, ts)]
                if not _kept_up(p, ts) or p.result is None:
                    continue
                off = _off_time(*_jitter_density(p, t))
                spread = p.result.jitter_max_ms - p.result.jitter_min_ms
                if m not in worst or (off, spread) > (worst[m][0], worst[m][2]):
                    worst[m] = (off, f"{t} tasks, {pair[0]}/{pair[1]} ms", spread)
    holds = all(m in worst and worst[m][0] > 0 for m in UP_JUDGED)
    r.verdicts.append(Verdict("up_self_interference", holds,
                              "UP without background, the runs that kept up: " + "; ".join(
                                  f"{LABEL[m]}: at most {off:.1%} of outputs 100 us or more off the period ({where}), "
                                  f"jitter range up to {spread * 1e3:.0f} us"
                                  for m, (off, where, spread) in worst.items())
                              + (" (the cooperative model's jobs are separate objects, but a UP input job and its "
                                 "dispatch take a few microseconds, so even eight of them delay an output by less "
                                 "than a bin)" if "coop" in worst and worst["coop"][0] == 0 else "")))


def _delay_stats(runs: Runs, m: str, g: Grid) -> list[tuple[Point, float, float, float]]:
    """Per load: the run, delay mean and max (ms), the largest share in 200 us."""
    out = []
    for i in range(len(LOADS)):
        p = runs[(m, load_point(m, i, g))]
        xs, ps = _delay_density(p) if p.result else ([], [])
        by = {round(x, 6): p for x, p in zip(xs, ps)}
        dense = max((by[round(x, 6)] + by.get(round(x + BIN_MS, 6), 0.0) for x in xs), default=0.0)
        x = p.result
        out.append((p, x.delay_mean_ms if x else 0.0, x.delay_max_ms if x else 0.0, dense))
    return out


def _delay_verdicts(r: StudyResult, runs: Runs, g: Grid) -> None:
    coop = _delay_stats(runs, "coop", g)
    light = coop[0][0]
    xs, ps = _delay_density(light) if light.result else ([], [])
    within = sum(p for x, p in zip(xs, ps) if x < 1.0)
    filled = sum(1 for x in xs if x < 1.0)
    mean = light.result.delay_mean_ms if light.result else 0.0
    # Uniform over [0, 1 ms): nearly all below 1 ms, the mean near 0.5 ms, most bins used.
    uniform = within >= 0.95 and 0.35 <= mean <= 0.65 and filled >= 7
    r.verdicts.append(Verdict("echidna_delay_uniform_over_tick", uniform,
                              f"cooperative model, {LOADS[0]}: {within:.0%} of delays below 1 ms, mean {mean:.3f} ms, "
                              f"{filled} of the ten 100 us bins below 1 ms hold some"))
    heavy = max(coop[1:], key=lambda s: s[2])
    r.verdicts.append(Verdict("echidna_delay_spreads_under_heavy_load", heavy[2] > 1.5,
                              "cooperative model, longest delay: " + ", ".join(
                                  f"{LOADS[i]} {_ms(s[2])} ms (load {_pct(_load(runs, 'coop', i, g))} of the CPU)"
                                  for i, s in enumerate(coop))))
    pre = _delay_stats(runs, "mantis", g)
    r.verdicts.append(Verdict("preemptive_delay_precise", all(s[0].result and s[3] >= 0.9 for s in pre),
                              "preemptive model, share of delays in the fullest 200 us: " + ", ".join(
                                  f"{LOADS[i]} {s[3]:.0%} (mean {_ms(s[1])} ms)" for i, s in enumerate(pre))))
    means = [s[1] for s in pre]
    r.verdicts.append(Verdict("preemptive_delay_scales_with_tasks",
                              all(s[0].result for s in pre) and means[0] < means[1] < means[2],
                              "preemptive model, mean delay with 1, 4 and 8 tasks: " +
                              ", ".join(f"{_ms(v)} ms" for v in means)))
    nos = _delay_stats(runs, "nos", g)
    load = [_load(runs, "nos", i, g) or 0.0 for i in range(len(LOADS))]
    lo, hi = min(range(len(LOADS)), key=lambda i: load[i]), max(range(len(LOADS)), key=lambda i: load[i])
    r.verdicts.append(Verdict("nos_delay_grows_with_load", all(s[0].result for s in nos) and nos[hi][1] > nos[lo][1],
                              "NOS, mean delay by load: " + ", ".join(
                                  f"{LOADS[i]} {_ms(s[1])} ms (load {_pct(load[i])})" for i, s in enumerate(nos))))


def _cost_verdict(r: StudyResult, runs: Runs, g: Grid) -> dict[str, float]:
    cost: dict[str, float] = {}
    for k in COST_KINDS:
        ts = cost_point(k, g)
        x = runs[("limit", ts)].result
        if x is not None and x.outputs:
            releases = x.outputs * (ts.ratio if k == "down" else 1)
            cost[k] = x.energy_uj.get("user", 0.0) / releases
    holds = "adpcm" in cost and max(cost, key=lambda k: cost[k]) == "adpcm"
    r.verdicts.append(Verdict("adpcm_most_computation", holds,
                              "user energy of one release on LIMIT: " +
                              ", ".join(f"{k.upper()} {v:.3f} uJ"
                                        for k, v in sorted(cost.items(), key=lambda kv: kv[1]))))
    return cost


def _energy_comparisons(r: StudyResult, paper: Paper, runs: Runs, g: Grid) -> None:
    v = paper.value("adpcm_energy_8_over_1")

    def ratio(m: str) -> str:
        eight, one = runs[(m, load_point(m, 2, g))].result, runs[(m, one_adpcm(g))].result
        if eight is None or one is None:
            return f"{LABEL[m]} did not finish"
        return f"{LABEL[m]} {sum(eight.energy_uj.values()) / sum(one.energy_uj.values()):.2f}x"

    r.comparisons.append(Comparison(v.ref, "energy of 8 ADPCM tasks every 80 ms / 1 task's, with doze",
                                    f"about {v.value}x", ", ".join(ratio(m) for m in MODELS)))
    loads = ", ".join(f"{LOADS[i]} {_pct(_load(runs, 'nos', i, g))}" for i in range(len(LOADS)))
    r.comparisons.append(Comparison("Fig. 5, Section 3.2", "CPU share Fig. 5's loads take with no OS (LIMIT)",
                                    "8 ADPCM tasks every 80 ms the heaviest", loads))
