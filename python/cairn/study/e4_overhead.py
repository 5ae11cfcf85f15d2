"""E4's OS overhead split by cairn-sim's per-function attribution: the kernel functions that
run in the round's critical stretch, classed by the source file each comes from (the ELF's
debug line of its symbol), their cycles summed over that window (the profile of a run
stopped at the window's end minus one stopped at its start).

The window starts when the round's last sample has arrived, not at the timer: while the
ADC fills the buffers the core would idle anyway, so the kernel's work then delays nothing
(the standalone image waits for the same samples); it ends at the last SC done. The last
sample is the last conversion in the I/O log before the end (conversions fall at k / rate,
the same instants for every image): it wakes the core, so the wake-up's cycles, which run
no code, are in the window beside the functions'."""

from __future__ import annotations

import math
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.experiment import run as cairn_run
from cairn.paths import firmware_dir

from .e4_measure import SCENARIOS, E4Error, _ms

SAMPLES = 512  # kernel/apps/ssl/dsp.h DSP_N: samples per channel and round

MESSAGING = ("send.c", "msgq.c", "sched.c", "mcast.c", "route.c")
MEMORY = ("heap.c", "slab.c", "payload.c")
# The distributed services (bus manager, remote, reliable, multicast, time sync, their armv6m
# fast paths): the messaging the paper's device does over its bus. The board's bus driver is
# a hardware driver, as in Table IV: the standalone images drive the bus with it too.
BUS_DIRS = ("kernel/core/net/", "kernel/arch/armv6m/net/")


@dataclass(frozen=True)
class Split:
    """Cycles over the window by class: messaging, memory, the rest of the kernel
    (timer, interrupts, idle, tasks' switch), everything else (application, drivers,
    libgcc, code of no symbol) and the wake-ups from sleep."""

    messaging: int
    memory: int
    other_kernel: int
    rest: int
    wakeup: int
    clock_hz: float

    def ms(self, cycles: int) -> float:
        return 1e3 * cycles / self.clock_hz


def classes(elf: Path) -> dict[str, str]:
    """Each function symbol's class from the source file nm's debug line names: messaging,
    memory, bus, other_kernel or rest."""
    out = subprocess.run(["arm-none-eabi-nm", "-l", "--defined-only", str(elf)],
                         capture_output=True, text=True, check=True).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[1] not in "tTwW":
            continue
        name, src = parts[2], parts[3].rsplit(":", 1)[0]
        base = src.rsplit("/", 1)[-1]
        if any(d in src for d in BUS_DIRS):
            found[name] = "bus"
        elif "kernel/core/" in src or "kernel/arch/" in src:
            found[name] = "messaging" if base in MESSAGING else "memory" if base in MEMORY else "other_kernel"
        else:
            found[name] = "rest"
    return found


def _profile(elf: Path, scenario: str, until_ns: int) -> tuple[dict[str, int], int, float]:
    """The per-function cycles, the wake-up cycles and the clock of a run stopped at `until_ns`."""
    res = cairn_run(SCENARIOS / f"{scenario}.toml", outputs=("stats",), max_time=f"{until_ns}ns",
                    firmware=elf, timeout=600)
    if res.status != 124:
        raise E4Error(f"{scenario} {elf.name}: {res.describe_failure()}")
    stats: dict[str, Any] = res.stats_json
    wakeup = int(((stats.get("energy_model") or {}).get("cycles_by_state") or {}).get("wakeup", 0))
    return ({str(p["symbol"]): int(p["cycles"]) for p in stats.get("profile", [])}, wakeup,
            float(stats["clock_hz"]))


def _last_conversion_ns(elf: Path, scenario: str, until_ns: int) -> int:
    """The last ADC conversion before `until_ns`, from the I/O log, in ns rounded up (a run
    stopped there includes it)."""
    res = cairn_run(SCENARIOS / f"{scenario}.toml", outputs=("io_log",), max_time=f"{until_ns}ns",
                    firmware=elf, timeout=600)
    if res.status != 124:
        raise E4Error(f"{scenario} {elf.name}: {res.describe_failure()}")
    times = [float(row.split(",")[1]) for row in res.files["io_log"].read_text().splitlines()[1:]
             if row.split(",")[2] == "adc"]
    if not times:
        raise E4Error(f"{scenario} {elf.name}: no ADC conversion before the round's end")
    return math.ceil(round(max(times) * 1e9, 3))


def split(sc_ms: float, elf: str = "ssl-one", scenario: str = "one-sound") -> Split:
    """The split over the first round, from its last sample to its last SC done, `sc_ms`
    after the round's timer."""
    path = firmware_dir() / f"{elf}.elf"
    if not path.exists():
        raise E4Error(f"{path} is missing (make build)")
    doc = tomllib.loads((SCENARIOS / f"{scenario}.toml").read_text())
    round_ms = _ms(next(s for s in doc["stimulus"] if s["name"] == "round")["start"])
    if sc_ms <= 1e3 * SAMPLES / float(doc["adc"]["rate_hz"]):
        raise E4Error(f"{scenario} {elf}: SC done {sc_ms:.3f} ms is before the round's last sample")
    end_ns = round((round_ms + sc_ms) * 1e6)
    before, woken_before, _ = _profile(path, scenario, _last_conversion_ns(path, scenario, end_ns))
    after, woken_after, hz = _profile(path, scenario, end_ns)
    kinds = classes(path)
    sums = {"messaging": 0, "memory": 0, "other_kernel": 0, "rest": 0}
    for sym, cycles in after.items():
        kind = kinds.get(sym, "rest")
        # One module sends nothing over the bus: its distributed services' few cycles (the bus
        # manager's start) count with the rest of the kernel, as they always have here.
        sums["other_kernel" if kind == "bus" else kind] += cycles - before.get(sym, 0)
    return Split(clock_hz=hz, wakeup=woken_after - woken_before, **sums)
