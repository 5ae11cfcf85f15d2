"""The kernel's scheduler costs in the analysis's overhead model, measured on cairn-sim.

Runs build/fw/kernel-overheads-{fp,edf,csd}.elf (kernel/apps/overhead_bench/overheads.c, the
kernel built once per scheduling policy, docs/policies.md) with ``--trace`` and turns the
exact cycle stamps of its markers into the keys ``cairn.analysis`` reads (docs/analysis.md, "The
overhead model"). Writes two files:

- ``--out`` (build/bench/overheads.json): the keys alone, one JSON object, ready for
  ``python -m cairn.analysis.breakdown --overheads``;
- ``--record`` (build/bench/overheads-record.json): every measurement per policy, the
  repetitions, and how each key is derived (``method``).

What each key is in Cairn's message scheduler (the firmware's header says how it is timed):

- ``<policy>.unblock`` (+ ``_per_task``): a message released to a task, ``cairn__enqueue``
  behind n queued messages, at n = 0 and n = LONG: the sorted insert's walk is the slope;
- ``<policy>.select`` (+ ``_per_task``): the dispatcher's choice, ``cairn__dequeue_above`` with
  n queued (the first ready): the queue is sorted at the insert, so the slope is what it is;
- ``<policy>.block``: a handler's return, ``cairn__end`` (it does not look at the queue);
- ``context_switch``: half of what ``cairn_dispatch`` of one queued message to an empty handler
  costs beyond two selects (each as much as ``select`` with one message queued) and its
  block: the way onto the stack, into the handler (its two instructions included) and back,
  from the fixed-priority build;
- ``csd.queue_check``: Cairn's CSD has no per-queue counters; a message carries its queue and
  every comparison looks at it. The key charges that as the model does, per job 2·k checks:
  (per-job cost of the CSD-2 build − that of the EDF build) / (2·2), at queue length LONG, at
  least 0;
- ``tick``: absent — Cairn's timers are tickless.

``fp.*`` come from the fixed-priority build, ``edf.*`` from the EDF build.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from cairn.analysis.overheads import Overheads
from cairn.bench.kernel import DEFAULT_CLOCK_HZ, BenchError, Trace, _mark, parse_trace, run_firmware

POLICIES = ("fp", "edf", "csd")
REPS = 3
LONG = 8  #: the firmware's longer queue

(PH_EMPTY, PH_UNBLOCK0, PH_UNBLOCK_LONG, PH_SELECT1, PH_SELECT_LONG, PH_BLOCK, PH_DISPATCH) = range(7)
PHASES = {
    "unblock0": PH_UNBLOCK0, "unblock_long": PH_UNBLOCK_LONG, "select1": PH_SELECT1,
    "select_long": PH_SELECT_LONG, "block": PH_BLOCK, "dispatch": PH_DISPATCH,
}  # fmt: skip


def _steady(values: list[int], what: str) -> int:
    """Repetitions 2 and 3 must agree (the first may take a cold path once)."""
    if len(set(values[1:])) != 1:
        raise BenchError(f"{what}: repetitions differ: {values}")
    return values[-1]


def measure_ops(tr: Trace) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Each phase's steady cycles (marker overhead taken off) and all repetitions."""

    def span(phase: int) -> list[int]:
        return [_mark(tr, phase, r, 1) - _mark(tr, phase, r, 0) for r in range(REPS)]

    empty = _steady(span(PH_EMPTY), "empty")
    samples = {name: [c - empty for c in span(ph)] for name, ph in PHASES.items()}
    return {name: _steady(v, name) for name, v in samples.items()}, samples


def policy_keys(policy: str, ops: dict[str, int]) -> dict[str, float]:
    """The model's block/unblock/select keys of one policy from its build's operations."""
    return {
        f"{policy}.unblock": ops["unblock0"],
        f"{policy}.unblock_per_task": max(0.0, (ops["unblock_long"] - ops["unblock0"]) / LONG),
        f"{policy}.select": ops["select1"],
        f"{policy}.select_per_task": max(0.0, (ops["select_long"] - ops["select1"]) / (LONG - 1)),
        f"{policy}.block": ops["block"],
    }


