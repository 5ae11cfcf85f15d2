"""Messages across modules, from a device's ``cairn-sim run --device ... --trace`` file.

Cairn OS writes a trace word when a frame leaves a module (``NET_SEND`` then
``NET_SEND_TO``) and when a received frame is handed to the scheduler (``NET_RECV`` then
``NET_RECV_TO``); docs/distributed.md, "Trace words". The pair (source module, sequence)
names one frame on both sides, so the simulator's record alone says whether a message was
lost, duplicated or reordered, without the kernels' counters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

EV_START = 0x02
EV_NET_SEND = 0x20
EV_NET_SEND_TO = 0x21
EV_NET_RECV = 0x22
EV_NET_RECV_TO = 0x23
EV_NET_QUEUE = 0x24
EV_NET_ERR = 0x25
BROADCAST = 0xFF


@dataclass(frozen=True)
class Word:
    """One kernel trace word of one processor, at a device time in picoseconds."""

    pid: int
    ps: int
    code: int
    a: int
    b: int


@dataclass(frozen=True)
class Frame:
    """A frame as one module's kernel saw it leave (sent) or arrive (received)."""

    pid: int
    ps: int
    src_module: int  #: for a sent frame: the sender's module address, from its processor
    dst_module: int  #: 0xFF for a broadcast; for a received frame: the receiver's module
    seq: int
    task: int  #: destination task, or CAIRN_TASK_MCAST for a group
    port: int  #: input port, or the group


@dataclass
class NetTrace:
    words: list[Word] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)  #: pid -> processor name
    sent: list[Frame] = field(default_factory=list)
    received: list[Frame] = field(default_factory=list)


def us_to_ps(ts: Any) -> int:
    """A --trace time stamp (microseconds, 6 decimals) in whole picoseconds."""
    return round(float(ts) * 1_000_000)


def parse(text: str, address: dict[int, int] | None = None) -> NetTrace:
    """The kernel words of every processor and the frames they sent and received.
    ``address`` maps pid to module address (default: pid - 1, the file order)."""
    data = json.loads(text)
    tr = NetTrace()
    for ev in data["traceEvents"]:
        if ev.get("ph") == "M" and ev.get("name") == "process_name":
            tr.names[int(ev["pid"])] = str(ev["args"]["name"])
        if ev.get("ph") != "i" or ev.get("tid") != 3:
            continue
        code = int(str(ev["name"]).split()[1])
        tr.words.append(Word(int(ev["pid"]), us_to_ps(ev["ts"]), code, int(ev["args"]["a"]), int(ev["args"]["b"])))
    tr.words.sort(key=lambda w: (w.ps, w.pid))
    addr = address or {}
    last: dict[int, Word] = {}
    for w in tr.words:
        me = addr.get(w.pid, w.pid - 1)
        head = last.get(w.pid)
        if w.code == EV_NET_SEND_TO and head is not None and head.code == EV_NET_SEND:
            tr.sent.append(Frame(w.pid, head.ps, me, head.a, head.b, w.a, w.b))
        elif w.code == EV_NET_RECV_TO and head is not None and head.code == EV_NET_RECV:
            tr.received.append(Frame(w.pid, head.ps, head.a, me, head.b, w.a, w.b))
        last[w.pid] = w
    return tr


@dataclass
class Delivery:
    """What became of the frames: every send matched to its deliveries."""

    lost: list[tuple[Frame, int]] = field(default_factory=list)  #: (send, receiving module)
    duplicated: list[Frame] = field(default_factory=list)  #: deliveries of a frame seen twice
    reordered: list[Frame] = field(default_factory=list)  #: deliveries older than one before
    unmatched: list[Frame] = field(default_factory=list)  #: deliveries no send explains
    matched: list[tuple[Frame, Frame]] = field(default_factory=list)  #: (send, delivery)

    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.reordered or self.unmatched)


def check(tr: NetTrace, modules: list[int]) -> Delivery:
    """Matches each delivery to its send by (source module, sequence): a unicast must be
    delivered once on its destination module, a broadcast once on every other module of
    ``modules``; per (source, receiver) the sequence numbers must arrive increasing."""
    d = Delivery()
    sends = {(f.src_module, f.seq): f for f in tr.sent}
    seen: set[tuple[int, int, int]] = set()
    newest: dict[tuple[int, int], int] = {}
    for r in sorted(tr.received, key=lambda f: f.ps):
        key = (r.src_module, r.seq)
        s = sends.get(key)
        if s is None or (s.dst_module != BROADCAST and s.dst_module != r.dst_module):
            d.unmatched.append(r)
            continue
        if (r.src_module, r.seq, r.dst_module) in seen:
            d.duplicated.append(r)
            continue
        seen.add((r.src_module, r.seq, r.dst_module))
        pair = (r.src_module, r.dst_module)
        if pair in newest and r.seq < newest[pair]:
            d.reordered.append(r)
        newest[pair] = max(newest.get(pair, -1), r.seq)
        d.matched.append((s, r))
    for s in tr.sent:
        to = [m for m in modules if m != s.src_module] if s.dst_module == BROADCAST else [s.dst_module]
        for m in to:
            if (s.src_module, s.seq, m) not in seen:
                d.lost.append((s, m))
    return d


def handler_start_after(tr: NetTrace, pid: int, ps: int, task: int) -> int:
    """The time of the first START of task on processor pid at or after ps."""
    for w in tr.words:
        if w.pid == pid and w.ps >= ps and w.code == EV_START and w.a == task:
            return w.ps
    raise LookupError(f"no START of task {task} on pid {pid} after {ps} ps")
