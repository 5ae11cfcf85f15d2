"""E5's Tables 1 and 2: what migration support costs a computation that does not move.

Table 1 is the slow-down of a task by migration-point calls with no request pending; Table 2
the CPU time of slave-daemon activations that find nothing to do. Cairn's slave daemons run
only when a message arrives, so their idle activations cost nothing; the periodic work Cairn
does in their place is the load report a migration point sends to the master, and the
master's decision to leave the computation where it is. Both are measured exactly on
cairn-sim (cairn.bench.checkpoint_overhead) and turned into the paper's tables at each of the
study's two clocks.
"""

from __future__ import annotations

from typing import Any

from cairn.bench.checkpoint import FAST_HZ, SLOW_HZ
from cairn.bench.checkpoint_overhead import measure, slow_down_percent, wasted_percent

from .paper import Paper
from .result import Comparison, OurTable, StudyResult, Verdict

CLOCKS = (SLOW_HZ, FAST_HZ)


def add(paper: Paper, result: StudyResult) -> dict[int, dict[str, Any]]:
    """Add Tables 1 and 2 (comparisons, our tables, the verdict) to `result`; return the
    measurements by clock."""
    m = {hz: measure(hz) for hz in CLOCKS}
    mhz = {hz: f"{hz // 1_000_000} MHz" for hz in CLOCKS}
    t1 = paper.table("checkpoint_overhead").records()
    t2 = paper.table("daemon_overhead").records()
    slice_ms = float(paper.parameter("time_slice_ms").value)
    p_call = paper.value("checkpoint_call_cost")
    p_act = paper.value("daemon_activation_cost")

    def us(cycles: float, hz: int) -> str:
        return f"{cycles * 1e6 / hz:.2f} us"

    result.comparisons += [
        Comparison("Table 1", "CPU time of one checkpoint call, no request pending", f"{p_call.value} {p_call.unit}",
                   "; ".join(f"{us(m[hz]['point_cycles'], hz)} at {mhz[hz]}" for hz in CLOCKS)
                   + f" ({m[FAST_HZ]['point_cycles']} cycles)"),
        Comparison("Table 2", "CPU time of one daemon activation with nothing to do", f"{p_act.value} {p_act.unit}",
                   "; ".join(f"{us(m[hz]['report_cycles'], hz)} at {mhz[hz]}" for hz in CLOCKS)
                   + " (Cairn: a load report and the master's stay decision; "
                     "its slaves have no idle activations)"),
    ]
    for r in t1:
        rate = float(r["checkpoints_per_ms"])
        result.comparisons.append(Comparison(
            "Table 1", f"task slow-down at {rate:g} checkpoints per ms", f"{r['task_slow_down_percent']} %",
            ", ".join(f"{slow_down_percent(m[hz]['point_cycles'], hz, rate):.4f} % at {mhz[hz]}" for hz in CLOCKS)))
    for r in t2:
        rate = float(r["activations_per_timeslice"])
        result.comparisons.append(Comparison(
            "Table 2", f"wasted CPU at {rate:g} activations per {slice_ms:g} ms slice", f"{r['wasted_cpu_percent']} %",
            ", ".join(f"{wasted_percent(m[hz]['report_cycles'], hz, rate, slice_ms):.4f} % at {mhz[hz]}"
                      for hz in CLOCKS)))

    result.tables.append(OurTable(
        "Table 1 on cairn-sim: slow-down of the computation by migration points with no request pending",
        ("checkpoints_per_ms", "paper_percent", *(f"percent_{hz // 1_000_000}mhz" for hz in CLOCKS)),
        tuple((r["checkpoints_per_ms"], r["task_slow_down_percent"],
               *(round(slow_down_percent(m[hz]["point_cycles"], hz, float(r["checkpoints_per_ms"])), 4)
                 for hz in CLOCKS)) for r in t1)))
    result.tables.append(OurTable(
        f"Table 2 on cairn-sim: CPU taken by load reports that move nothing, per {slice_ms:g} ms slice",
        ("activations_per_timeslice", "paper_percent", *(f"percent_{hz // 1_000_000}mhz" for hz in CLOCKS)),
        tuple((r["activations_per_timeslice"], r["wasted_cpu_percent"],
               *(round(wasted_percent(m[hz]["report_cycles"], hz, float(r["activations_per_timeslice"]), slice_ms), 4)
                 for hz in CLOCKS)) for r in t2)))
    result.tables.append(OurTable(
        "Measured cycles (exact; the bracket's own cycles taken off)",
        ("clock", "point_cycles", "report_cycles_min", "report_cycles_mean", "report_cycles_max", "master_cycles"),
        tuple((mhz[hz], m[hz]["point_cycles"], m[hz]["report_cycles_min"], m[hz]["report_cycles"],
               m[hz]["report_cycles_max"], m[hz]["master_cycles"]) for hz in CLOCKS)))

    # The paper's own figure at its densest rate is the bar: a slow-down no larger than the
    # one it calls negligible, on the module a migrated computation runs on.
    top = max(t1, key=lambda r: float(r["checkpoints_per_ms"]))
    rate, bar = float(top["checkpoints_per_ms"]), float(top["task_slow_down_percent"])
    fast = slow_down_percent(m[FAST_HZ]["point_cycles"], FAST_HZ, rate)
    slow = slow_down_percent(m[SLOW_HZ]["point_cycles"], SLOW_HZ, rate)
    result.verdicts.append(Verdict(
        "checkpoint_overhead_negligible", fast <= bar,
        f"a point with no request pending takes {m[FAST_HZ]['point_cycles']} cycles: {fast:.3f} % at {rate:g} per ms "
        f"on the {mhz[FAST_HZ]} module against the paper's {bar:g} %, but {slow:.3f} % on the {mhz[SLOW_HZ]} one; "
        f"a point that also sends a load report takes {m[FAST_HZ]['report_cycles']} cycles"))
    return m
