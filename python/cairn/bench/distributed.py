"""Cairn OS across modules, the benchmark: cycles on a cairn-sim device and sizes.

Runs build/fw/net-bench.elf (kernel/apps/net_bench/net_bench.c) on every processor of
experiments/bench/distributed.toml (five 8 MHz Cortex-M0+ modules on the default bus) with
``--trace`` and ``--bus-log``, and turns the exact time stamps of the trace-port words and of
the frames into cycle figures; reads the distributed services' code size (kernel/core/net
objects and the board's bus driver) from the link map. Writes build/bench/distributed.json.

The JSON is built from *sections*: a section is a function of one device run (``Run``) that
returns its figures, their ``method`` texts and its ``targets``. Later work (task migration,
time synchronisation) adds its ``migration_*`` or ``timesync_*`` keys by appending a section
to ``SECTIONS`` (and its firmware phases to the bench firmware); nothing else changes.

Time. Every processor runs at 8 MHz, so one cycle is 125 000 ps of device time. The trace
stamps a trace-port store with the cycle its STR starts. A frame's ``queued_ps`` (bus log) is
its ``TX_SEND`` store, ``arrival_ps`` the instant the frame is in the receiver's RX FIFO; the
receiver sees it at its first cycle boundary at or after the arrival (docs/device.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cairn
from cairn.bench.kernel import KERNEL_EVENTS, BenchError, map_sections
from cairn.net_trace import us_to_ps
from cairn.scenario import Device

#: Event codes of the kernel's log (docs/kernel.md, docs/distributed.md "Trace words").
EVENTS = {**{code: name for code, name in KERNEL_EVENTS.items()},
          0x20: "NET_SEND", 0x21: "NET_SEND_TO", 0x22: "NET_RECV", 0x23: "NET_RECV_TO", 0x24: "NET_QUEUE",
          0x25: "NET_ERR"}  # fmt: skip
CLOCK_HZ = 8_000_000
PS_PER_CYCLE = 1_000_000_000_000 // CLOCK_HZ
MARK_EVENT = 0xBE
PROBE_EVENT = 0x41
REPS = 3
PROBES = 4  #: modules 1..4 hold a probe; multicast groups of 1..4 modules
PH_EMPTY, PH_LOCAL, PH_REMOTE, PH_MCAST1 = 0, 1, 2, 3
PH_LOCAL_QUEUE = PH_MCAST1 + PROBES  #: after the multicast phases
CAIRN_NET_HEADER = 10  #: the bus manager's frame header (docs/distributed.md, "Frames")
PAYLOAD_BYTES = 4  #: what the bench firmware sends

TARGETS = {
    #: remote send -> first instruction of the remote handler, beyond the bus transfer
    "remote_send_to_handler_beyond_bus_cycles_max": 400,
    #: the local fast path must keep its cycles (the kernel benchmark's figure, event log off)
    "local_send_to_handler_cycles_max": 100,
}

NET_OBJ = re.compile(r"(^|/)obj/fw/(notrace/)?(core/net/[^/]+|boards/mps2-an385/bus_driver)\.o$")


@dataclass
class Run:
    """What the sections need from one device run, in cycles of the 8 MHz modules."""

    #: (phase, rep, edge) -> cycle of module 0's marker store
    markers: dict[tuple[int, int, int], int] = field(default_factory=dict)
    #: module -> cycles of its probe handlers' first instructions
    probes: dict[int, list[int]] = field(default_factory=dict)
    #: the bus log's frames: (source module, destination, queued, arrival) in ps
    frames: list[tuple[int, str, int, int]] = field(default_factory=list)
    #: queued ps -> the start of the frame's slot, ps
    starts: dict[int, int] = field(default_factory=dict)
    map_text: str = ""
    #: module -> (cycle, label) of its kernel's event-log words (the traced build only)
    events: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    #: the device's bus timing (bus_params)
    bus: dict[str, float] = field(default_factory=dict)


def to_cycles(ps: int) -> int:
    if ps % PS_PER_CYCLE:
        raise BenchError(f"{ps} ps is not a whole cycle at {CLOCK_HZ} Hz")
    return ps // PS_PER_CYCLE


def parse(trace_text: str, bus_csv: str, map_text: str) -> Run:
    data = json.loads(trace_text)
    module: dict[int, int] = {}
    for ev in data["traceEvents"]:
        if ev.get("ph") == "M" and ev.get("name") == "process_name":
            module[int(ev["pid"])] = int(str(ev["args"]["name"]).lstrip("m"))
    run = Run(map_text=map_text)
    for ev in data["traceEvents"]:
        if ev.get("ph") != "i" or ev.get("tid") != 3:
            continue
        code = int(str(ev["name"]).split()[1])
        m = module[int(ev["pid"])]
        at = to_cycles(us_to_ps(ev["ts"]))
        if code == MARK_EVENT and m == 0:
            a, b = int(ev["args"]["a"]), int(ev["args"]["b"])
            run.markers[(a, b >> 8, b & 0xFF)] = at
        elif code == PROBE_EVENT:
            run.probes.setdefault(m, []).append(at)
        else:
            a, b = int(ev["args"]["a"]), int(ev["args"]["b"])
            label = f"{EVENTS.get(code, hex(code))} a={a} b={b}"
            run.events.setdefault(m, []).append((at, label))
    for row in csv.DictReader(bus_csv.splitlines()):
        if row["power"] not in ("0", "false", ""):
            continue
        run.frames.append((int(row["src"].lstrip("m")), row["dst"], int(row["queued_ps"]), int(row["arrival_ps"])))
        run.starts[int(row["queued_ps"])] = int(row["start_ps"])
    return run


def _mark(run: Run, phase: int, rep: int, edge: int) -> int:
    try:
        return run.markers[(phase, rep, edge)]
    except KeyError:
        raise BenchError(f"marker phase {phase} rep {rep} edge {edge} missing from the trace") from None


def _probe_after(run: Run, module: int, lo: int) -> int:
    """Module's first probe after cycle lo (one per 2 ms tick, so the next tick's is later)."""
    hits = [p for p in run.probes.get(module, []) if p > lo]
    if not hits:
        raise BenchError(f"no probe on module {module} after cycle {lo}")
    return min(hits)


def _frame_after(run: Run, lo: int) -> tuple[int, str, int, int]:
    hits = [f for f in run.frames if f[2] > lo * PS_PER_CYCLE]
    if not hits:
        raise BenchError(f"no frame queued after cycle {lo}")
    return min(hits, key=lambda f: f[2])


def _frame_start(run: Run, queued_ps: int) -> int:
    return run.starts[queued_ps]


#: Every repetition's value, by figure (the last run).
SAMPLES: dict[str, list[int]] = {}


def _one(values: list[int], what: str) -> int:
    """The steady state: the repetitions after the first must agree."""
    SAMPLES[what] = list(values)
    if len(set(values[1:])) != 1:
        raise BenchError(f"{what}: repetitions differ: {values}")
    return values[-1]


Section = Callable[[Run], tuple[dict[str, Any], dict[str, str], dict[str, Any]]]


def messages(run: Run) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """Local and remote sends, and multicast by group size."""
    empty = _one([_mark(run, PH_EMPTY, r, 1) - _mark(run, PH_EMPTY, r, 0) for r in range(REPS)], "empty")

    def starts(phase: int) -> list[int]:
        return [_mark(run, phase, r, 0) for r in range(REPS)]

    def returns(phase: int) -> list[int]:
        return [_mark(run, phase, r, 1) - _mark(run, phase, r, 0) - empty for r in range(REPS)]

    local = [_probe_after(run, 0, a) - a - empty for a in starts(PH_LOCAL)]
    sender, bus, receiver, total, wire = [], [], [], [], []
    for a in starts(PH_REMOTE):
        src, dst, queued_ps, arrival_ps = _frame_after(run, a)
        wire.append(arrival_ps - _frame_start(run, queued_ps))
        if (src, dst) != (0, "m1"):
            raise BenchError(f"remote phase: frame {src} -> {dst}, expected 0 -> m1")
        queued = to_cycles(queued_ps)
        seen = -(-arrival_ps // PS_PER_CYCLE)  # the receiver's first cycle at or after the arrival
        probe = _probe_after(run, 1, a)
        sender.append(queued - a - empty)
        bus.append(seen - queued)
        receiver.append(probe - seen)
        total.append(probe - a - empty)
    a0 = starts(PH_REMOTE)[0]
    _, _, q0, arr0 = _frame_after(run, a0)
    seen0 = -(-arr0 // PS_PER_CYCLE)
    p0 = _probe_after(run, 1, a0)
    breakdowns = {
        "remote_sender": [{"cycle": 0, "event": "cairn_send called (marker)"}]
        + [{"cycle": c - a0 - empty, "event": e} for c, e in run.events.get(0, []) if a0 < c <= to_cycles(q0)]
        + [{"cycle": to_cycles(q0) - a0 - empty, "event": "TX_SEND (bus log: frame queued)"}],
        "remote_receiver": [{"cycle": 0, "event": "frame in the RX FIFO (bus log arrival)"}]
        + [{"cycle": c - seen0, "event": e} for c, e in run.events.get(1, []) if seen0 <= c < p0]
        + [{"cycle": p0 - seen0, "event": "handler's first instruction (probe)"}],
    }
    mcast: dict[str, int] = {}
    mcast_return: dict[str, int] = {}
    mcast_receiver: dict[str, int] = {}
    for g in range(1, PROBES + 1):
        phase = PH_MCAST1 + g - 1
        last, rx = [], []
        for a in starts(phase):
            src, dst, _, arrival_ps = _frame_after(run, a)
            if (src, dst) != (0, "*"):
                raise BenchError(f"multicast phase {g}: frame {src} -> {dst}, expected a broadcast from 0")
            seen = -(-arrival_ps // PS_PER_CYCLE)
            probes = [_probe_after(run, m, a) for m in range(1, g + 1)]
            last.append(max(probes) - a - empty)
            rx.append(max(probes) - seen)
        mcast[str(g)] = _one(last, f"multicast_{g}")
        mcast_receiver[str(g)] = _one(rx, f"multicast_{g}_receiver")
        mcast_return[str(g)] = _one(returns(phase), f"multicast_{g}_return")
    figures: dict[str, Any] = {
        "marker_overhead_cycles": empty,
        "local_send_to_handler_cycles": _one(local, "local_send_to_handler"),
        "local_send_roundtrip_cycles": _one(returns(PH_LOCAL), "local_send_roundtrip"),
        "local_send_return_cycles": _one(returns(PH_LOCAL_QUEUE), "local_send_return"),
        "remote_send_return_cycles": _one(returns(PH_REMOTE), "remote_send_return"),
        "remote_send_to_handler_cycles": _one(total, "remote_send_to_handler"),
        "remote_send_to_handler_bus_cycles": _one(bus, "remote_send_to_handler_bus"),
        "remote_send_to_handler_sender_cycles": _one(sender, "remote_sender"),
        "remote_send_to_handler_receiver_cycles": _one(receiver, "remote_receiver"),
        "remote_frame_wire_ps": _one(wire, "remote_frame_wire_ps"),
        "remote_frame_wire_ps_from_bus_parameters": wire_ps(run.bus, CAIRN_NET_HEADER + PAYLOAD_BYTES),
        "multicast_cycles_by_group_size": mcast,
        "multicast_return_cycles_by_group_size": mcast_return,
        "multicast_receiver_cycles_by_group_size": mcast_receiver,
        "breakdowns": breakdowns,
    }
    figures["remote_send_to_handler_beyond_bus_cycles"] = (
        figures["remote_send_to_handler_cycles"] - figures["remote_send_to_handler_bus_cycles"])
    limit = TARGETS["remote_send_to_handler_beyond_bus_cycles_max"]
    targets = {
        **TARGETS,
        "remote_send_to_handler_met": figures["remote_send_to_handler_beyond_bus_cycles"] <= limit,
        "local_send_to_handler_met": figures["local_send_to_handler_cycles"]
        <= TARGETS["local_send_to_handler_cycles_max"],
    }
    return figures, METHOD, targets


def sizes(run: Run) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    per_obj = net_sizes_from_map(run.map_text)
    text = sum(v["text"] for v in per_obj.values())
    return ({"distributed_text_bytes": text, "distributed_per_object": per_obj},
            {"distributed_text_bytes": "sum of .text* and .rodata* input sections of kernel/core/net/*.o and "
                                       "kernel/boards/mps2-an385/bus_driver.o in the link map of "
                                       "build/fw/net-bench.elf (after --gc-sections, event log on, -Os); "
                                       "the core kernel's own size is kernel.json's"}, {})


#: The JSON's sections, in order; later work appends its own (migration_*, timesync_*).
SECTIONS: list[Section] = [messages, sizes]


def net_sizes_from_map(map_text: str) -> dict[str, dict[str, int]]:
    """text, data, bss of the distributed services' objects as linked."""
    per_obj: dict[str, dict[str, int]] = {}
    for kind, size, obj in map_sections(map_text):
        if not NET_OBJ.search(obj):
            continue
        key = obj.split("obj/fw/")[-1].removeprefix("notrace/")
        per_obj.setdefault(key, {"text": 0, "data": 0, "bss": 0})[kind] += size
    if not per_obj:
        raise BenchError("no kernel/core/net or bus driver sections in the link map")
    return dict(sorted(per_obj.items()))


