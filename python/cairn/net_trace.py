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
    #: (pid, ps) of every module fault the simulator injected (a reset or a power-off): the
    #: module's kernel starts again from nothing
    restarts: list[tuple[int, int]] = field(default_factory=list)


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
        if ev.get("ph") == "i" and ev.get("name") == "injected fault":
            what = str(ev.get("args", {}).get("what", ""))
            if what.startswith(("power_off", "reset")):
                tr.restarts.append((int(ev["pid"]), us_to_ps(ev["ts"])))
        if ev.get("ph") != "i" or ev.get("tid") != 3:
            continue
        code = int(str(ev["name"]).split()[1])
        tr.words.append(Word(int(ev["pid"]), us_to_ps(ev["ts"]), code, int(ev["args"]["a"]), int(ev["args"]["b"])))
    tr.words.sort(key=lambda w: (w.ps, w.pid))
    tr.restarts.sort(key=lambda r: (r[1], r[0]))
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


# ---- reliable messages and task migration (docs/migration.md) ------------------------------

EV_REL_SEND = 0x28
EV_REL_ACCEPT = 0x29
EV_MIG_FIRST = 0x10
EV_MIG_COMMITTED = 0x14
EV_MIG_RESUMED = 0x15
EV_MIG_KILLED = 0x16
MIG_PHASES = {
    0x10: "request", 0x11: "frozen", 0x12: "serialized", 0x13: "staged", 0x14: "committed",
    0x15: "resumed", 0x16: "killed", 0x17: "unfrozen", 0x18: "freed", 0x19: "stage-failed",
}


@dataclass(frozen=True)
class Message:
    """A numbered remote message: (sending module, destination task, number), the number
    unwrapped past 255 in the order the sender gave them."""

    src_module: int
    task: int
    seq: int
    ps: int
    module: int  #: where the word was written (the sender for a send, the taker for an accept)


@dataclass
class MessageCheck:
    """Every numbered message matched to its acceptance wherever its task was."""

    sent: list[Message] = field(default_factory=list)
    accepted: list[Message] = field(default_factory=list)
    lost: list[Message] = field(default_factory=list)
    duplicated: list[Message] = field(default_factory=list)
    reordered: list[Message] = field(default_factory=list)
    unmatched: list[Message] = field(default_factory=list)

    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.reordered or self.unmatched)


@dataclass(frozen=True)
class Phase:
    pid: int
    ps: int
    phase: str
    task: int
    mig: int  #: source module << 8 | counter


def _unwrap(last: dict[Any, int], key: tuple[int, ...], raw: int) -> int:
    """raw, a reliable number (1..255, then 1 again: 0 is never a message's), as the number
    closest to the key's last one, counted 1, 2, 3 ... without wrapping."""
    prev = last.get(key, 0)
    if prev == 0:
        n = raw
    else:
        d = (raw - ((prev - 1) % 255 + 1)) % 255
        if d >= 128:  # an older number (a duplicate): behind the last
            d -= 255
        n = prev + d
    last[key] = max(prev, n)
    return n


def check_messages(tr: NetTrace, address: dict[int, int] | None = None) -> MessageCheck:
    """Matches REL_SEND words to REL_ACCEPT words by (sending module, task, number): each
    numbered message must be accepted once, and per (sending module, task) in order, on
    whichever module the task lived then. The checker a fault campaign runs."""
    addr = address or {}
    c = MessageCheck()
    tx_last: dict[tuple[int, int], int] = {}
    rx_last: dict[tuple[int, int], int] = {}
    for w in tr.words:
        me = addr.get(w.pid, w.pid - 1)
        if w.code == EV_REL_SEND:
            key = (me, w.a)
            c.sent.append(Message(me, w.a, _unwrap(tx_last, key, w.b & 0xFF), w.ps, me))
        elif w.code == EV_REL_ACCEPT:
            key = (w.b >> 8, w.a)
            c.accepted.append(Message(w.b >> 8, w.a, _unwrap(rx_last, key, w.b & 0xFF), w.ps, me))
    sent = {(m.src_module, m.task, m.seq) for m in c.sent}
    seen: set[tuple[int, int, int]] = set()
    newest: dict[tuple[int, int], int] = {}
    for m in c.accepted:
        key3 = (m.src_module, m.task, m.seq)
        if key3 not in sent:
            c.unmatched.append(m)
            continue
        if key3 in seen:
            c.duplicated.append(m)
            continue
        seen.add(key3)
        key2 = (m.src_module, m.task)
        if m.seq != newest.get(key2, 0) + 1:
            c.reordered.append(m)
        newest[key2] = max(newest.get(key2, 0), m.seq)
    c.lost = [m for m in c.sent if (m.src_module, m.task, m.seq) not in seen]
    return c


