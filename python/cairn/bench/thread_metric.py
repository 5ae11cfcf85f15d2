"""A Thread-Metric-style suite for Cairn OS's threads: exact cycles per operation on cairn-sim.

Runs build/fw/thread-metric.elf (kernel/apps/thread_metric/thread_metric.c; EMERALDS's
semaphores) and build/fw/thread-metric-plainsem.elf (CAIRN_SEM_EMERALDS=0), both without the
event log, on cairn-sim with ``--trace`` and turns their marker stamps into figures, as
python/cairn/bench/kernel.py does for the kernel bench (which puts them in kernel.json under
``thread_metric`` and as the top-level thread keys). ``python -m cairn.bench.thread_metric``
prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cairn
from cairn.bench import kernel

REPS = 3
#: the port's switch for a thread's own kernel call (kernel/arch/armv6m/thread.c)
CALL_SWITCH_SYMBOL = "arch_thread_switch"
#: the BL that enters it (Cortex-M0+ TRM: 3 cycles), inside the window as the unmasking
#: instruction was inside the window of the switch PendSV makes
CALL_CYCLES = 3
#: cairn-sim's exception return: the cycles after the returning BX, which the trace's
#: exception-return stamp precedes (docs/board-mps2-an385.md, "Exceptions")
EXC_EXIT_CYCLES = 13
(PH_EMPTY, PH_COOP, PH_PREEMPT, PH_SIGNAL, PH_MUTEX, PH_SEM, PH_MSG, PH_IRQ, PH_IRQ_PREEMPT,
 PH_ALLOC, PH_PI) = range(11)
#: threads made ready at the holder's own priority while it runs raised, by PI phase
PI_READY_BEHIND = (0, 1, 2, 4)

TARGETS = {"thread_switch_cycles_max": 80, "mutex_lock_unlock_cycles_max": 40}

METHOD = {
    "cycles": "cairn-sim (cycle-exact Cortex-M0+, zero wait states) runs "
              "kernel/apps/thread_metric/thread_metric.c built -Os without the event log; each "
              "operation lies between two marker stores to the trace port, figure = after - "
              "before - the two stores alone; 3 repetitions, repetitions 2 and 3 must agree",
    "cooperative_switch": "thread A marks and calls cairn_thread_yield; thread B (same priority, "
                          "slice 0) marks when its own yield returns (thread_yield_cycles)",
    "preemptive_switch": "a switch a thread's own kernel call decided (L's give readies H, of "
                         "higher priority, waiting in its take; a block; a yield), made as a "
                         "call in Thread mode: from the BL into arch_thread_switch (3 cycles), "
                         "where the decided switch begins (the old code unmasked there and "
                         "PendSV took over), to H's first instruction after it (the return "
                         "into H's own switch call): cairn-sim's exact per-address profile "
                         "(--energy stm32l053 --flash-wait-states 0 --stats) of "
                         "arch_thread_switch, one straight path, its cycles / calls + 3 "
                         "(thread_switch_cycles)",
    "preemptive_switch_pendsv": "thread L (priority 1), interrupts masked, gives a semaphore "
                                "thread H (priority 3) waits on (H ready, the switch decided, "
                                "PendSV pending), marks, unmasks: from the unmasking instruction "
                                "to H's first instruction (PendSV's exception-return stamp + 13 "
                                "exit cycles): the switch an interrupt's give decides, made by "
                                "PendSV's fast path when the interrupt returns",
    "signal_to_waiter": "L marks and gives the semaphore H waits on; H marks when its take "
                        "returns (sem_signal_to_waiter_cycles)",
    "mutex_lock_unlock": "L locks and unlocks a free mutex with cairn_mutex_lock and "
                         "cairn_mutex_unlock, inline at the call site (on armv6m no call), "
                         "between the markers (mutex_lock_unlock_cycles)",
    "synchronisation": "L takes and gives a counting semaphore of one unit, call -> return",
    "message_processing": "L posts a 16-byte message to its own task ID and receives it "
                          "(cairn_post, the mailbox on the message level, cairn_thread_receive)",
    "interrupt_processing": "L pends IRQ 24, whose handler gives a semaphore nobody waits on, "
                            "and takes it without waiting: from the pending store to the take's "
                            "return",
    "interrupt_preemption": "L pends IRQ 24, whose handler gives the semaphore H waits on: H "
                            "runs when the interrupt returns (PendSV); to H's marker",
    "memory_allocation": "L: cairn_malloc(128) then cairn_free, call -> return of both",
    "priority_inheritance": "L (priority 1) holds a mutex; H (priority 3) blocks on it, L "
                            "inherits 3; k threads of priority 1 become ready; L marks and "
                            "gives the mutex; H marks when its take returns. emeralds: "
                            "thread-metric.elf (L took H's place, the give exchanges them "
                            "back); plain: thread-metric-plainsem.elf (L's place is searched "
                            "for past the k threads)",
}  # fmt: skip


def _steady(values: list[int], what: str) -> int:
    if len(set(values[1:])) != 1:
        raise kernel.BenchError(f"thread_metric {what}: repetitions differ: {values}")
    return values[-1]


def _mark(tr: kernel.Trace, phase: int, rep: int, edge: int) -> int:
    try:
        return tr.markers[(phase, rep, edge)]
    except KeyError:
        raise kernel.BenchError(f"thread_metric: marker phase {phase} rep {rep} edge {edge} missing") from None


def figures_from_trace(tr: kernel.Trace) -> dict[str, Any]:
    """The per-operation figures of one run."""
    empty = _steady([_mark(tr, PH_EMPTY, r, 1) - _mark(tr, PH_EMPTY, r, 0) for r in range(REPS)], "empty")

    def spans(phase: int) -> list[int]:
        return [_mark(tr, phase, r, 1) - _mark(tr, phase, r, 0) - empty for r in range(REPS)]

    returns = [at for at, label in tr.timeline if label == "PendSV exception return"]
    preempt = []
    for r in range(REPS):
        a, b = _mark(tr, PH_PREEMPT, r, 0), _mark(tr, PH_PREEMPT, r, 1)
        hits = [at for at in returns if a < at < b]
        if len(hits) != 1:
            raise kernel.BenchError(f"thread_metric preemptive: {len(hits)} PendSV returns in repetition {r}")
        preempt.append(hits[0] + EXC_EXIT_CYCLES - a - empty)
    return {
        "marker_overhead_cycles": empty,
        "cooperative_switch": _steady(spans(PH_COOP), "cooperative"),
        "preemptive_switch_pendsv": _steady(preempt, "preemptive (PendSV)"),
        "signal_to_waiter": _steady(spans(PH_SIGNAL), "signal"),
        "mutex_lock_unlock": _steady(spans(PH_MUTEX), "mutex"),
        "synchronisation": _steady(spans(PH_SEM), "semaphore"),
        "message_processing": _steady(spans(PH_MSG), "message"),
        "interrupt_processing": _steady(spans(PH_IRQ), "interrupt"),
        "interrupt_preemption": _steady(spans(PH_IRQ_PREEMPT), "interrupt preemption"),
        "memory_allocation": _steady(spans(PH_ALLOC), "memory"),
        "pi": [_steady(spans(PH_PI + i), f"pi {k}") for i, k in enumerate(PI_READY_BEHIND)],
    }


def call_switch_cycles(profile: list[dict[str, Any]]) -> int:
    """The call switch's window from a --stats profile: every call runs the one straight path
    of CALL_SWITCH_SYMBOL, so its cycles and instructions divide by its calls."""
    rows = [p for p in profile if p.get("symbol") == CALL_SWITCH_SYMBOL]
    if len(rows) != 1 or not rows[0]["calls"]:
        raise kernel.BenchError(f"thread_metric: {CALL_SWITCH_SYMBOL} never called (the profile has {rows})")
    row = rows[0]
    calls, cycles, instructions = int(row["calls"]), int(row["cycles"]), int(row["instructions"])
    if cycles % calls or instructions % calls:
        raise kernel.BenchError(f"thread_metric: {CALL_SWITCH_SYMBOL} took more than one path: {row}")
    return cycles // calls + CALL_CYCLES


def profile_firmware(sim: str, elf: Path, clock_hz: int) -> list[dict[str, Any]]:
    """cairn-sim's per-function profile of one run (exact per address; zero wait states as the
    trace runs: the energy profile would otherwise bring its part's)."""
    r = cairn.run(elf, ["stats"], options=("--clock", str(clock_hz), "--energy", "stm32l053",
                                           "--flash-wait-states", "0"), timeout=60, sim=sim)
    if r.status != 0 or not r.console.rstrip().endswith("PASS"):
        raise kernel.BenchError(f"{' '.join(r.command)} ({elf}) exited {r.status}:\n{r.console[-2000:]}")
    profile: list[dict[str, Any]] = json.loads(r.files["stats"].read_text())["profile"]
    return profile


