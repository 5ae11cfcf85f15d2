"""E4's OS overhead split on the five-module device (a 48 MHz compute module and four 8 MHz
sensing modules, experiments/e4-comos/five-*.toml), by cairn-sim's per-function attribution
as e4_overhead does for one module, module by module, each module's cycles at its own clock.

The window is one end-to-end round: from the round's last ADC sample (the latest sensing
module's conversion in the I/O log, which wakes the module, so that wake-up is inside) to HT
done on the compute module (sound) or to the last SC done (noise), the marker pins' rises.
Every module's profile is taken from runs of the device stopped at the window's ends (one
global time, so each module's cycles are exact at its own clock); the functions are classed
by source file as e4_overhead.classes does: messaging, memory, bus (the distributed
services), other kernel, the rest (application, drivers, libgcc), plus the deep-sleep
wake-ups the idle loop's choice costs, which run no code. The parts sum to the module's busy
cycles (cycles less sleep).

The modules work at the same time, so their parts do not add up to the round: the four
sensing modules run ADC, FFT and SC side by side, and the compute module is asleep until the
verdicts come. The round's length is the critical path, which crosses modules once: the
sensing module whose verdict reaches Vote last runs from the window's start to the instant
its frame is written to its bus controller (NET_SEND in the kernel's trace words); from
then the compute module's work (the frame's reception, Vote, HT) and its waiting (the
frame's slot and wire time, asleep) lead to HT done. Each stretch's parts are that module's
cycles over it, and busy plus waiting sum to the window's length. Every sensing module's
chain (to its own verdict's frame) is split too: the path starts with the longest, and what
makes it longer is what delays the round. With noise the round ends on the last sensing
module, so the path stays there."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from typing import Any

from cairn.experiment import run as cairn_run
from cairn.paths import firmware_dir

from .e4_measure import CHANNELS, SCENARIOS, E4Error, _ms, _run, clocks_hz
from .e4_overhead import classes
from .result import OurTable

PARTS = ("messaging", "memory", "bus", "other_kernel", "rest", "wakeup")
EV_NET_SEND, EV_NET_RECV, EV_NET_RECV_TO = 0x20, 0x22, 0x23  # kernel/include/cairn/trace.h
VOTE_TASK = 10  # kernel/apps/ssl/ssl.h: T_VOTE's ID (index + 1)


@dataclass(frozen=True)
class Stretch:
    """One module's cycles by part between two instants of the device's time (ns), its busy
    cycles (cycles less sleep, as cairn-sim counts them) and all its cycles in the stretch."""

    module: str
    clock_hz: float
    start_ns: int
    end_ns: int
    parts: dict[str, int]
    busy: int
    cycles: int

    def ms(self, cycles: int) -> float:
        return 1e3 * cycles / self.clock_hz

    @property
    def waiting(self) -> int:
        """Cycles asleep in the stretch: on the critical path, waiting for a sample or a frame."""
        return self.cycles - self.busy


@dataclass(frozen=True)
class FiveSplit:
    """The window (device time, ns), every module's parts over it, each sensing module's
    chain (from the window's start to its verdict's frame written; with noise, to its SC
    done), the critical path's stretches in order and how it crosses modules."""

    start_ns: int
    end_ns: int
    modules: dict[str, Stretch]
    chains: dict[str, Stretch]
    path: tuple[Stretch, ...]
    crossing: str

    @property
    def window_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


@dataclass(frozen=True)
class _Snapshot:
    profile: dict[str, int]
    busy: int
    cycles: int
    wakeup: int
    clock_hz: float


def _snapshots(scenario: str, at_ns: int) -> dict[str, _Snapshot]:
    """Every module's counters in a run of the device stopped at `at_ns`."""
    res = cairn_run(SCENARIOS / f"{scenario}.toml", outputs=("stats",), max_time=f"{at_ns}ns", timeout=600)
    if res.status != 124:
        raise E4Error(f"{scenario} to {at_ns} ns: {res.describe_failure()}")
    out = {}
    for name, p in res.processor_stats.items():
        by_state = (p.get("energy_model") or {}).get("cycles_by_state") or {}
        out[name] = _Snapshot(profile={str(f["symbol"]): int(f["cycles"]) for f in p.get("profile", [])},
                              busy=int(p["active_cycles"]), cycles=int(p["cycles"]),
                              wakeup=int(by_state.get("wakeup", 0)), clock_hz=float(p["clock_hz"]))
    return out


