"""E5: checkpoint migration (the MPSoC task-migration paper) reproduced on cairn-sim.

A long computation on a 4 MHz module is moved at a migration point to a 32 MHz module by the
master/slave daemons (docs/checkpoint.md). We measure the migration cost against the state
size (the paper's Table 3) and the cost of migration points and load reports when nothing moves
(its Tables 1 and 2, cairn.study.e5_overhead), derive the freezing time (its Figure 7) and the progress curves
around the break-even (its Figures 5-6) from the measured cost, and run the online policy on
both sides of its break-even.
"""

from __future__ import annotations

import re

from cairn.bench.checkpoint import FAST_HZ, SLOW_HZ, measure
from cairn.bench.linefit import fit
from cairn.checkpoint_trace import run_device
from cairn.experiment import run as cairn_run
from cairn.paths import firmware_dir, repo_root

from . import e5_overhead, plots
from .paper import Paper
from .result import Comparison, Figure, OurTable, StudyResult, Verdict

NAME = "e5-mpsoc-migration"
SIZES = {"reduced": (0, 256, 1024), "full": (0, 256, 1024, 4096)}


def run(paper: Paper, size: str = "reduced") -> StudyResult:
    sizes = SIZES[size]
    m = measure(sizes)
    costs: dict[int, int] = {int(k): int(v) for k, v in m["checkpoint_cost_cycles_by_size"].items()}  # type: ignore[attr-defined]
    freeze: dict[int, int] = {int(k): int(v) for k, v in m["checkpoint_freeze_cycles_by_size"].items()}  # type: ignore[attr-defined]
    base, per_byte, r2 = fit([float(s) for s in sizes], [float(costs[s]) for s in sizes])
    fbase, fslope, fr2 = fit([float(s) for s in sizes], [float(freeze[s]) for s in sizes])
    us = 1e6 / FAST_HZ

    table3 = paper.table("migration_time").records()
    p_base, p_slope, p_r2 = fit([float(r["state_kb"]) for r in table3], [float(r["time_ms"]) for r in table3])
    p_ms_per_kb = sum(r["ms_per_kb"] for r in table3) / len(table3)

    result = StudyResult(
        study=NAME,
        size=size,
        setup=(f"Cairn's checkpoint migration (master and slave daemons as Cairn tasks) on a device of "
               f"a {SLOW_HZ // 1_000_000} MHz and a {FAST_HZ // 1_000_000} MHz Cortex-M0+ module on "
               f"cairn-sim's inter-module bus (64 MB/s, 8 us TDMA slots). The cost is timed from the "
               f"trace, migration point (suspend) to restart on the destination, for states of "
               f"{', '.join(str(s) for s in sizes)} bytes; cycles are the destination's."),
    )
    result.comparisons += [
        Comparison("Table 3", "migration time per kB of state",
                   f"{p_ms_per_kb:.4f} ms/kB", f"{per_byte * 1024 * us / 1000:.4f} ms/kB"),
        Comparison("Table 3", "migration time at zero state (fitted intercept)",
                   f"{p_base:.4f} ms", f"{base * us / 1000:.4f} ms ({base:.0f} cycles)"),
        Comparison("Table 3", "linearity of time against state size (R²)", f"{p_r2:.5f}", f"{r2:.5f}"),
        Comparison("Fig. 7", "freezing time growth per kB of state", "linear (plot)",
                   f"{fslope * 1024 * us / 1000:.3f} ms/kB (R² {fr2:.5f})"),
    ]
    result.tables.append(OurTable(
        "Migration cost and freezing time by state size (cycles of the 32 MHz destination)",
        ("state_bytes", "cost_cycles", "cost_us", "freezing_cycles"),
        tuple((s, costs[s], round(costs[s] * us, 1), freeze[s]) for s in sizes)))

    result.figures.append(Figure("cost", "Migration cost against state size, measured and fitted "
                                 "(the paper's Table 3 in its own units is in the table above).",
                                 plots.line_fit("Checkpoint migration cost", "state (bytes)", "cost (us)",
                                                [("cairn-sim", list(sizes), [costs[s] * us for s in sizes])],
                                                [(f"fit {base * us:.0f} us + {per_byte * us:.3f} us/B",
                                                  base * us, per_byte * us)])))
    result.figures.append(Figure("freezing", "Freezing time (break-even after the migration point) "
                                 "against state size, from the measured cost (the paper's Fig. 7).",
                                 plots.line_fit("Freezing time", "state (bytes)", "freezing time (ms)",
                                                [("cairn-sim", list(sizes), [freeze[s] * us / 1000 for s in sizes])])))
    mid = sizes[len(sizes) // 2]
    cost_s = costs[mid] / FAST_HZ
    horizon = 3 * freeze[mid] / FAST_HZ
    ts = [horizon * i / 200 for i in range(201)]
    stay = [SLOW_HZ * t / 1e6 for t in ts]
    moved = [max(0.0, FAST_HZ * (t - cost_s)) / 1e6 for t in ts]
    result.figures.append(Figure("progress", f"Work done after the migration point with {mid} bytes of "
                                 "state: staying on the slow module against moving (computed from the "
                                 "measured cost; the paper's Figs. 5-6).",
                                 plots.progress_curves("Staying against migrating", "time after the migration point (s)",
                                                       "work done (M cycles)",
                                                       [("stay (4 MHz)", ts, stay), ("migrate (32 MHz)", ts, moved)],
                                                       ("break-even", freeze[mid] / FAST_HZ))))

    result.verdicts.append(Verdict("migration_time_linear_in_state", r2 >= 0.99,
                                   f"R² {r2:.5f} over {len(sizes)} sizes; {per_byte:.1f} cycles per byte"))
    result.verdicts.append(Verdict("freezing_time_linear_in_state", fr2 >= 0.99,
                                   f"R² {fr2:.5f}; follows from the cost, cost x f_fast / (f_fast - f_slow)"))
    result.verdicts.append(_policy_verdict())
    overhead = e5_overhead.add(paper, result)
    wire_per_byte = FAST_HZ / 64e6
    result.differences = (
        f"The paper's MPSoC moved state through shared memory at {p_ms_per_kb:.4f} ms per kB; Cairn's modules "
        f"share no memory and move it as bus frames, {per_byte * 1024 * us / 1000:.3f} ms per kB at 32 MHz, "
        f"{per_byte * 1024 * us / 1000 / p_ms_per_kb:.0f} times the paper's. The wire itself takes "
        f"{wire_per_byte:.2f} cycles per byte of the {per_byte:.1f} measured: the rest is per-frame work "
        f"(the reliable layer's acknowledgement per frame, waiting for the sender's TDMA slot, copying in "
        f"and out of the controller). Both are linear in the state, the paper's conclusion, and so is the "
        f"freezing time. The break-even policy, which the paper applies offline, runs online here and is "
        f"checked on both sides of the break-even. A migration point with no request pending is a flag "
        f"test, {overhead[FAST_HZ]['point_cycles']} cycles; the paper's slave daemons wake every period to "
        f"find nothing, Cairn's run only on a message, and the periodic cost is instead the load report a "
        f"point sends to the master and the master's decision to stay, {overhead[FAST_HZ]['report_cycles']} "
        f"cycles (mostly the 64-bit divisions that turn cycles into rates on a core without a divider).")
    return result


def _policy_verdict() -> Verdict:
    devices = repo_root() / "experiments" / "devices"
    moved = run_device(devices / "checkpoint.toml")
    stayed = run_device(devices / "checkpoint-stay.toml")
    alone = cairn_run(firmware_dir() / "checkpoint-1024.elf", outputs=(), options=("--clock", f"{SLOW_HZ}"),
                      timeout=300)
    at = {name: _finish_us(lines) for name, lines in
          (("moved", moved.lines), ("alone", alone.console.splitlines()))}
    migrated = any("migrations 1" in line for line in moved.lines)
    kept = any(re.search(r"migrations 0 stays \d+", line) for line in stayed.lines)
    holds = (moved.returncode == 0 and stayed.returncode == 0 and alone.status == 0 and migrated and kept
             and at["moved"] < at["alone"])
    return Verdict("migration_pays_off_after_break_even", holds,
                   f"moved to the 8x faster module it finished at {at['moved']} us against {at['alone']} us "
                   f"staying; with a destination 0.05 % faster the policy kept it ({'yes' if kept else 'no'})")


def _finish_us(lines: list[str]) -> int:
    for line in lines:
        m = re.search(r"checksum 0x[0-9a-f]{8} at (\d+) us", line)
        if m:
            return int(m.group(1))
    return 1 << 62