def measure_one(sim: str, elf: Path, clock_hz: int = kernel.DEFAULT_CLOCK_HZ) -> dict[str, Any]:
    _, trace = kernel.run_firmware(sim, elf, clock_hz)
    figures = figures_from_trace(kernel.parse_trace(trace, clock_hz))
    figures["preemptive_switch"] = call_switch_cycles(profile_firmware(sim, elf, clock_hz))
    return figures


def measure(sim: str, elf: Path, elf_plain: Path, clock_hz: int = kernel.DEFAULT_CLOCK_HZ) -> dict[str, Any]:
    """kernel.json's top-level thread keys and its ``thread_metric`` object."""
    em = measure_one(sim, elf, clock_hz)
    plain = measure_one(sim, elf_plain, clock_hz)
    tm = {k: v for k, v in em.items() if k not in ("pi", "marker_overhead_cycles")}
    tm["priority_inheritance"] = {
        "threads_ready_behind": list(PI_READY_BEHIND),
        "emeralds": em["pi"],
        "plain": plain["pi"],
    }
    tm["firmware"] = [str(elf), str(elf_plain)]
    tm["method"] = METHOD
    tm["targets"] = {
        **TARGETS,
        "thread_switch_met": em["preemptive_switch"] <= TARGETS["thread_switch_cycles_max"],
        "mutex_lock_unlock_met": em["mutex_lock_unlock"] <= TARGETS["mutex_lock_unlock_cycles_max"],
    }
    return {
        "thread_switch_cycles": em["preemptive_switch"],
        "thread_yield_cycles": em["cooperative_switch"],
        "sem_signal_to_waiter_cycles": em["signal_to_waiter"],
        "mutex_lock_unlock_cycles": em["mutex_lock_unlock"],
        "thread_metric": tm,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--elf", type=Path, default=Path("build/fw/thread-metric.elf"))
    ap.add_argument("--elf-plainsem", type=Path, default=Path("build/fw/thread-metric-plainsem.elf"))
    ap.add_argument("--clock", type=int, default=kernel.DEFAULT_CLOCK_HZ)
    args = ap.parse_args(argv)
    try:
        result = measure(args.sim, args.elf, args.elf_plainsem, args.clock)
    except (kernel.BenchError, OSError) as e:
        sys.exit(f"thread_metric: {e}")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
