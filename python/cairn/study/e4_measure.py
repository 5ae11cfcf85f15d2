"""E4's measurements on cairn-sim: the SSL + FBD application (kernel/apps/ssl) run on the
scenarios of experiments/e4-comos, timed at the marker pins by cairn-sim's own
stimulus -> pin delay measurement (docs/stimuli.md), never by the kernel's counters; and
the firmware's memory from its link map."""

from __future__ import annotations

import json
import tomllib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.bench.kernel import map_sections
from cairn.experiment import Result
from cairn.experiment import run as cairn_run
from cairn.paths import firmware_dir, repo_root
from cairn.scenario import Device

SCENARIOS = repo_root() / "experiments" / "e4-comos"
ROUND_PERIOD_S = 1.0
MARGIN_MS = 40  # past the last round's end, before the next round's timer (50 ms into a period)
CHANNELS = 4


class E4Error(Exception):
    pass


@dataclass(frozen=True)
class Run:
    """One run: the round's latencies (timer interrupt -> the last SC done, -> HT done),
    the FBD chain's, the directions HT printed and the energy by processor."""

    sc_ms: float
    ht_ms: float | None
    fbd_mean_ms: float | None  # None: the firmware has no FBD (ssl-standalone-five)
    fbd_max_ms: float | None
    chain_ms: float
    directions: tuple[int, ...]
    energy_uj: dict[str, float]
    energy_by_task_uj: dict[tuple[str, str], float]
    rounds: int


def _delay(io: dict[str, Any], name: str) -> dict[str, Any] | None:
    d = io.get("delay", {}).get(name)
    return d if d and d.get("answered") else None


def _run(target: Device | Path, outputs: tuple[str, ...], rounds: int, firmware: Path | None, what: str) -> Result:
    """One run of `rounds` rounds; the scenarios end by the time limit (status 124)."""
    res = cairn_run(target, outputs=outputs, max_time=f"{int(rounds * ROUND_PERIOD_S * 1000) + MARGIN_MS}ms",
                    firmware=firmware, timeout=600)
    if res.status != 124 or any(not f.exists() for f in res.files.values()):
        raise E4Error(f"{what}: {res.describe_failure()}")
    return res


def run(scenario: str, rounds: int, elf: str | None = None) -> Run:
    """Runs experiments/e4-comos/<scenario>.toml for `rounds` rounds, with build/fw/<elf>.elf
    instead of the scenario's firmware when given (on a device file, on every module)."""
    path = SCENARIOS / f"{scenario}.toml"
    firmware = None
    target: Device | Path = path
    if elf:
        firmware = firmware_dir() / f"{elf}.elf"
        if not firmware.exists():
            raise E4Error(f"{firmware} is missing (make build)")
        if "[[processor]]" in path.read_text():
            device = Device.load(path)
            for module in device.processors or []:
                module.firmware = str(firmware)
            target, firmware = device, None
    res = _run(target, ("stats",), rounds, firmware, f"{scenario} {elf or ''}")
    stats = res.stats_json
    procs: dict[str, Any] = stats.get("processors") or {"module": stats}
    ios = [p.get("io", {}) for p in procs.values()]
    sc: dict[int, dict[str, Any]] = {}
    ht = fbd = None
    for io in ios:
        for c in range(CHANNELS):
            if (e := _delay(io, f"round->sc{c}")) is not None:
                sc[c] = e
        ht = ht or _delay(io, "round->ht")
        fbd = fbd or _delay(io, "temp->fbd")
    if len(sc) != CHANNELS:
        raise E4Error(f"{scenario} {elf or ''}: the SC pins were not answered")
    if any(e["answered"] != rounds for e in sc.values()):
        raise E4Error(f"{scenario} {elf or ''}: not every round reached SC: {[e['answered'] for e in sc.values()]}")
    means = [sc[c]["delay"]["mean_s"] * 1e3 for c in range(CHANNELS)]
    directions = tuple(int(line.split(" direction ")[1].split()[0])
                       for line in res.console.splitlines() if " direction " in line)
    energy = {name: p["energy_joules"]["total"] * 1e6 for name, p in procs.items()
              if isinstance(p.get("energy_joules"), dict) and "total" in p["energy_joules"]}
    by_task = {(name, str(task)): float(j) * 1e6 for name, p in procs.items()
               for task, j in (p.get("energy_joules", {}).get("by_task") or {}).items()}
    return Run(sc_ms=max(means), ht_ms=ht["delay"]["mean_s"] * 1e3 if ht else None,
               fbd_mean_ms=fbd["delay"]["mean_s"] * 1e3 if fbd else None,
               fbd_max_ms=fbd["delay"]["max_s"] * 1e3 if fbd else None,
               chain_ms=(max(means) - min(means)) / (CHANNELS - 1), directions=directions,
               energy_uj=energy, energy_by_task_uj=by_task, rounds=rounds)


