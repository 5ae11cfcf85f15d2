"""Cairn OS kernel benchmark: cycles on cairn-sim and sizes.

Runs build/fw/kernel-bench.elf (kernel/apps/kernel_bench/bench.c) on cairn-sim with
``--trace`` and turns the exact cycle stamps of its trace-port words into figures; reads the
kernel's code and static data sizes from the ELF's link map and ``arm-none-eabi-size``.
Writes build/bench/kernel.json. The measurement method of every figure is in the JSON
(``method``) and in the firmware's header comment.

Cycles: cairn-sim stamps every 32-bit store to the trace port (0x41000000) with the cycle
at which the STR starts; ``--trace`` writes the stamp in microseconds with picosecond
resolution, which converts back to whole cycles exactly. The firmware brackets each measured
operation with two marker stores; ``after - before - empty`` (``empty``: the same two stores
with nothing between) is the exact cycle count of the operation. A handler's first
instruction stamps itself (the probe task's first instruction stores to the trace port).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import cairn

DEFAULT_CLOCK_HZ = 25_000_000
MARK_EVENT = 0xBE  #: bench markers: event 0xBE, a = phase, b = rep << 8 | edge
PROBE_EVENT = 0x41  #: the probe handler's first instruction stores 0x41000000
HW_ENTRY_CYCLES = 15  #: Cortex-M0+ exception entry, zero wait states
IRQ_SOFT0, IRQ_SOFT1, IRQ_SOFT2 = 24, 25, 26
TIMER_IRQ = 8
REPS = 3

(PH_EMPTY, PH_ENQUEUE, PH_PREEMPT, PH_IRQ, PH_TIMER, PH_ALLOC, PH_MEMSET, PH_IRQ_LEVEL, PH_IRQ_ISR,
 PH_SM_WRITE, PH_SM_READ, PH_SM_ATOMIC, PH_THREAD_SWITCH, PH_SEM_TAKE_GIVE, PH_SEM_CONTENDED) = range(15)

KERNEL_EVENTS = {
    1: "SEND", 2: "START", 3: "END", 4: "ALLOC", 5: "FREE", 6: "TIMER", 7: "IRQ_ENTER",
    8: "IRQ_EXIT", 9: "CURRENT", 10: "FULL", 11: "CREATE", 12: "KILL", 13: "IDLE", 14: "DROP",
}  # fmt: skip

TARGETS = {
    "send_preempt_cycles_max": 100,
    "irq_to_handler_beyond_entry_cycles_max": 80,
    "kernel_text_bytes_max": 4096,
    "kernel_static_ram_bytes_max": 256,
    "tcb_bytes_max": 16,
}


#: The kernel's services, as opposed to its core (the message scheduler, tasks, routes, payload
#: ownership, interrupts, the idle loop and the port's interrupt, idle and fast paths): the heap
#: and slab allocators, the virtual timers with their hardware timer, the application manager,
#: multicast groups, the sleep-state choice and thread tasks.
SERVICE_OBJECTS = frozenset({
    "core/heap.o", "core/slab.o", "core/vtimer.o", "arch/armv6m/timer.o", "core/app.o",
    "core/mcast.o", "core/sleep.o", "core/statemsg.o", "core/thread.o", "arch/armv6m/thread.o",
    "core/sem.o", "arch/armv6m/sem_fast.o",
})  # fmt: skip


#: The scheduling policies besides fixed priority (docs/policies.md): each a production build
#: of the same bench, build/fw/kernel-bench-<policy>.elf, reported under `policies`.
POLICIES = ("edf", "csd")
#: The figures reported per policy.
POLICY_FIGURES = (
    "send_preempt_cycles", "send_preempt_roundtrip_cycles", "send_enqueue_cycles",
    "irq_to_handler_cycles", "irq_to_handler_beyond_entry_cycles",
    "irq_level_to_handler_beyond_entry_cycles", "irq_isr_to_handler_beyond_entry_cycles",
    "timer_to_handler_cycles",
)  # fmt: skip


#: What the fast paths (a handler's send to a preempting task, an interrupt bound to a message
#: returning straight into its handler) are written in, per policy (docs/policies.md).
FAST_PATHS = {"fp": "assembly", "edf": "C", "csd": "C"}


def policy_figures(figures: dict[str, int], sizeofs: dict[str, int], fast_paths: str) -> dict[str, Any]:
    """One policy's entry in `policies`: its figures, message size, and what its fast paths are
    written in."""
    return {**{k: figures[k] for k in POLICY_FIGURES}, "msg_bytes": sizeofs["msg_bytes"],
            "fast_paths": fast_paths}


class BenchError(Exception):
    """The firmware did not run as expected or its trace cannot be read."""


@dataclass
class Trace:
    """What the bench needs from a cairn-sim --trace file, all in cycles."""

    markers: dict[tuple[int, int, int], int] = field(default_factory=dict)
    probes: list[int] = field(default_factory=list)
    #: (cycle, label) of everything: kernel events, exception entries/exits, markers
    timeline: list[tuple[int, str]] = field(default_factory=list)
    #: (start, end) of sleep slices
    sleeps: list[tuple[int, int]] = field(default_factory=list)
    #: (cycle of the handler's first instruction, exception name) of exception entries
    entries: list[tuple[int, str]] = field(default_factory=list)


def us_to_cycles(ts: Any, clock_hz: int) -> int:
    """A --trace time stamp (microseconds, 6 decimals, exact) back to whole cycles."""
    c = Decimal(str(ts)) * clock_hz / Decimal(1_000_000)
    # The stamp is truncated to picoseconds: round to the nearest cycle.
    n = int(c.to_integral_value())
    if abs(c - n) >= Decimal("0.01"):
        raise BenchError(f"time stamp {ts} us is not a whole cycle at {clock_hz} Hz")
    return n


def parse_trace(text: str, clock_hz: int) -> Trace:
    data = json.loads(text)
    tr = Trace()
    for ev in data["traceEvents"]:
        ph, tid = ev.get("ph"), ev.get("tid")
        if ph == "M":
            continue
        at = us_to_cycles(ev["ts"], clock_hz)
        if ph == "i" and tid == 3:
            code = int(str(ev["name"]).split()[1])
            a, b = int(ev["args"]["a"]), int(ev["args"]["b"])
            if code == MARK_EVENT:
                tr.markers[(a, b >> 8, b & 0xFF)] = at
                tr.timeline.append((at, f"marker phase {a} rep {b >> 8} {'after' if b & 1 else 'before'}"))
            elif code == PROBE_EVENT:
                tr.probes.append(at)
                tr.timeline.append((at, "probe handler: first instruction"))
            else:
                tr.timeline.append((at, f"kernel {KERNEL_EVENTS.get(code, hex(code))} a={a} b={b}"))
        elif ph == "B" and tid == 1:
            tr.entries.append((at, str(ev["name"])))
            tr.timeline.append((at, f"{ev['name']} handler: first instruction"))
        elif ph == "E" and tid == 1:
            tr.timeline.append((at, f"{ev['name']} exception return"))
        elif ph == "X" and tid == 2:
            end = at + us_to_cycles(ev["dur"], clock_hz)
            tr.sleeps.append((at, end))
            tr.timeline.append((at, "sleep"))
            tr.timeline.append((end, "wake-up"))
    tr.timeline.sort(key=lambda x: x[0])
    return tr


def _mark(tr: Trace, phase: int, rep: int, edge: int) -> int:
    try:
        return tr.markers[(phase, rep, edge)]
    except KeyError:
        raise BenchError(f"marker phase {phase} rep {rep} edge {edge} missing from the trace") from None


def _probe_between(tr: Trace, lo: int, hi: int) -> int:
    hits = [p for p in tr.probes if lo < p < hi]
    if len(hits) != 1:
        raise BenchError(f"expected one probe between cycles {lo} and {hi}, found {len(hits)}")
    return hits[0]


def _entry_between(tr: Trace, name: str, lo: int, hi: int) -> int:
    hits = [at for at, n in tr.entries if n == name and lo < at < hi]
    if not hits:
        raise BenchError(f"no {name} entry between cycles {lo} and {hi}")
    return hits[0]


def _breakdown(tr: Trace, start: int, end: int, origin: str) -> list[dict[str, Any]]:
    """Events from start to end (inclusive), as cycle offsets from start."""
    rows = [{"cycle": 0, "event": origin}]
    rows += [{"cycle": at - start, "event": label} for at, label in tr.timeline if start < at <= end]
    return rows


#: Every repetition's value, by figure (the last run of measure_cycles).
SAMPLES: dict[str, list[int]] = {}


def _one(values: list[int], what: str) -> int:
    """The steady-state value: the repetitions after the first must agree (the first may
    differ by a cold path, e.g. a statistics peak being raised once)."""
    SAMPLES[what] = list(values)
    if len(set(values[1:])) != 1:
        raise BenchError(f"{what}: repetitions differ: {values}")
    return values[-1]


def measure_cycles(tr: Trace) -> tuple[dict[str, int], dict[str, Any]]:
    """Figures and the breakdowns of the interrupt paths (first repetition)."""
    empty = _one([_mark(tr, PH_EMPTY, r, 1) - _mark(tr, PH_EMPTY, r, 0) for r in range(REPS)], "empty")

    def span(phase: int) -> list[tuple[int, int]]:
        return [(_mark(tr, phase, r, 0), _mark(tr, phase, r, 1)) for r in range(REPS)]

    enqueue = [b - a - empty for a, b in span(PH_ENQUEUE)]
    preempt = [_probe_between(tr, a, b) - a - empty for a, b in span(PH_PREEMPT)]
    preempt_rt = [b - a - empty for a, b in span(PH_PREEMPT)]
    def irq_path(phase: int, irq: int) -> tuple[list[int], list[int], list[int]]:
        """(IRQ pending cycles, pending -> probe, pending -> ISR's first instruction)."""
        # The IRQ is pending once the ISPR store (a STR, `empty` cycles like the marker) ends.
        asserted = [a + 2 * empty for a, _ in span(phase)]
        to_probe = [_probe_between(tr, a, b) - s for (a, b), s in zip(span(phase), asserted)]
        entry = [_entry_between(tr, f"IRQ{irq}", a, b) - s for (a, b), s in zip(span(phase), asserted)]
        return asserted, to_probe, entry

    irq_assert, irq, irq_entry = irq_path(PH_IRQ, IRQ_SOFT0)
    _, irq_level, _ = irq_path(PH_IRQ_LEVEL, IRQ_SOFT1)
    isr_assert, irq_isr, _ = irq_path(PH_IRQ_ISR, IRQ_SOFT2)
    # The core sleeps in WFI when the timer expires: the sleep slice ends at the expiry.
    timer, timer_entry, expiries = [], [], []
    for a, b in span(PH_TIMER):
        entry = _entry_between(tr, f"IRQ{TIMER_IRQ}", a, b)
        wakes = [end for _, end in tr.sleeps if a < end <= entry]
        if not wakes:
            raise BenchError("timer phase: the core was not asleep when the timer expired")
        expiries.append(wakes[-1])
        timer.append(_probe_between(tr, a, b) - wakes[-1])
        timer_entry.append(entry - wakes[-1])
    alloc = [b - a - empty for a, b in span(PH_ALLOC)]
    memset16 = [b - a - empty for a, b in span(PH_MEMSET)]
    sm = {ph: [b - a - empty for a, b in span(ph)] for ph in (PH_SM_WRITE, PH_SM_READ, PH_SM_ATOMIC)}
    thread_switch = [b - a - empty for a, b in span(PH_THREAD_SWITCH)]
    sem_take_give = [b - a - empty for a, b in span(PH_SEM_TAKE_GIVE)]
    sem_contended = [b - a - empty for a, b in span(PH_SEM_CONTENDED)]

    figures = {
        "send_enqueue_cycles": _one(enqueue, "send_enqueue"),
        "send_preempt_cycles": _one(preempt, "send_preempt"),
        "send_preempt_roundtrip_cycles": _one(preempt_rt, "send_preempt roundtrip"),
        "irq_to_handler_cycles": _one(irq, "irq_to_handler"),
        "irq_to_handler_beyond_entry_cycles": _one(irq, "irq_to_handler") - HW_ENTRY_CYCLES,
        "irq_hw_entry_cycles_measured": _one(irq_entry, "irq entry"),
        "irq_level_to_handler_beyond_entry_cycles": _one(irq_level, "irq_level_to_handler") - HW_ENTRY_CYCLES,
        "irq_isr_to_handler_beyond_entry_cycles": _one(irq_isr, "irq_isr_to_handler") - HW_ENTRY_CYCLES,
        "timer_to_handler_cycles": _one(timer, "timer_to_handler"),
        "timer_hw_entry_cycles_measured": _one(timer_entry, "timer entry"),
        "alloc_free_cycles": _one(alloc, "alloc_free"),
        "marker_overhead_cycles": empty,
        "memset16_cycles": _one(memset16, "memset16"),
        "statemsg_write16_cycles": _one(sm[PH_SM_WRITE], "statemsg write"),
        "statemsg_read16_cycles": _one(sm[PH_SM_READ], "statemsg read"),
        "statemsg_read16_atomic_cycles": _one(sm[PH_SM_ATOMIC], "statemsg atomic read"),
        "thread_yield_cycles": _one(thread_switch, "thread yield"),
        "sem_take_give_cycles": _one(sem_take_give, "sem take+give"),
        "sem_contended_cycles": _one(sem_contended, "sem contended"),
    }
    a0, _ = span(PH_IRQ)[0]
    t0 = span(PH_TIMER)[0][0]
    breakdowns = {
        "irq_to_handler": _breakdown(tr, irq_assert[0], _probe_between(tr, a0, span(PH_IRQ)[0][1]),
                                     "IRQ_SOFT0 pending (NVIC ISPR store done)"),
        "irq_isr_to_handler": _breakdown(tr, isr_assert[0],
                                         _probe_between(tr, span(PH_IRQ_ISR)[0][0], span(PH_IRQ_ISR)[0][1]),
                                         "IRQ_SOFT2 pending (NVIC ISPR store done)"),
        "timer_to_handler": _breakdown(tr, expiries[0], _probe_between(tr, t0, span(PH_TIMER)[0][1]),
                                       "timer0 expiry (core wakes from WFI)"),
    }
    return figures, breakdowns


# ---- sizes -------------------------------------------------------------------------------

MAP_ONE_LINE = re.compile(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.o)$")
MAP_NAME_ONLY = re.compile(r"^ (\S+)$")
MAP_ADDR_LINE = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.o)$")
KERNEL_OBJ = re.compile(r"(^|/)obj/fw/(core|arch/armv6m)/[^/]+\.o$")