def context_switch(ops: dict[str, int]) -> float:
    """Half of dispatch beyond its two selects and its block."""
    rest = ops["dispatch"] - 2 * ops["select1"] - ops["block"]
    return max(0.0, rest / 2)


def per_job(policy: str, ops: dict[str, int], switch: float) -> float:
    """The model's per-job cost (Overheads.per_job) of one build at queue length LONG."""
    o = Overheads.from_mapping({**policy_keys("edf", ops), "context_switch": switch})
    return o.per_job("edf", LONG)


def derive(ops_by_policy: dict[str, dict[str, int]]) -> dict[str, float]:
    """The analysis's keys from the three builds' operations."""
    switch = context_switch(ops_by_policy["fp"])
    keys: dict[str, float] = {"context_switch": switch}
    keys.update(policy_keys("fp", ops_by_policy["fp"]))
    keys.update(policy_keys("edf", ops_by_policy["edf"]))
    extra = per_job("csd", ops_by_policy["csd"], switch) - per_job("edf", ops_by_policy["edf"], switch)
    keys["csd.queue_check"] = max(0.0, extra / (2 * 2))
    Overheads.from_mapping(keys)  # the analysis must accept every key
    return keys


def measure(sim: str, fw_dir: Path, clock_hz: int = DEFAULT_CLOCK_HZ) \
        -> tuple[dict[str, dict[str, int]], dict[str, dict[str, list[int]]]]:
    """Each policy's operations (steady cycles) and their repetitions, from one run of each
    build/fw/kernel-overheads-<policy>.elf in fw_dir."""
    ops_by_policy: dict[str, dict[str, int]] = {}
    samples: dict[str, dict[str, list[int]]] = {}
    for policy in POLICIES:
        elf = fw_dir / f"kernel-overheads-{policy}.elf"
        if not elf.is_file():
            raise BenchError(f"{elf} is missing (`make firmware` builds it)")
        _, trace = run_firmware(sim, elf, clock_hz)
        ops_by_policy[policy], samples[policy] = measure_ops(parse_trace(trace, clock_hz))
    return ops_by_policy, samples


METHOD = {
    "firmware": "kernel/apps/overhead_bench/overheads.c built once per policy without the event log "
                "(build/fw/kernel-overheads-{fp,edf,csd}.elf; CSD-2 with every task in EDF queue 0); "
                "each operation from main with interrupts masked, between two trace-port markers, "
                "after - before - the empty pair; 3 repetitions, 2 and 3 must agree",
    "keys": "see the module docstring of python/cairn/bench/overheads.py",
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--fw", type=Path, default=Path("build/fw"), help="where kernel-overheads-*.elf are")
    ap.add_argument("--clock", type=int, default=DEFAULT_CLOCK_HZ)
    ap.add_argument("--out", type=Path, default=Path("build/bench/overheads.json"))
    ap.add_argument("--record", type=Path, default=Path("build/bench/overheads-record.json"))
    args = ap.parse_args(argv)

    try:
        ops_by_policy, samples = measure(args.sim, args.fw, args.clock)
        keys = derive(ops_by_policy)
    except (BenchError, OSError) as e:
        sys.exit(f"bench: {e}")
    record: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "clock_hz": args.clock,
        "keys": keys,
        "operations": ops_by_policy,
        "samples": samples,
        "queue_long": LONG,
        "method": METHOD,
    }
    for path, data in ((args.out, keys), (args.record, record)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n")
    print("scheduler operations (cycles; n = queued messages):")
    for policy, ops in ops_by_policy.items():
        print(f"  {policy:4s} unblock n=0 {ops['unblock0']}, n={LONG} {ops['unblock_long']}; select n=1 "
              f"{ops['select1']}, n={LONG} {ops['select_long']}; block {ops['block']}; dispatch of one "
              f"message to an empty handler {ops['dispatch']}")
    print("analysis keys: " + ", ".join(f"{k} {v:g}" for k, v in keys.items()))
    print(f"wrote {args.out} and {args.record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