def _stretch(module: str, kinds: dict[str, str], a: dict[str, _Snapshot], b: dict[str, _Snapshot],
             start_ns: int, end_ns: int) -> Stretch:
    before, after = a[module], b[module]
    parts = dict.fromkeys(PARTS, 0)
    for sym, cycles in after.profile.items():
        parts[kinds.get(sym, "rest")] += cycles - before.profile.get(sym, 0)
    parts["wakeup"] = after.wakeup - before.wakeup
    return Stretch(module=module, clock_hz=after.clock_hz, start_ns=start_ns, end_ns=end_ns, parts=parts,
                   busy=after.busy - before.busy, cycles=after.cycles - before.cycles)


def _words(trace: Any, names: list[str]) -> dict[str, list[tuple[float, int, int, int]]]:
    """The trace's kernel words (us, code, a, b) by module name."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    pid_name = {int(e["pid"]): str(e["args"]["name"]) for e in events
                if e.get("ph") == "M" and e.get("name") == "process_name"}
    words: dict[str, list[tuple[float, int, int, int]]] = {n: [] for n in names}
    for e in events:
        name, module = str(e.get("name", "")), pid_name.get(int(e.get("pid", 0)))
        if module in words and e.get("ph") == "i" and name.startswith("event ") and isinstance(e.get("args"), dict):
            words[module].append((float(e["ts"]), int(name[6:]), int(e["args"]["a"]), int(e["args"]["b"])))
    for v in words.values():
        v.sort()
    return words


@dataclass(frozen=True)
class _Io:
    """From the I/O log, in each module's own cycles: the ADC's conversions and the first
    rise of each marker pin after the round's timer."""

    conversions: dict[str, list[int]]
    rises: dict[tuple[str, int], int]


def _io(log: str, round_s: float) -> _Io:
    conversions: dict[str, list[int]] = {}
    rises: dict[tuple[str, int], int] = {}
    level: dict[str, int] = {}
    for row in log.splitlines()[1:]:
        cycle, time_s, module, kind, _, value = row.split(",")
        if kind == "adc":
            conversions.setdefault(module, []).append(int(cycle))
        elif kind == "gpio":
            new, old = int(value), level.get(module, 0)
            level[module] = new
            if float(time_s) >= round_s:
                for pin in range(32):
                    if (new & ~old) >> pin & 1:
                        rises.setdefault((module, pin), int(cycle))
    return _Io(conversions, rises)


def _verdicts(words: dict[str, list[tuple[float, int, int, int]]], end_module: str,
              start_us: float, end_us: float) -> list[tuple[str, float, float]]:
    """The verdicts that reached Vote on `end_module` in the window, in the order they came:
    each one's sender, the instant its frame was written to the sender's controller and the
    instant it was received. A module's bus address is its index in the device file."""
    address = {n: i for i, n in enumerate(words)}
    ws = words[end_module]
    found: list[tuple[str, float, float]] = []
    for i, (ts, code, src, seq) in enumerate(ws):
        if code != EV_NET_RECV or not start_us <= ts <= end_us:
            continue
        to = next((x for x in ws[i + 1:] if x[1] == EV_NET_RECV_TO), None)
        sender = next((n for n, a in address.items() if a == src), None)
        if to is None or to[2] != VOTE_TASK or sender is None:
            continue
        sent = [t for t, c, dest, s in words[sender]
                if c == EV_NET_SEND and dest == address[end_module] and s == seq and t <= ts]
        if sent:
            found.append((sender, sent[-1], ts))
    if not found:
        raise E4Error(f"no verdict reached Vote on {end_module} in the window")
    return found