# Components of Table IV, by the object a section comes from (first match wins).
COMPONENTS = (
    ("Application", ("apps/ssl/",)),
    ("Migration protocol", ("core/net/migrat", "core/net/staging", "core/net/checkpoint")),
    ("Distributed messaging (bus manager, remote TCBs, time sync)", ("core/net/", "arch/armv6m/net/")),
    ("Memory management", ("core/heap", "core/slab", "core/take")),
    ("Virtual timer", ("core/timer",)),
    ("Messaging kernel", ("core/", "arch/armv6m/", "apps/support/")),
    ("Hardware drivers", ("boards/",)),
    ("C runtime (libgcc)", ("libgcc",)),
)


def memory(elf: str) -> dict[str, dict[str, int]]:
    """text and data + bss bytes by component, from build/fw/<elf>.map."""
    path = firmware_dir() / f"{elf}.map"
    if not path.exists():
        raise E4Error(f"{path} is missing (make build)")
    out: dict[str, dict[str, int]] = {}
    for kind, size, obj in map_sections(path.read_text()):
        name = next((c for c, keys in COMPONENTS if any(k in obj for k in keys)), "Other")
        row = out.setdefault(name, {"text": 0, "data": 0})
        row["text" if kind == "text" else "data"] += size
    return out


def heap_bytes(elf: str) -> int:
    """The size of the application's heap array (the `heap` symbol), 0 when it has none."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", str(firmware_dir() / f"{elf}.elf")],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == "heap":
            return int(parts[1], 16)
    return 0


def _ms(v: object) -> float:
    """A scenario duration ("262ms", "1s", "728.8us") in ms."""
    text = str(v)
    for unit, scale in (("ms", 1.0), ("us", 1e-3), ("ns", 1e-6), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text) * 1e3


def fbd_during_fft(r: Run, scenario: str) -> bool:
    """Whether a firing of FBD's timer falls while a channel's FFT and SC run, on a one-module
    scenario: channel c's work is the chain time before its SC done pin rises."""
    doc = tomllib.loads((SCENARIOS / f"{scenario}.toml").read_text())
    stim = {s["name"]: s for s in doc["stimulus"]}
    round0, period = _ms(stim["round"]["start"]), _ms(stim["round"]["period"])
    temp0, temp_period = _ms(stim["temp"]["start"]), _ms(stim["temp"]["period"])
    sc_last = r.sc_ms
    windows = [(round0 + k * period + sc_last - (c + 1) * r.chain_ms, round0 + k * period + sc_last - c * r.chain_ms)
               for k in range(r.rounds) for c in range(CHANNELS)]
    fires = [temp0 + k * temp_period for k in range(int(r.rounds * period / temp_period) + 1)]
    return any(lo <= t < hi for t in fires for lo, hi in windows)


# Figure 6's destinations: the pin its sender sets and its handler clears (kernel/apps/ssl/ssl.h).
MESSAGE_PINS = {"FFT": 9, "SC": 10, "Vote": 11, "HT": 12}
ROUND_PIN = 0


def message_latencies(elf: str, scenario: str = "one-sound") -> dict[str, float]:
    """Mean latency in us of the messages to each destination over one round, from the I/O
    log: a message pin's high time; the Timer's message from the round's stimulus to the
    Timer handler's first pin write (the round pin rising)."""
    path = firmware_dir() / f"{elf}.elf"
    if not path.exists():
        raise E4Error(f"{path} is missing (make build)")
    res = _run(SCENARIOS / f"{scenario}.toml", ("io_log",), 1, path, f"{scenario} {elf}")
    rows = res.files["io_log"].read_text().splitlines()[1:]
    clock = 0.0
    level = 0
    rising: dict[int, float] = {}
    spans: dict[str, list[float]] = {name: [] for name in ("Timer", *MESSAGE_PINS)}
    fired: float | None = None
    for row in rows:
        cycle, time_s, kind, name, value = row.split(",")
        if int(cycle):
            clock = int(cycle) / float(time_s)
        t = float(time_s)
        if kind == "stimulus" and name == "round":
            fired = t
        if kind != "gpio":
            continue
        new = int(value)
        up, down = new & ~level, level & ~new
        if up >> ROUND_PIN & 1 and fired is not None:
            spans["Timer"].append(t - fired)
            fired = None
        for dest, pin in MESSAGE_PINS.items():
            if up >> pin & 1:
                rising[pin] = t
            if down >> pin & 1 and pin in rising:
                spans[dest].append(t - rising.pop(pin))
        level = new
    if not clock or any(not v for v in spans.values()):
        raise E4Error(f"{scenario} {elf}: a message pin never went up and down: {spans}")
    return {dest: 1e6 * sum(v) / len(v) for dest, v in spans.items()}


