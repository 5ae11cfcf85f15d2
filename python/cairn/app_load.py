"""An application loaded at run time, step by step on the bus, from a device's ``--bus-log``.

The application managers (docs/distributed.md, "Applications") talk in three frame sizes:
DESC (the PEER head and the patched description), ACK, and the INIT or DROP step (the PEER
head alone); the sizes come from the kernel's headers. This module tells the steps of one load
apart in a bus log and times them, in simulated time:

    python -m cairn.app_load                       # runs experiments/devices/pipeline-load.toml
    python -m cairn.app_load --device OTHER.toml

A device file that cannot be read or parsed is one line on stderr and exit status 2; a run
that fails or holds no successful load, exit status 1. The last line printed is

    load: broadcast A us, initialisation B us, to the first message C us

A from the first DESC queued to the last DESC acknowledgement's arrival, B from the first INIT
queued to the last INIT acknowledgement's arrival, C from the first DESC queued to the
application's first frame queued.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import cairn
from cairn.paths import repo_root

DEVICE = repo_root() / "experiments" / "devices" / "pipeline-load.toml"
LOADER_LINE = re.compile(r"loader: (\d+) bytes to the application manager")


def define(path: str, name: str) -> int:
    """An integer ``#define`` of a kernel header (``N``, ``Nu``, ``(N)`` or ``-N``)."""
    text = (repo_root() / path).read_text()
    m = re.search(rf"#define {name} \(?(-?\d+)u?\)?", text)
    if not m:
        raise ValueError(f"{name} is not defined in {path}")
    return int(m.group(1))


NET_HEADER = define("kernel/include/cairn/net.h", "CAIRN_NET_HEADER")
#: kind, load number, loading module, its boot epoch (then the description, for DESC)
PEER_HEAD = define("kernel/include/cairn/appmgr.h", "CAIRN_APPMGR_PEER_HEAD")
#: kind, load number, answering module, status, the loader's epoch
ACK_BYTES = define("kernel/include/cairn/appmgr.h", "CAIRN_APPMGR_ACK_LEN")

Frame = dict[str, str]


@dataclass(frozen=True)
class Sizes:
    """A load's frame sizes on the wire, header included, for a description of n bytes."""

    desc: int
    ack: int
    step: int

    @staticmethod
    def of(description_bytes: int) -> Sizes:
        return Sizes(NET_HEADER + PEER_HEAD + description_bytes, NET_HEADER + ACK_BYTES, NET_HEADER + PEER_HEAD)

    def kind(self, frame: Frame) -> str | None:
        """DESC, ACK, STEP (an INIT or DROP) or None (an application frame)."""
        return {self.desc: "DESC", self.ack: "ACK", self.step: "STEP"}.get(int(frame["bytes"]))


@dataclass(frozen=True)
class Steps:
    """One successful load's times on the bus, in picoseconds of simulated time."""

    desc_queued_ps: int  #: the first DESC queued by the loading module
    desc_acked_ps: int  #: the last DESC acknowledgement's arrival
    init_queued_ps: int  #: the first INIT queued
    init_acked_ps: int  #: the last INIT acknowledgement's arrival
    first_message_ps: int | None  #: the application's first frame queued

    def summary(self) -> str:
        def us(ps: int) -> str:
            return f"{ps / 1e6:.1f}"

        first = "-" if self.first_message_ps is None else us(self.first_message_ps - self.desc_queued_ps)
        return (f"load: broadcast {us(self.desc_acked_ps - self.desc_queued_ps)} us, initialisation "
                f"{us(self.init_acked_ps - self.init_queued_ps)} us, to the first message {first} us")


def description_bytes(console: str) -> int:
    """The description's length the loader printed (exactly one load)."""
    found = [int(m.group(1)) for line in console.splitlines() if (m := LOADER_LINE.search(line))]
    if len(found) != 1:
        raise ValueError(f"expected one loader line, found {len(found)}")
    return found[0]


def steps(frames: list[Frame], sizes: Sizes) -> Steps:
    """The steps of one successful load: its first two DESC/ACK rounds, then its STEP/ACK round."""
    managers = [f for f in frames if sizes.kind(f)]
    descs = [f for f in managers if sizes.kind(f) == "DESC"]
    inits = [f for f in managers if sizes.kind(f) == "STEP"]
    if not descs or not inits:
        raise ValueError("no DESC or no INIT on the bus: not a successful load")
    loader = descs[0]["src"]
    first_init = min(int(f["queued_ps"]) for f in inits)
    acks = [f for f in managers if sizes.kind(f) == "ACK" and f["dst"] == loader]
    desc_acks = [int(f["arrival_ps"]) for f in acks if int(f["arrival_ps"]) <= first_init]
    init_acks = [int(f["arrival_ps"]) for f in acks if int(f["arrival_ps"]) > first_init]
    if not desc_acks or not init_acks:
        raise ValueError("a step went unacknowledged")
    app = [int(f["queued_ps"]) for f in frames if not sizes.kind(f)]
    return Steps(min(int(f["queued_ps"]) for f in descs), max(desc_acks), first_init, max(init_acks),
                 min(app) if app else None)


@dataclass(frozen=True)
class Run:
    status: int
    console: str
    stderr: str
    frames: list[Frame]


def run(device: Path = DEVICE) -> Run:
    r = cairn.run(device, ["bus_log"], timeout=120)
    log = r.files["bus_log"]
    frames: list[Frame] = []
    if log.exists():  # absent when cairn-sim refused the device before running it
        with log.open() as f:
            frames = list(csv.DictReader(f))
    return Run(r.status, r.console, r.stderr.decode(errors="replace"), frames)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", type=Path, default=DEVICE)
    args = ap.parse_args(argv)
    try:
        r = run(args.device)
    except (OSError, ValueError) as e:  # unreadable or malformed device file
        print(f"app_load: {args.device}: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(r.console)
    if r.status != 0:
        sys.stderr.write(r.stderr)
        print(f"cairn-sim exited with status {r.status}", file=sys.stderr)
        return 1
    try:
        print(steps(r.frames, Sizes.of(description_bytes(r.console))).summary())
    except ValueError as e:
        print(f"app_load: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