def section_kind(name: str) -> str | None:
    """Berkeley `size` classes: code and read-only data are text."""
    if name.startswith((".text", ".rodata")):
        return "text"
    if name.startswith(".data"):
        return "data"
    if name.startswith(".bss") or name == "COMMON":
        return "bss"
    return None


def map_sections(map_text: str) -> Iterator[tuple[str, int, str]]:
    """(kind, size, object) of every input section the link kept (after --gc-sections) that
    counts as text, data or bss and is not empty, from a GNU ld map."""
    started = False
    pending: str | None = None
    for line in map_text.splitlines():
        if line.startswith("Linker script and memory map"):
            started = True
            continue
        if not started:
            continue
        entry: tuple[str, int, str] | None = None
        m = MAP_ONE_LINE.match(line)
        if m:
            entry = (m.group(1), int(m.group(3), 16), m.group(4))
        elif pending is not None and (m2 := MAP_ADDR_LINE.match(line)):
            entry = (pending, int(m2.group(2), 16), m2.group(3))
        n = MAP_NAME_ONLY.match(line)
        pending = n.group(1) if n else None
        if entry is None:
            continue
        name, size, obj = entry
        kind = section_kind(name)
        if kind is not None and size != 0:
            yield kind, size, obj


def kernel_sizes_from_map(map_text: str) -> dict[str, Any]:
    """Sums the kernel objects' input sections kept in the link (after --gc-sections)."""
    totals = {"text": 0, "data": 0, "bss": 0}
    per_obj: dict[str, dict[str, int]] = {}
    for kind, size, obj in map_sections(map_text):
        if not KERNEL_OBJ.search(obj):
            continue
        totals[kind] += size
        key = obj.split("obj/fw/")[-1]
        per_obj.setdefault(key, {"text": 0, "data": 0, "bss": 0})[kind] += size
    if not per_obj:
        raise BenchError("no kernel object sections in the link map")
    return {"totals": totals, "per_object": dict(sorted(per_obj.items()))}