EV_START, EV_NET_SEND, EV_NET_RECV, EV_NET_RECV_TO = 0x02, 0x20, 0x22, 0x23
BROADCAST = 0xFF


@dataclass(frozen=True)
class Remote:
    """Messages across modules on the five-module device, in us from the frame written to the
    sender's controller (NET_SEND) to the destination handler's start (START), from the
    device trace's kernel events (global time): the Timer's multicast to the four ADC tasks
    (first and last member), and the SCs' unicasts to Vote (the quickest, and the mean)."""

    mcast_first_us: float
    mcast_last_us: float
    unicast_min_us: float
    unicast_mean_us: float


def remote_latencies(rounds: int, scenario: str = "five-sound") -> Remote:
    doc = _run(SCENARIOS / f"{scenario}.toml", ("trace",), rounds, None, scenario).trace_json
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    words: dict[int, list[tuple[float, int, int, int]]] = {}
    for e in events:
        name = str(e.get("name", ""))
        if e.get("ph") == "i" and name.startswith("event ") and isinstance(e.get("args"), dict):
            words.setdefault(int(e["pid"]), []).append((float(e["ts"]), int(name[6:]), int(e["args"]["a"]), int(e["args"]["b"])))
    for w in words.values():
        w.sort()

    def start_after(pid: int, t: float, tasks: set[int]) -> float | None:
        """The first START of one of tasks on pid after t, following the frame's NET_RECV."""
        for ts, code, a, b in words.get(pid, []):
            if ts >= t and code == EV_START and a in tasks and b == 16:
                return ts
        return None

    def received(pid: int, src_module: int, seq: int, after: float) -> float | None:
        for ts, code, a, b in words.get(pid, []):
            if ts >= after and code == EV_NET_RECV and a == src_module and b == seq:
                return ts
        return None

    adc_tasks, vote_task = {16, 17, 18, 19}, {10}  # kernel/apps/ssl/ssl.h: IDs = index + 1
    mcast: list[tuple[float, float]] = []
    unicast: list[float] = []
    for pid, ws in words.items():
        for ts, code, a, b in ws:
            if code != EV_NET_SEND:
                continue
            if a == BROADCAST and pid == 1:
                arrivals = []
                for other in words:
                    if other != pid and (r := received(other, pid - 1, b, ts)) is not None:
                        if (s := start_after(other, r, adc_tasks)) is not None:
                            arrivals.append(s - ts)
                if arrivals:
                    mcast.append((min(arrivals), max(arrivals)))
            elif a == 0 and pid != 1:
                if (r := received(1, pid - 1, b, ts)) is not None and (s := start_after(1, r, vote_task)) is not None:
                    unicast.append(s - ts)
    if not mcast or not unicast:
        raise E4Error(f"{scenario}: no multicast or no unicast found in the trace")
    return Remote(mcast_first_us=sum(m[0] for m in mcast) / len(mcast),
                  mcast_last_us=sum(m[1] for m in mcast) / len(mcast),
                  unicast_min_us=min(unicast), unicast_mean_us=sum(unicast) / len(unicast))


def clocks_hz(scenario: str) -> dict[str, float]:
    """Each processor's clock in a device file of experiments/e4-comos, in Hz."""
    doc = tomllib.loads((SCENARIOS / f"{scenario}.toml").read_text())
    units = {"GHz": 1e9, "MHz": 1e6, "kHz": 1e3, "Hz": 1.0}
    out = {}
    for p in doc["processor"]:
        text = str(p["clock"])
        unit = next(u for u in units if text.endswith(u))
        out[str(p["name"])] = float(text[: -len(unit)]) * units[unit]
    return out


EV_ALLOC, EV_FREE = 0x04, 0x05


def heap_high_water(elf: str = "ssl-one", scenario: str = "one-sound", rounds: int = 1) -> int:
    """The most heap bytes in use at once (usable sizes, headers apart), from the kernel's
    ALLOC and FREE words in cairn-sim's trace, start-up included."""
    path = firmware_dir() / f"{elf}.elf"
    if not path.exists():
        raise E4Error(f"{path} is missing (make build)")
    doc = _run(SCENARIOS / f"{scenario}.toml", ("trace",), rounds, path, f"{scenario} {elf}").trace_json
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    words = sorted((float(e["ts"]), int(str(e["name"])[6:]), int(e["args"]["b"])) for e in events
                   if e.get("ph") == "i" and str(e.get("name", "")).startswith("event ")
                   and isinstance(e.get("args"), dict))
    used = peak = 0
    for _, code, size in words:
        if code == EV_ALLOC:
            used += size
            peak = max(peak, used)
        elif code == EV_FREE:
            used -= size
    if peak == 0:
        raise E4Error(f"{scenario} {elf}: no heap allocation in the trace")
    return peak