def migration_phases(tr: NetTrace) -> list[Phase]:
    """The task migrators' phase words (0x10-0x1F), in time order."""
    return [Phase(w.pid, w.ps, MIG_PHASES.get(w.code, hex(w.code)), w.a, w.b)
            for w in tr.words if EV_MIG_FIRST <= w.code <= EV_MIG_FIRST + 0xF]


def migration_summary(tr: NetTrace, address: dict[int, int] | None = None) -> str:
    """``migrations: N ok, L lost, D duplicated, R reordered``: N migrations committed (the
    destination's commit word), and what became of the numbered messages."""
    c = check_messages(tr, address)
    ok = sum(1 for p in migration_phases(tr) if p.phase == "committed")
    return (f"migrations: {ok} ok, {len(c.lost)} lost, {len(c.duplicated)} duplicated, "
            f"{len(c.reordered)} reordered")


# ---- the invariants of a migration under injected faults (docs/migration.md, "Fault campaign")

PORT_INIT = 0
PORT_SERIALIZE = 2
PORT_DESERIALIZE = 3


@dataclass
class MigrationCheck:
    """What the trace says about a run's migrations, and every invariant it breaks."""

    violations: list[str] = field(default_factory=list)
    #: what did not finish by the end of the run: a module still frozen, a message never
    #: accepted (a loss, or one its sender still holds): under fair loss these are violations
    stalls: list[str] = field(default_factory=list)
    #: per migration (source << 8 | counter): moved, resumed, killed, lost (the task with its
    #: module), or unfinished
    outcomes: dict[int, str] = field(default_factory=dict)
    excused: int = 0  #: messages lost with a module that was reset or powered off holding them
    messages: int = 0  #: numbered messages sent


ERR_RX_NO_TASK = 7  #: CAIRN_NET_ERR_RX_NO_TASK (cairn/net.h): a = kind, b = module << 8 | task


def task_of_err(w: Word) -> int:
    return w.b & 0xFF


def _epoch(restarts: list[tuple[int, int]], pid: int, ps: int) -> int:
    return sum(1 for p, t in restarts if p == pid and t <= ps)