METHOD = {
    "cycles": "cairn-sim runs build/fw/net-bench.elf (kernel/apps/net_bench, -Os, event log on) on the "
              "five 8 MHz Cortex-M0+ modules of experiments/bench/distributed.toml (default bus: 64 MB/s, "
              "8 us TDMA slots, 500 ns controller latency, 4 header bytes). Module 0's driver task "
              "(prio 2) brackets one `bl cairn_send` with two trace-port marker stores, once per 2 ms "
              "tick (every module asleep in WFI between ticks); handlers under test are naked stubs "
              "whose first instruction stores to the trace port. Times are device picoseconds, 125000 "
              "per cycle; figure = probe - before-marker - marker_overhead_cycles. 3 repetitions; "
              "repetitions 2 and 3 must agree.",
    "local_send_to_handler_cycles": "send to a prio-5 task on the same module (preempting) -> its "
                                    "handler's first instruction (the kernel bench's send_preempt, "
                                    "here with the bus manager linked)",
    "remote_send_to_handler_cycles": "send to a prio-5 task on module 1 -> first instruction of its "
                                     "handler on module 1 = sender + bus + receiver",
    "remote_send_to_handler_sender_cycles": "call -> the sender's TX_SEND store (bus log queued_ps): the "
                                            "message scheduler, the remote TCB, the frame written to "
                                            "the controller",
    "remote_send_to_handler_bus_cycles": "TX_SEND -> the receiver's first cycle at or after the frame's "
                                         "arrival (bus log): the wait for the sender's TDMA slot, "
                                         "(header_bytes + 10 + 4) bytes at 64 MB/s, 500 ns latency",
    "remote_send_to_handler_receiver_cycles": "arrival -> the handler's first instruction on module 1: "
                                              "wake-up from WFI, the RX interrupt, the frame read into "
                                              "a message, dispatch",
    "remote_send_return_cycles": "call -> return of the remote send (the bus idle: written at once); when the "
                                 "frame's slot comes before the send returns, the TX-done interrupt's service "
                                 "by the bus manager is included (the slot's phase depends on when the send "
                                 "happens: see breakdowns and samples)",
    "local_send_return_cycles": "call -> return of a send to a lower-priority task on the same module (queued): "
                                "the local counterpart of remote_send_return_cycles (the kernel bench's "
                                "send_enqueue_cycles, with the bus manager linked)",
    "local_send_roundtrip_cycles": "call -> return of the local preempting send, its handler (a stub) included",
    "multicast_cycles_by_group_size": "send to a group whose members are one task on each of modules "
                                      "1..g -> the last member's handler's first instruction (one "
                                      "broadcast frame)",
}  # fmt: skip