def berkeley_size(size_tool: str, files: list[Path]) -> dict[str, dict[str, int]]:
    """`arm-none-eabi-size` (Berkeley format) of each file: text, data, bss."""
    p = subprocess.run([size_tool, *map(str, files)], capture_output=True, text=True, check=True)
    out: dict[str, dict[str, int]] = {}
    for line in p.stdout.splitlines()[1:]:
        parts = line.split()
        out[parts[5]] = {"text": int(parts[0]), "data": int(parts[1]), "bss": int(parts[2])}
    return out


def parse_sizeofs(stdout: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^# bench (\w+)=(\d+)$", stdout, re.M)}


def run_firmware(sim: str, elf: Path, clock_hz: int, timeout: float = 60) -> tuple[str, str]:
    """Runs the bench firmware; returns (stdout, trace JSON)."""
    r = cairn.run(elf, ["trace"], options=("--clock", str(clock_hz)), timeout=timeout, sim=sim)
    if r.status != 0 or not r.console.rstrip().endswith("PASS"):
        raise BenchError(f"{' '.join(r.command)} ({elf}) exited {r.status}:\n{r.console[-2000:]}\n"
                         f"{r.stderr.decode(errors='replace')[-1000:]}")
    return r.console, r.files["trace"].read_text()


def measure(sim: str, elf: Path, clock_hz: int = DEFAULT_CLOCK_HZ) -> tuple[dict[str, int], dict[str, Any], dict[str, int]]:
    """(cycle figures, breakdowns, sizeof figures) from one run of the firmware."""
    stdout, trace = run_firmware(sim, elf, clock_hz)
    figures, breakdowns = measure_cycles(parse_trace(trace, clock_hz))
    return figures, breakdowns, parse_sizeofs(stdout)


METHOD = {
    "cycles": "cairn-sim (cycle-exact Cortex-M0+, zero flash wait states) runs "
              "kernel/apps/kernel_bench/bench.c built -Os; every store to the trace port "
              "0x41000000 is stamped with the cycle its STR starts (--trace). Each operation sits "
              "in one asm block between two marker stores; figure = after - before - "
              "marker_overhead_cycles (the two stores with nothing between). Handlers under test are "
              "a naked stub whose FIRST instruction is `str r0, [r0]` (task state = the trace port "
              "address), so the handler stamps its own first instruction. 3 repetitions; the figure "
              "is the steady state (repetitions 2 and 3 must be equal, else the bench fails; all "
              "values in `samples`).",
    "send_enqueue_cycles": "in a task handler (prio 2): `bl cairn_send` (out port -> task of prio 1, "
                           "static 4-byte payload, empty queue) call -> return",
    "send_preempt_cycles": "in a task handler (prio 2): `bl cairn_send` (out port -> task of prio 5) -> "
                           "first instruction of that task's handler; "
                           "send_preempt_roundtrip_cycles: call -> return (the handler is 9 instructions)",
    "irq_to_handler_cycles": "main at idle level stores to NVIC ISPR (IRQ 24 pending when the STR ends); "
                             "the ISR does cairn_isr_enter, cairn_send_from (a static payload, to a "
                             "prio-5 task), cairn_isr_exit; PendSV -> trampoline -> cairn_dispatch -> "
                             "first instruction of the task's handler. beyond_entry = that - 15 "
                             "(hardware exception entry; irq_hw_entry_cycles_measured checks the 15)",
    "timer_to_handler_cycles": "a one-shot virtual timer (5000 ticks) of the prio-5 task; the core "
                               "sleeps in cairn_idle (WFI, PRIMASK set); the hardware expiry is the "
                               "end of cairn-sim's sleep slice (the core wakes at the expiry cycle) -> "
                               "first instruction of the TIMEOUT0 handler",
    "alloc_free_cycles": "in a task handler: `bl cairn_malloc` (16 bytes) then `bl cairn_free` of the "
                         "result, call -> return of both, heap holding only the bench's TCBs",
    "memset16_cycles": "diagnostic: `bl memset` of 16 bytes (kernel/boards/mps2-an385/memfuncs.c, a "
                       "byte loop), call -> return; GCC zeroes a compound literal with a memset "
                       "call, which is why the kernel's message and frame paths fill their "
                       "structs field by field (cairn__msg_new)",
    "statemsg_cycles": "main: cairn_statemsg_write, cairn_statemsg_read and cairn_statemsg_read_atomic "
                       "(the slow reader's copy, interrupts masked) of a 16-byte value in 3 slots, "
                       "each call -> return; a reader's cost against a message's "
                       "(send_preempt_cycles: send -> handler)",
    "kernel_core_text_bytes": "kernel_text_bytes without the services (SERVICE_OBJECTS: heap, slab, "
                              "virtual timers and their hardware timer, application manager, multicast, "
                              "sleep-state choice, state messages, threads, semaphores): the message scheduler, tasks, routes, payload ownership, "
                              "interrupts, the idle loop and the port's interrupt, idle and fast paths",
    "kernel_sizes": "sum of the input sections of kernel/core/*.o and kernel/arch/armv6m/*.o in the "
                    "link map of build/fw/kernel-bench.elf after --gc-sections (text = .text* + "
                    ".rodata*, data = .data*, bss = .bss* + COMMON, as arm-none-eabi-size counts "
                    "them). The ELF is linked with -u for every global symbol of those objects, so the "
                    "whole kernel is kept (everything enabled, event log on, -Os). "
                    "kernel_objects_size: arm-none-eabi-size of the same objects before linking.",
    "sem_cycles": "kernel/apps/kernel_bench/bench.c phases 13-14. sem_take_give_cycles: a thread "
                  "takes and gives a free mutex, call -> return of both. sem_contended_cycles: "
                  "the mutex's holder (priority 1) marks, posts to a thread of priority 3 blocked in "
                  "cairn_thread_receive_then announcing the mutex, and gives it; that thread marks "
                  "when its cairn_sem_take returns. *_plain_cycles: the same from "
                  "build/fw/kernel-bench-plainsem.elf (CAIRN_SEM_EMERALDS=0: the woken thread runs "
                  "only to block in its take); both without the event log",
    "tcb_bytes": "sizeof(cairn_tcb_t) on the target, printed by the firmware; the routing table "
                 "(route_bytes per output port) follows it in the same heap block",
    "msg_bytes": "sizeof(cairn_msg_t) on the target, printed by the firmware",
    "policies": "the same bench built once per scheduling policy (docs/policies.md), each without "
                "the event log: fp = build/fw/kernel-bench-notrace.elf (the figures above), edf and csd "
                "= build/fw/kernel-bench-<policy>.elf (CAIRN_POLICY_EDF; CAIRN_POLICY_CSD with k = 2 queues, "
                "DRV and PROBE in the EDF queue, LOW in the FP queue). Relative deadlines follow the "
                "levels (kernel/apps/kernel_bench/policy_setup.c), so every phase takes the same "
                "decision; the assembly fast paths are built for fixed priority only, EDF and CSD have "
                "theirs in C (fast_paths)",
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    from cairn.bench import models_metric, thread_metric  # they read this module's trace helpers

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--elf", type=Path, default=Path("build/fw/kernel-bench.elf"),
                    help="the bench with the event log on: sizes, breakdowns, the *_traced figures")
    ap.add_argument("--elf-notrace", type=Path, default=Path("build/fw/kernel-bench-notrace.elf"),
                    help="the same with the event log compiled out: the cycle figures")
    ap.add_argument("--elf-plainsem", type=Path, default=Path("build/fw/kernel-bench-plainsem.elf"),
                    help="the production build with CAIRN_SEM_EMERALDS=0: the *_plain semaphore figures")
    ap.add_argument("--elf-thread-metric", type=Path, default=Path("build/fw/thread-metric.elf"),
                    help="the Thread-Metric-style suite (cairn.bench.thread_metric): the thread keys")
    ap.add_argument("--metric-fw", type=Path, default=Path("build/fw"),
                    help="where metric-<model>.elf are (cairn.bench.models_metric): the models key")
    ap.add_argument("--elf-thread-metric-plainsem", type=Path,
                    default=Path("build/fw/thread-metric-plainsem.elf"),
                    help="the same suite with CAIRN_SEM_EMERALDS=0")
    for policy in POLICIES:
        ap.add_argument(f"--elf-{policy}", type=Path, default=Path(f"build/fw/kernel-bench-{policy}.elf"),
                        help=f"the production build with CAIRN_POLICY_{policy.upper()}: policies.{policy}")
    ap.add_argument("--map", type=Path, help="link map (default: the ELF's .map)")
    ap.add_argument("--obj-dir", type=Path, default=Path("build/obj/fw"), help="kernel objects under core/, arch/armv6m/")
    ap.add_argument("--size-tool", default="arm-none-eabi-size")
    ap.add_argument("--clock", type=int, default=DEFAULT_CLOCK_HZ)
    ap.add_argument("--out", type=Path, default=Path("build/bench/kernel.json"))
    args = ap.parse_args(argv)

    try:
        traced, breakdowns, sizeofs = measure(args.sim, args.elf, args.clock)
        traced_samples = dict(SAMPLES)
        plain, _, _ = measure(args.sim, args.elf_plainsem, args.clock)
        by_policy = {}
        for policy in POLICIES:
            p_figures, _, p_sizeofs = measure(args.sim, getattr(args, f"elf_{policy}"), args.clock)
            by_policy[policy] = policy_figures(p_figures, p_sizeofs, FAST_PATHS[policy])
        figures, _, notrace_sizeofs = measure(args.sim, args.elf_notrace, args.clock)
        policies = {"fp": policy_figures(figures, notrace_sizeofs, FAST_PATHS["fp"]), **by_policy}
        figures["sem_take_give_plain_cycles"] = plain["sem_take_give_cycles"]
        figures["sem_contended_plain_cycles"] = plain["sem_contended_cycles"]
        threads = thread_metric.measure(args.sim, args.elf_thread_metric, args.elf_thread_metric_plainsem,
                                        args.clock)
        figures.update({k: v for k, v in threads.items() if k != "thread_metric"})
        models = models_metric.measure(args.sim, args.metric_fw, args.clock)
        map_path = args.map or args.elf.with_suffix(".map")
        sizes = kernel_sizes_from_map(map_path.read_text())
    except BenchError as e:
        sys.exit(f"bench: {e}")
    objs = sorted([*args.obj_dir.glob("core/*.o"), *args.obj_dir.glob("arch/armv6m/*.o")])
    obj_sizes = berkeley_size(args.size_tool, objs)
    obj_totals = {k: sum(v[k] for v in obj_sizes.values()) for k in ("text", "data", "bss")}
    elf_size = berkeley_size(args.size_tool, [args.elf])[str(args.elf)]

    t = sizes["totals"]
    static_ram = t["data"] + t["bss"]
    core_text = sum(v["text"] for k, v in sizes["per_object"].items() if k not in SERVICE_OBJECTS)
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "firmware": str(args.elf_notrace),
        "firmware_traced": str(args.elf),
        "clock_hz": args.clock,
        **figures,
        "traced": traced,
        "kernel_text_bytes": t["text"],
        "kernel_core_text_bytes": core_text,
        "kernel_services_text_bytes": t["text"] - core_text,
        "kernel_data_bytes": t["data"],
        "kernel_bss_bytes": t["bss"],
        "kernel_static_ram_bytes": static_ram,
        "tcb_bytes": sizeofs["tcb_bytes"],
        "route_bytes": sizeofs.get("route_bytes"),
        "msg_bytes": sizeofs["msg_bytes"],
        "msg_pool": sizeofs.get("msg_pool"),
        "kernel_per_object": sizes["per_object"],
        "kernel_objects_size": obj_totals,
        "firmware_size": elf_size,
        "thread_metric": threads["thread_metric"],
        "models": models,
        "policies": policies,
        "samples": dict(SAMPLES),
        "samples_traced": traced_samples,
        "breakdowns": breakdowns,
        "method": METHOD,
        "targets": {
            **TARGETS,
            "send_preempt_met": figures["send_preempt_cycles"] <= TARGETS["send_preempt_cycles_max"],
            "irq_to_handler_met": figures["irq_to_handler_beyond_entry_cycles"]
            <= TARGETS["irq_to_handler_beyond_entry_cycles_max"],
            "kernel_text_met": t["text"] <= TARGETS["kernel_text_bytes_max"],
            "kernel_core_text_met": core_text <= TARGETS["kernel_text_bytes_max"],
            "kernel_static_ram_met": static_ram <= TARGETS["kernel_static_ram_bytes_max"],
            "tcb_met": sizeofs["tcb_bytes"] <= TARGETS["tcb_bytes_max"],
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    def met(flag: str) -> str:
        return "met" if result["targets"][flag] else "NOT met"

    f = figures
    tf = traced
    print("kernel (cairn-sim, Cortex-M0+, -Os, cycles; event log off, in brackets on):")
    print(f"  send_enqueue_cycles     {f['send_enqueue_cycles']:6d} [{tf['send_enqueue_cycles']}]")
    print(f"  send_preempt_cycles     {f['send_preempt_cycles']:6d} [{tf['send_preempt_cycles']}]"
          f"  (target <= 100: {met('send_preempt_met')})")
    print(f"  irq_to_handler_cycles   {f['irq_to_handler_cycles']:6d} [{tf['irq_to_handler_cycles']}]"
          f"  ({f['irq_to_handler_beyond_entry_cycles']} beyond the {HW_ENTRY_CYCLES}-cycle entry; "
          f"target <= 80: {met('irq_to_handler_met')})")
    print(f"    level-sensitive binding: {f['irq_level_to_handler_beyond_entry_cycles']} beyond entry "
          f"[{tf['irq_level_to_handler_beyond_entry_cycles']}]; ordinary ISR + PendSV: "
          f"{f['irq_isr_to_handler_beyond_entry_cycles']} [{tf['irq_isr_to_handler_beyond_entry_cycles']}]")
    print(f"  timer_to_handler_cycles {f['timer_to_handler_cycles']:6d} [{tf['timer_to_handler_cycles']}]")
    print(f"  alloc_free_cycles       {f['alloc_free_cycles']:6d} [{tf['alloc_free_cycles']}]")
    print(f"  state message, 16 bytes: write {f['statemsg_write16_cycles']}, read "
          f"{f['statemsg_read16_cycles']}, slow reader's read {f['statemsg_read16_atomic_cycles']} "
          f"(a message: send -> handler {f['send_preempt_cycles']}, send -> handler -> back "
          f"{f['send_preempt_roundtrip_cycles']})")
    tm = threads["thread_metric"]
    print(f"  thread to thread: preemptive, decided by the thread's own call (the call switch's BL -> "
          f"the higher thread's first instruction) {f['thread_switch_cycles']} (target <= "
          f"{tm['targets']['thread_switch_cycles_max']}: "
          f"{'met' if tm['targets']['thread_switch_met'] else 'NOT met'}); through PendSV (the pended "
          f"switch unmasked -> the higher thread's first instruction) {tm['preemptive_switch_pendsv']}; "
          f"cairn_thread_yield -> the other "
          f"thread {f['thread_yield_cycles']} [{tf['thread_yield_cycles']}]; semaphore given -> the waiter "
          f"{f['sem_signal_to_waiter_cycles']}")
    print(f"  mutex lock + unlock, free {f['mutex_lock_unlock_cycles']} (target <= "
          f"{tm['targets']['mutex_lock_unlock_cycles_max']}: "
          f"{'met' if tm['targets']['mutex_lock_unlock_met'] else 'NOT met'})")
    pi = tm["priority_inheritance"]
    print(f"  Thread-Metric-style: " + ", ".join(
        f"{k} {tm[k]}" for k in ("cooperative_switch", "preemptive_switch", "interrupt_processing",
                                 "interrupt_preemption", "message_processing", "synchronisation",
                                 "memory_allocation")))
    print(f"  priority inheritance, holder's give -> the waiter, by threads ready behind the holder "
          f"{pi['threads_ready_behind']}: EMERALDS {pi['emeralds']}, plain {pi['plain']}")
    print(f"  mutex take + give, free {f['sem_take_give_cycles']} [plain {f['sem_take_give_plain_cycles']}]; "
          f"contended (holder posts to the announced waiter and gives -> the waiter holds it) "
          f"{f['sem_contended_cycles']} [plain {f['sem_contended_plain_cycles']}]")
    print(f"  (diagnostic: memset of 16 bytes {f['memset16_cycles']} cycles)")
    print("per policy (event log off; send -> preempting handler, queued send, IRQ -> handler, timer):")
    for name, pf in policies.items():
        print(f"  {name:4s} send_preempt {pf['send_preempt_cycles']}, send_enqueue {pf['send_enqueue_cycles']}, "
              f"irq_to_handler {pf['irq_to_handler_cycles']} ({pf['irq_to_handler_beyond_entry_cycles']} beyond "
              f"entry), timer_to_handler {pf['timer_to_handler_cycles']}, msg {pf['msg_bytes']} B"
              f" (fast paths in {pf['fast_paths']})")
    print("kernel sizes (bytes, kernel/core + kernel/arch/armv6m as linked):")
    print(f"  kernel core text {core_text} (target 'kernel core <= 4096': {met('kernel_core_text_met')}); "
          f"everything linked {t['text']} (<= 4096: {met('kernel_text_met')}) = core + services "
          f"{t['text'] - core_text} (heap, slab, timers, app manager, multicast, sleep choice, "
          f"state messages, threads, semaphores)")
    print(f"  data {t['data']}, bss {t['bss']} (static RAM {static_ram}, target <= 256: "
          f"{met('kernel_static_ram_met')})")
    print(f"  tcb {sizeofs['tcb_bytes']} (target <= 16: {met('tcb_met')}), msg {sizeofs['msg_bytes']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