def check_migration(tr: NetTrace, homes: dict[int, int], address: dict[int, int] | None = None) -> MigrationCheck:
    """The guarantees of docs/migration.md from the trace alone. ``homes`` maps each task to
    the module the application starts it on (where it runs again after that module restarts).

    - atomic: a handler of a task starts (other than INIT, and SERIALIZE / DESERIALIZE of the
      migration itself) only on the module where it is live: its home, then the destination
      from the destination's commit word on; none while its source has it frozen;
    - messages: per (sending module and its incarnation, task) the numbers are accepted once
      each, 1, 2, 3 … in order, only where the task is live; a number never accepted is a
      violation unless every later one of its stream was lost too and either the sender was
      restarted after sending it or a module holding the task (live or staged) was restarted;
      a migration that ends KILLED after another module was restarted during it counts as the
      task lost with that module (the destination reset after the last STATE part carried the
      commit: the source cannot tell whether the task ran there before the reset);
    - every module that froze the task for a migration unfreezes it (or is restarted).
    """
    addr = address or {}
    mod = {p: addr.get(p, p - 1) for p in tr.names}
    c = MigrationCheck()
    restarts = [(mod.get(p, p - 1), t) for p, t in tr.restarts]
    live: dict[int, int | None] = dict(homes)  #: task -> module where it is live
    staged: dict[int, set[int]] = {t: set() for t in homes}
    frozen_src: dict[int, int] = {}  #: task -> source module while frozen there
    frozen: dict[tuple[int, int], int] = {}  #: (module, mig) -> task, until unfrozen
    lost_at: dict[int, list[int]] = {t: [] for t in homes}  #: task -> times it was lost
    requested: dict[int, int] = {}  #: migration -> the time of its REQUEST word
    events: list[tuple[int, int, int, Word | None]] = []  # (ps, order, module, word)
    for m, t in restarts:
        events.append((t, 0, m, None))
    for w in tr.words:
        events.append((w.ps, 1, mod.get(w.pid, w.pid - 1), w))
    events.sort(key=lambda e: (e[0], e[1]))
    tx_last: dict[tuple[int, int, int], int] = {}
    rx_last: dict[tuple[int, int, int], int] = {}
    sent: dict[tuple[int, int, int], list[tuple[int, int]]] = {}  #: stream -> [(seq, ps)]
    accepted: dict[tuple[int, int, int], list[int]] = {}
    lives: dict[tuple[int, int, int, int], list[int]] = {}  #: accepted, per life of the receiver
    for ps, _, m, ev in events:
        if ev is None:  # module m restarted: its kernel, tasks and tables start again
            for task in homes:
                if live.get(task) == m or m in staged[task]:
                    lost_at[task].append(ps)
                    if live.get(task) == m:
                        live[task] = None
                staged[task].discard(m)
                if homes[task] == m and live.get(task) is None:
                    live[task] = m  # the application starts it again at home
                if frozen_src.get(task) == m:
                    del frozen_src[task]
            for key in [k for k in frozen if k[0] == m]:
                del frozen[key]
            continue
        w = ev
        code, task = w.code, w.a
        if code == EV_REL_SEND:
            e = _epoch(restarts, m, ps)
            seq = _unwrap(tx_last, (m, e, task), w.b & 0xFF)
            sent.setdefault((m, e, task), []).append((seq, ps))
            c.messages += 1
        elif code == EV_REL_ACCEPT:
            src = w.b >> 8
            e = _epoch(restarts, src, ps)
            seq = _unwrap(rx_last, (src, e, task), w.b & 0xFF)
            while e > 0 and seq not in {s for s, _ in sent.get((src, e, task), [])}:
                e -= 1  # a frame of the sender's previous incarnation, still on its way
                seq = _unwrap(rx_last, (src, e, task), w.b & 0xFF)
            # Per life of the receiving task (a restart of a module holding it starts a new
            # one): each number once, in order; a new life starts at most one number back
            # (the message whose DACK the earlier life could not send is taken again).
            life = sum(1 for t in lost_at[task] if t <= ps)
            got = accepted.setdefault((src, e, task), [])
            mine = lives.setdefault((src, e, task, life), [])
            last = got[-1] if got else 0
            if seq in mine:
                c.violations.append(f"message {src}.{e}:{seq} to task {task} accepted twice (module {m}, {ps} ps)")
            elif (mine and seq != mine[-1] + 1) or (not mine and not last - 1 <= seq - 1 <= last):
                c.violations.append(f"message {src}.{e}:{seq} to task {task} accepted out of order after "
                                    f"{last} (module {m}, {ps} ps)")
            mine.append(seq)
            if task in live and live[task] != m:
                c.violations.append(f"message {src}.{e}:{seq} to task {task} accepted on module {m} "
                                    f"while the task lives on {live[task]} ({ps} ps)")
            got.append(seq)
        elif code == EV_NET_ERR and task_of_err(w) in homes and w.a == ERR_RX_NO_TASK:
            # A sender dropped its oldest message to the task on NOTASK: allowed only when
            # the task was lost with a module that held it.
            t = task_of_err(w)
            if not lost_at[t]:
                c.violations.append(f"module {m} dropped a message to task {t} on NOTASK while it "
                                    f"lives on {live.get(t)} ({ps} ps)")
        elif code == EV_START and task in homes and w.b not in (PORT_INIT, PORT_SERIALIZE, PORT_DESERIALIZE):
            if live.get(task) != m:
                c.violations.append(f"task {task} ran on module {m} while it lives on {live.get(task)} ({ps} ps)")
            elif frozen_src.get(task) == m:
                c.violations.append(f"task {task} ran on module {m} while frozen there ({ps} ps)")
        elif EV_MIG_FIRST <= code <= EV_MIG_FIRST + 0xF and task in homes:
            mig, phase = w.b, MIG_PHASES.get(code, hex(code))
            if phase == "request":
                c.outcomes.setdefault(mig, "unfinished")
                requested.setdefault(mig, ps)
            elif phase == "frozen":
                frozen[(m, mig)] = task
                if live.get(task) == m:
                    frozen_src[task] = m
            elif phase == "staged":
                staged[task].add(m)
            elif phase == "stage-failed":
                staged[task].discard(m)
            elif phase == "committed":
                if m not in staged[task]:
                    c.violations.append(f"task {task} committed on module {m} without a staged copy ({ps} ps)")
                staged[task].discard(m)
                live[task] = m
                frozen_src.pop(task, None)
                c.outcomes[mig] = "moved"
            elif phase == "resumed":
                frozen_src.pop(task, None)
                frozen.pop((m, mig), None)  # the source's freeze ends here; its result may still be on its way
                c.outcomes[mig] = "resumed"
            elif phase == "killed":
                if live.get(task) == m:
                    live[task] = None
                    if any(r != m and requested.get(mig, ps) <= t <= ps for r, t in restarts):
                        lost_at[task].append(ps)  # with the module restarted meanwhile
                frozen_src.pop(task, None)
                frozen.pop((m, mig), None)
                c.outcomes[mig] = "killed"
            elif phase == "freed":
                frozen.pop((m, mig), None)
            elif phase == "unfrozen":
                frozen.pop((m, mig), None)
                staged[task].discard(m)
    for (m, mig), task in sorted(frozen.items()):
        c.stalls.append(f"module {m} never left migration {mig >> 8}.{mig & 0xFF} of task {task}")
    for mig, o in c.outcomes.items():
        if o == "unfinished" and any(lost_at.values()):
            c.outcomes[mig] = "lost"
    for stream, msgs in sent.items():
        src, e, task = stream
        got_set = set(accepted.get(stream, []))
        for seq, ps in msgs:
            if seq in got_set:
                continue
            tail = all(s not in got_set for s, _ in msgs if s > seq)
            sender_gone = _epoch(restarts, src, 1 << 62) > e
            holder_gone = bool(lost_at.get(task))
            if (tail and (sender_gone or holder_gone)) or any(t > ps for t in lost_at.get(task, [])):
                c.excused += 1
            else:
                c.stalls.append(f"message {src}.{e}:{seq} to task {task} sent at {ps} ps never accepted")
    return c


def main(argv: list[str] | None = None) -> int:
    """``python -m cairn.net_trace TRACE.json``: the migration summary of a device trace."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("trace")
    args = ap.parse_args(argv)
    with open(args.trace) as f:
        tr = parse(f.read())
    for p in migration_phases(tr):
        print(f"{tr.names.get(p.pid, p.pid)} {p.ps / 1e6:.3f} us: {p.phase} task {p.task} "
              f"mig {p.mig >> 8}.{p.mig & 0xFF}")
    c = check_messages(tr)
    print(f"numbered messages: {len(c.sent)} sent, {len(c.accepted)} accepted")
    print(migration_summary(tr))
    return 0 if c.ok() else 1


if __name__ == "__main__":
    raise SystemExit(main())
