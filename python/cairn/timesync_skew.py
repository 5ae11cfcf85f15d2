"""The true error of Cairn OS's global clock, from a device's ``cairn-sim --trace`` file.

Every module of kernel/apps/timesync writes a ``TIME_MARK`` trace word (code 0x27, a = its
module, b = the mark number k) when its global clock reads k x 100 ms + 50 ms. cairn-sim
stamps each trace word with the exact cycle of its processor, and all processors share the
device's one simulated time, so the spread of mark k's stamps across modules is how far
apart the modules' global clocks truly were then: not the kernels' own view of it.

    python -m cairn.timesync_skew                   # runs the demo, prints the skew
    python -m cairn.timesync_skew --free            # the same without synchronisation
    python -m cairn.timesync_skew --trace FILE.json # an existing trace

The last line printed is ``time sync: max skew N.N us over M marks``: M counts the marks
every module made (after each had its first complete synchronisation: offset and rate).
docs/distributed.md, "Time synchronisation".
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cairn
from cairn.paths import repo_root
from cairn.scenario import Device

EV_TIME_MARK = 0x27
DEVICE = repo_root() / "experiments" / "devices" / "timesync.toml"
#: The same with the STM32L053 energy profile: its flash wait state and deep-sleep wake-up.
ENERGY_DEVICE = repo_root() / "experiments" / "devices" / "timesync-energy.toml"


@dataclass(frozen=True)
class Skew:
    """The spread of one mark across the modules, in picoseconds."""

    mark: int
    spread_ps: int
    first_ps: int  #: the earliest module's stamp


def marks(text: str) -> dict[int, dict[int, int]]:
    """Mark number -> module -> the true time (ps) of its TIME_MARK word."""
    out: dict[int, dict[int, int]] = {}
    for ev in json.loads(text)["traceEvents"]:
        if ev.get("ph") != "i" or ev.get("tid") != 3:
            continue
        if int(str(ev["name"]).split()[1]) != EV_TIME_MARK:
            continue
        ps = round(float(ev["ts"]) * 1_000_000)
        out.setdefault(int(ev["args"]["b"]), {})[int(ev["args"]["a"])] = ps
    return out


def skews(by_mark: dict[int, dict[int, int]]) -> list[Skew]:
    """One Skew per mark that every module made, in mark order."""
    modules = set().union(*by_mark.values()) if by_mark else set()
    out = []
    for k in sorted(by_mark):
        stamps = by_mark[k]
        if set(stamps) != modules:
            continue
        out.append(Skew(k, max(stamps.values()) - min(stamps.values()), min(stamps.values())))
    return out


def offsets(by_mark: dict[int, dict[int, int]], master: int = 0) -> dict[int, float]:
    """Module -> its marks' mean offset (ps) from the master's, over the marks every module
    made: the part of the skew that is a fixed offset of one module's stamps against the
    master's (what the RX stamp and the master's watch take off, docs/distributed.md)."""
    every = [by_mark[s.mark] for s in skews(by_mark)]
    if not every:
        return {}
    return {m: sum(st[m] - st[master] for st in every) / len(every) for m in every[0] if m != master}


def counters(console: str) -> dict[int, dict[str, int]]:
    """Module -> the counters of its last line (`m<module> marks <n> missed <n> samples <n>
    ...`, kernel/apps/timesync), from the run's console ("m1: m1 marks 97 ..." lines)."""
    out: dict[int, dict[str, int]] = {}
    for line in console.splitlines():
        head, _, rest = line.partition(": ")
        words = rest.split()
        if not head.startswith("m") or not words or words[0] != head:
            continue
        pairs = words[1:]
        if pairs[-1] == "ppb":
            pairs = pairs[:-1]
        out[int(head[1:])] = {pairs[i]: int(pairs[i + 1]) for i in range(0, len(pairs) - 1, 2)}
    return out


def summary(found: list[Skew]) -> str:
    worst = max((s.spread_ps for s in found), default=0)
    return f"time sync: max skew {worst / 1e6:.1f} us over {len(found)} marks"


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str
    skews: list[Skew]
    offsets: dict[int, float]  #: module -> mean offset (ps) from the master's marks


def run(free: bool = False, device: Path = DEVICE, sim: Path | None = None) -> Run:
    """Runs the demo (build/fw/timesync.elf, or timesync-free.elf) on the device file, with
    `sim` (default: build/bin/cairn-sim)."""
    dev = Device.load(device)
    if free:
        for p in dev.processors or []:
            p.firmware = str(p.firmware).replace("timesync.elf", "timesync-free.elf")
    r = cairn.run(dev, ["trace"], max_time="15s", timeout=300, sim=sim)
    trace = r.files["trace"]
    by_mark = marks(trace.read_text()) if trace.exists() else {}
    return Run(r.status, r.console, r.stderr.decode(errors="replace"), skews(by_mark), offsets(by_mark))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, help="read this --trace file instead of running the demo")
    ap.add_argument("--free", action="store_true", help="the firmware without synchronisation")
    ap.add_argument("--device", type=Path, default=DEVICE)
    args = ap.parse_args(argv)
    if args.trace:
        found = skews(marks(args.trace.read_text()))
    else:
        r = run(args.free, args.device)
        sys.stdout.write(r.stdout)
        if r.status != 0:
            sys.stderr.write(r.stderr)
            print(f"cairn-sim exited with status {r.status}", file=sys.stderr)
            return 1
        found = r.skews
    if not found:
        print("no mark was made by every module", file=sys.stderr)
        return 1
    print(summary(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