def bus_params(device: Path) -> dict[str, float]:
    """The device's bus timing (docs/device.md defaults for keys it does not give)."""
    bus = tomllib.loads(device.read_text()).get("bus", {})
    return {
        "throughput_bytes_per_s": _quantity(bus.get("throughput", "64MB/s"), UNITS_RATE),
        "slot_s": _quantity(bus.get("slot", "8us"), UNITS_TIME),
        "latency_s": _quantity(bus.get("latency", "500ns"), UNITS_TIME),
        "header_bytes": float(bus.get("header_bytes", 4)),
    }


UNITS_RATE = {"GB/s": 1e9, "MB/s": 1e6, "kB/s": 1e3, "B/s": 1.0}
UNITS_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _quantity(text: str, units: dict[str, float]) -> float:
    for unit, scale in units.items():
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise BenchError(f"cannot read {text!r}")


def wire_ps(params: dict[str, float], frame_bytes: int) -> int:
    """A frame's time from the start of its slot to its arrival (docs/device.md, "Timing"):
    ceil((header_bytes + length) x 10^12 / throughput) ps + latency."""
    on_wire = -(-int((params["header_bytes"] + frame_bytes) * 10**12) // int(params["throughput_bytes_per_s"]))
    return on_wire + round(params["latency_s"] * 10**12)


def run_device(sim: str, device: Path, elf: Path, timeout: float = 120) -> tuple[str, str]:
    """(trace JSON, bus log CSV) of one run of the device, every processor running elf."""
    dev = Device.load(device)
    for proc in dev.processors or []:
        proc.firmware = str(elf.resolve())
    r = cairn.run(dev, ["trace", "bus_log"], timeout=timeout, sim=sim)
    if r.status != 0 or "net-bench done" not in r.console:
        raise BenchError(f"{' '.join(r.command)} on {device} exited {r.status}:\n{r.console[-2000:]}\n"
                         f"{r.stderr.decode(errors='replace')[-1000:]}")
    return r.files["trace"].read_text(), r.files["bus_log"].read_text()


def measure(sim: str, device: Path, elf: Path) -> dict[str, Any]:
    """Every section's figures, methods and targets from one run of elf on the device."""
    trace, log = run_device(sim, device, elf)
    run = parse(trace, log, elf.with_suffix(".map").read_text())
    run.bus = bus_params(device)
    result: dict[str, Any] = {"figures": {}, "method": {}, "targets": {}}
    for section in SECTIONS:
        figures, method, targets = section(run)
        result["figures"].update(figures)
        result["method"].update(method)
        result["targets"].update(targets)
    return result


#: The global clock's worst true error allowed, µs (CoMOS measured ±9.5 µs on mPlatform).
TIMESYNC_SKEW_US_MAX = 10.0


def timesync(sim: str) -> dict[str, Any]:
    """The time-sync demo (experiments/devices/timesync.toml: four modules, ±20 ppm crystals,
    1 Hz sync) run on cairn-sim: the worst pairwise skew of the modules' marks at agreed
    global times, from each processor's true clock (the trace's cycle stamps); and the same
    with the STM32L053 energy profile (timesync-energy.toml: its flash wait state and
    deep-sleep wake-up change when the code runs)."""
    from cairn import timesync_skew

    out: dict[str, Any] = {}
    for prefix, device in (("timesync", timesync_skew.DEVICE), ("timesync_energy", timesync_skew.ENERGY_DEVICE)):
        r = timesync_skew.run(device=device, sim=Path(sim))
        if r.status != 0 or not r.skews:
            raise BenchError(f"the time-sync demo on {device.name} exited {r.status} with {len(r.skews)} marks:\n"
                             f"{r.stderr[-1000:]}")
        worst_us = max(sk.spread_ps for sk in r.skews) / 1e6
        out[f"{prefix}_skew_us_max"] = round(worst_us, 3)
        out[f"{prefix}_marks"] = len(r.skews)
        out[f"{prefix}_skew_met"] = worst_us <= TIMESYNC_SKEW_US_MAX
    out["timesync_skew_us_target"] = TIMESYNC_SKEW_US_MAX
    return out


def checkpoint() -> dict[str, Any]:
    """Checkpoint migration's cost against checkpoint size (0-4096 bytes) and its freezing
    time (docs/checkpoint.md), from cairn.bench.checkpoint."""
    from cairn.bench import checkpoint as ckpt

    try:
        return dict(ckpt.measure())
    except RuntimeError as e:
        raise BenchError(str(e)) from e


def migration(sim: str) -> dict[str, Any]:
    """Task migration's latency against serialised state size (0-4096 bytes, 2 modules) and
    module count (2-8, 1 KiB), fitted as base + per byte (docs/migration.md), from
    cairn.bench.migration."""
    from cairn.bench import migration as mig

    try:
        return dict(mig.measure(sim=Path(sim)))
    except mig.MigrationBenchError as e:
        raise BenchError(str(e)) from e


def build_result(sim: str, device: Path, elf: Path, elf_notrace: Path) -> dict[str, Any]:
    """The JSON: cycle figures of the production build (event log compiled out), the same
    with the event log on under ``traced``, sizes from the traced ELF's link map."""
    traced = measure(sim, device, elf)
    traced_samples = dict(SAMPLES)
    m = measure(sim, device, elf_notrace)
    f = m["figures"]
    # Sizes are counted with the event log on, like kernel.json's.
    for key in ("distributed_text_bytes", "distributed_per_object"):
        f[key] = traced["figures"][key]
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "firmware": str(elf_notrace),
        "firmware_traced": str(elf),
        "device": str(device),
        "clock_hz": CLOCK_HZ,
        **f,
        "traced": {k: v for k, v in traced["figures"].items() if k.endswith(("_cycles", "_by_group_size"))},
        #: the traced run's event log between the instants of the first repetition
        "breakdowns": traced["figures"]["breakdowns"],
        **timesync(sim),
        **checkpoint(),
        **migration(sim),
        "samples": dict(SAMPLES),
        "samples_traced": traced_samples,
        "method": m["method"],
        "targets": m["targets"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--device", type=Path, default=Path("experiments/bench/distributed.toml"))
    ap.add_argument("--elf", type=Path, default=Path("build/fw/net-bench.elf"))
    ap.add_argument("--elf-notrace", type=Path, default=Path("build/fw/net-bench-notrace.elf"))
    ap.add_argument("--out", type=Path, default=Path("build/bench/distributed.json"))
    args = ap.parse_args(argv)
    try:
        result = build_result(args.sim, args.device, args.elf, args.elf_notrace)
    except BenchError as e:
        sys.exit(f"bench: {e}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    f, t, tr = result, result["targets"], result["traced"]
    met = "met" if t["remote_send_to_handler_met"] else "NOT met"
    print("distributed (cairn-sim, five 8 MHz Cortex-M0+ modules, default bus, cycles; event log off, on in brackets):")
    print(f"  local send -> handler            {f['local_send_to_handler_cycles']:6d} [{tr['local_send_to_handler_cycles']}]")
    print(f"  checkpoint migration cost        {f['checkpoint_cost_base_cycles']} + "
          f"{f['checkpoint_cost_per_byte_cycles']} per byte (32 MHz cycles); freezing time at 1 KiB "
          f"{f['checkpoint_freeze_cycles']}")
    mig_met = {k: "met" if f[f"migration_{k}_met"] else "NOT met" for k in ("base", "per_byte")}
    print(f"  task migration latency           {f['migration_base_cycles']} (target <= "
          f"{f['migration_base_cycles_target']}: {mig_met['base']}) + {f['migration_cycles_per_byte']} per byte "
          f"(target <= {f['migration_cycles_per_byte_target']}: {mig_met['per_byte']}), R2 {f['migration_fit_r2']}")
    print("    by state size, 2 modules:      " + ", ".join(
        f"{k} B {v['latency_cycles']} (freeze {v['freeze_cycles']})" for k, v in f["migration_by_size"].items()))
    print(f"    by module count, {f['migration_by_modules_state_bytes']} B:       " + ", ".join(
        f"{k} {v['latency_cycles']}" for k, v in f["migration_by_modules"].items()))
    ts_met = "met" if f["timesync_skew_met"] else "NOT met"
    print(f"  time sync, worst true skew       {f['timesync_skew_us_max']} us over {f['timesync_marks']} marks "
          f"(target <= {f['timesync_skew_us_target']}: {ts_met})")
    te_met = "met" if f["timesync_energy_skew_met"] else "NOT met"
    print(f"    with the energy profile        {f['timesync_energy_skew_us_max']} us over "
          f"{f['timesync_energy_marks']} marks ({te_met})")
    print(f"  remote send -> remote handler    {f['remote_send_to_handler_cycles']:6d} [{tr['remote_send_to_handler_cycles']}]"
          f" = sender {f['remote_send_to_handler_sender_cycles']} + bus {f['remote_send_to_handler_bus_cycles']} + "
          f"receiver {f['remote_send_to_handler_receiver_cycles']}")
    print(f"    beyond the bus {f['remote_send_to_handler_beyond_bus_cycles']} "
          f"[{tr['remote_send_to_handler_beyond_bus_cycles']}] (target <= "
          f"{t['remote_send_to_handler_beyond_bus_cycles_max']}: {met})")
    print(f"  send call -> return: remote     {f['remote_send_return_cycles']:6d} [{tr['remote_send_return_cycles']}],"
          f" local (queued) {f['local_send_return_cycles']} [{tr['local_send_return_cycles']}]")
    print(f"  multicast -> last member, by group size: {f['multicast_cycles_by_group_size']}")
    print(f"  distributed services text {f['distributed_text_bytes']} B")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
