"""A cairn-sim trace (docs/cli.md, "Trace JSON") as tables: its slices (B/E pairs and X
events) and its instants and counters, each named by process (processor) and track."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

SLICE_COLUMNS = ["processor", "track", "name", "start_us", "dur_us", "end_us", "depth", "args"]
EVENT_COLUMNS = ["processor", "track", "phase", "name", "ts_us", "args"]


def _names(events: list[dict[str, Any]]) -> tuple[dict[int, str], dict[tuple[int, int], str]]:
    procs: dict[int, str] = {}
    tracks: dict[tuple[int, int], str] = {}
    for e in events:
        if e.get("ph") != "M":
            continue
        if e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("name") == "thread_name":
            tracks[(e["pid"], e["tid"])] = e["args"]["name"]
    return procs, tracks


def slices(trace: dict[str, Any]) -> pd.DataFrame:
    """One row per slice, in the order slices end (X at once); `depth` counts the open slices
    of the same track it nests in. Slices still open at the end are closed by the
    simulator, so every B has its E."""
    import pandas as pd

    events = trace.get("traceEvents", [])
    procs, tracks = _names(events)
    open_: dict[tuple[int, int], list[dict[str, Any]]] = {}
    rows: list[dict[str, Any]] = []

    def row(e: dict[str, Any], start: float, dur: float, depth: int) -> dict[str, Any]:
        pid, tid = e["pid"], e.get("tid", 0)
        return {
            "processor": procs.get(pid, f"pid{pid}"),
            "track": tracks.get((pid, tid), f"tid{tid}"),
            "name": e["name"],
            "start_us": start,
            "dur_us": dur,
            "end_us": start + dur,
            "depth": depth,
            "args": e.get("args", {}),
        }

    for e in events:
        ph = e.get("ph")
        if ph == "X":
            rows.append(row(e, e["ts"], e["dur"], len(open_.get((e["pid"], e.get("tid", 0)), []))))
        elif ph == "B":
            open_.setdefault((e["pid"], e.get("tid", 0)), []).append(e)
        elif ph == "E":
            stack = open_.get((e["pid"], e.get("tid", 0)), [])
            if stack:
                b = stack.pop()
                rows.append(row(b, b["ts"], e["ts"] - b["ts"], len(stack)))
    return pd.DataFrame(rows, columns=SLICE_COLUMNS)


def instants(trace: dict[str, Any]) -> pd.DataFrame:
    """Instants (i) and counter samples (C): kernel events, interrupts, faults, power state."""
    import pandas as pd

    events = trace.get("traceEvents", [])
    procs, tracks = _names(events)
    rows = [
        {
            "processor": procs.get(e["pid"], f"pid{e['pid']}"),
            "track": tracks.get((e["pid"], e["tid"]), f"tid{e['tid']}") if "tid" in e else "",
            "phase": e["ph"],
            "name": e["name"],
            "ts_us": e["ts"],
            "args": e.get("args", {}),
        }
        for e in events
        if e.get("ph") in ("i", "C")
    ]
    return pd.DataFrame(rows, columns=EVENT_COLUMNS)