def _ns(us: float) -> int:
    """An instant of the trace (us) in ns, rounded up so a run stopped there includes it."""
    return math.ceil(round(us * 1e3, 3))


def _cycle_ns(cycle: int, clock_hz: float) -> int:
    """A module's cycle as the device's time in ns, rounded up as _ns does."""
    return -(-cycle * 10**9 // round(clock_hz))


def _done_ns(doc: dict[str, Any], io: _Io, hz: dict[str, float], pins: tuple[str, ...]) -> dict[str, int]:
    """When each module's done pin (of `pins`, by the device file's names) first rose in
    the round, in ns; the latest of a module's pins."""
    done: dict[str, int] = {}
    for p in doc["processor"]:
        module = str(p["name"])
        for pin in pins:
            rise = io.rises.get((module, int(p.get("pin", {}).get(pin, {}).get("index", -1))))
            if rise is not None:
                done[module] = max(done.get(module, 0), _cycle_ns(rise, hz[module]))
    if not done:
        raise E4Error(f"{doc.get('name', 'device')}: the round never ended (no {'/'.join(pins)} pin rose)")
    return done


def split(case: str = "sound") -> FiveSplit:
    """The first round's split on five modules, `case` sound (to HT done) or noise (to the
    last SC done)."""
    if case not in ("sound", "noise"):
        raise E4Error(f"five-module split: no case {case!r} (sound or noise)")
    scenario = f"five-{case}"
    elf = firmware_dir() / "ssl-five.elf"
    if not elf.exists():
        raise E4Error(f"{elf} is missing (make build)")
    doc = tomllib.loads((SCENARIOS / f"{scenario}.toml").read_text())
    names = [str(p["name"]) for p in doc["processor"]]
    hz = clocks_hz(scenario)
    round_ms = next(_ms(s["start"]) for p in doc["processor"] for s in p.get("stimulus", []) if s["name"] == "round")
    res = _run(SCENARIOS / f"{scenario}.toml", ("io_log", "trace"), 1, None, scenario)
    io = _io(res.files["io_log"].read_text(), round_ms / 1e3)
    done = _done_ns(doc, io, hz, ("ht",) if case == "sound" else tuple(f"sc{c}" for c in range(CHANNELS)))
    end_module = max(done, key=lambda n: done[n])
    end_ns = done[end_module]
    sampled = [t for m, cs in io.conversions.items() for c in cs if (t := _cycle_ns(c, hz[m])) < end_ns]
    if not sampled:
        raise E4Error(f"{scenario}: no ADC conversion before the round's end")
    start_ns = max(sampled)
    kinds = classes(elf)
    if end_module in io.conversions:
        crossing_ns: int | None = None
        crossing = f"none: the round ends on {end_module}, which ran its own chain from the last sample"
        chain_ends = {m: t for m, t in done.items() if m in io.conversions}
    else:
        verdicts = _verdicts(_words(res.trace_json, names), end_module, start_ns / 1e3, end_ns / 1e3)
        sender, sent_us, recv_us = verdicts[-1]
        crossing_ns = _ns(sent_us)
        crossing = (f"{sender}'s verdict, the last to reach Vote: its frame written to the controller "
                    f"{sent_us / 1e3 - start_ns / 1e6:.3f} ms into the window, handed to the scheduler on "
                    f"{end_module} {recv_us - sent_us:.3f} us later")
        chain_ends = {m: _ns(sent) for m, sent, _ in verdicts}
    at = {t: _snapshots(scenario, t) for t in {start_ns, end_ns, *chain_ends.values()}}
    modules = {n: _stretch(n, kinds, at[start_ns], at[end_ns], start_ns, end_ns) for n in names}
    chains = {m: _stretch(m, kinds, at[start_ns], at[t], start_ns, t) for m, t in sorted(chain_ends.items())}
    if crossing_ns is None:
        path: tuple[Stretch, ...] = (chains[end_module],)
    else:
        path = (chains[sender], _stretch(end_module, kinds, at[crossing_ns], at[end_ns], crossing_ns, end_ns))
    return FiveSplit(start_ns=start_ns, end_ns=end_ns, modules=modules, chains=chains, path=path,
                     crossing=crossing)


def temperature_module(scenario: str) -> str | None:
    """The module with the temperature sensor (FBD's Temp task's input port), if any."""
    doc = tomllib.loads((SCENARIOS / f"{scenario}.toml").read_text())
    return next((str(p["name"]) for p in doc["processor"] if "temperature" in p.get("port", {})), None)


LABELS = {"messaging": "messaging", "memory": "memory", "bus": "bus", "other_kernel": "other_kernel",
          "rest": "app_drivers_libgcc", "wakeup": "wake_up"}


def module_table(splits: dict[str, FiveSplit]) -> OurTable:
    """Each module's parts over the window, in its cycles and in ms at its clock, beside its
    measured busy cycles and the window's length in its cycles."""
    rows: list[tuple[Any, ...]] = []
    for case, s in splits.items():
        for m in s.modules.values():
            figures = [m.parts[k] for k in PARTS] + [sum(m.parts.values()), m.busy, m.cycles]
            rows.append((case, m.module, m.clock_hz / 1e6, "cycles", *figures))
            rows.append((case, m.module, m.clock_hz / 1e6, "ms", *(round(m.ms(c), 4) for c in figures)))
    return OurTable(
        "The five-module overhead split by module: first round, from its last sample to HT done (sound) or the "
        "last SC done (noise), each module's cycles at its own clock; the modules work side by side, so the rows "
        "do not add up to the round (the critical path's table does)",
        ("case", "module", "clock_mhz", "unit", *(LABELS[k] for k in PARTS), "sum", "busy", "window"), tuple(rows))


def path_table(splits: dict[str, FiveSplit]) -> OurTable:
    """The critical path's stretches, each module's parts over its stretch in ms and the time
    it slept (waiting for the frame), from the window's start; the total is the window, and
    each part's share of it in percent."""
    rows: list[tuple[Any, ...]] = []
    for case, s in splits.items():
        totals = dict.fromkeys((*PARTS, "asleep"), 0.0)
        for i, st in enumerate(s.path):
            ms = {k: st.ms(st.parts[k]) for k in PARTS} | {"asleep": st.ms(st.waiting)}
            for k, v in ms.items():
                totals[k] += v
            rows.append((case, f"{i + 1}", st.module, round((st.start_ns - s.start_ns) / 1e6, 4),
                         round((st.end_ns - s.start_ns) / 1e6, 4), *(round(v, 4) for v in ms.values()),
                         round(st.ms(st.cycles), 4)))
        rows.append((case, "critical path", " -> ".join(st.module for st in s.path), 0.0, round(s.window_ms, 4),
                     *(round(v, 4) for v in totals.values()), round(sum(totals.values()), 4)))
        rows.append((case, "share %", "", "", "", *(round(100 * v / s.window_ms, 3) for v in totals.values()),
                     round(100 * sum(totals.values()) / s.window_ms, 3)))
    return OurTable(
        "The five-module round's critical path (ms): the sensing module whose verdict reaches Vote last, to its "
        "frame written to the controller, then the compute module (the frame's wire time asleep, its reception, "
        "Vote, HT); with noise the last sensing module alone",
        ("case", "stretch", "module", "from_ms", "to_ms", *(f"{LABELS[k]}_ms" for k in PARTS), "asleep_ms",
         "length_ms"), tuple(rows))


def chain_table(splits: dict[str, FiveSplit]) -> OurTable:
    """Each sensing module's chain in ms: the critical path starts with the longest."""
    rows = tuple((case, st.module, *(round(st.ms(st.parts[k]), 4) for k in PARTS), round(st.ms(st.waiting), 4),
                  round(st.ms(st.cycles), 4))
                 for case, s in splits.items() for st in s.chains.values())
    return OurTable(
        "Each sensing module's chain (ms) from the round's last sample to its verdict's frame written to the "
        "controller (noise: to its SC done); the last one is the critical path's first stretch",
        ("case", "module", *(f"{LABELS[k]}_ms" for k in PARTS), "asleep_ms", "length_ms"), rows)
