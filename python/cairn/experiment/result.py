"""`Result`: what one cairn-sim run produced, its output files read on first use into pandas
DataFrames. Every per-processor table has a `processor` column (a single-processor run's
processor is `cpu0`, as in its trace), so tables of one run, of a device, or of a whole sweep
(with the sweep's parameter columns added) have the same shape for plots and reports."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import trace_table, vcd_table

if TYPE_CHECKING:
    import pandas as pd

SINGLE = "cpu0"
#: trace tracks that are not tasks (docs/cli.md "Trace JSON"; a device's `bus tx`/`bus rx`
#: tracks are left out by their prefix)
NON_TASK_TRACKS = ("exceptions", "power", "kernel events", "interrupts")
#: the stats' `stack` object (docs/cli.md "Stats JSON")
STACK_COLUMNS = ("limit", "top", "low_water", "peak_bytes", "overflowed", "check")


class SimulationError(RuntimeError):
    """cairn-sim failed (exit status other than 0 or 124): its last stderr line and status."""


class MissingOutput(KeyError):
    """The run was not asked for this output (see `run(..., outputs=...)`), or cairn-sim
    did not write it (a run refused before it started)."""


@dataclasses.dataclass(eq=False)
class Result:
    status: int  #: cairn-sim's exit status (docs/cli.md): 0, a firmware's code, 124 limit, 125, 123, 2
    stdout: bytes
    stderr: bytes
    command: tuple[str, ...]
    folder: Path  #: where the run happened: the scenario, inputs/ and the output files
    files: dict[str, Path]  #: output name (stats, trace, io_log, vcd, bus_log, console) -> path
    device: bool = False  #: a device run ([[processor]] tables)
    timed_out: bool = False  #: ended by the wall-clock timeout, not by cairn-sim

    # ------------------------------------------------------------------ status and text
    @property
    def ok(self) -> bool:
        """Ended by the firmware (status 0) or by a limit (124)."""
        return self.status in (0, 124) and not self.timed_out

    def raise_for_status(self) -> None:
        if not self.ok:
            raise SimulationError(self.describe_failure())

    def describe_failure(self) -> str:
        """One line: the exit status and cairn-sim's last line on stderr."""
        lines = self.stderr.decode(errors="replace").strip().splitlines()
        last = lines[-1] if lines else "(nothing on stderr)"
        timed_out = " (wall-clock timeout)" if self.timed_out else ""
        return f"cairn-sim exited with status {self.status}{timed_out}: {last}"

    @property
    def console(self) -> str:
        """What the firmware printed (a device's lines are prefixed with the processor)."""
        return self.stdout.decode(errors="replace")

    def console_of(self, processor: str) -> str:
        """One processor's console (needs the `console` output)."""
        return (self._file("console") / f"{processor}.txt").read_text()

    def _file(self, output: str) -> Path:
        if output not in self.files:
            raise MissingOutput(f"the run was not asked for {output!r} (outputs: {', '.join(self.files) or 'none'})")
        if not self.files[output].exists():  # outputs are complete or absent (docs/cli.md)
            raise MissingOutput(f"cairn-sim wrote no {output!r}: {self.describe_failure()}")
        return self.files[output]

    # ------------------------------------------------------------------ statistics
    @functools.cached_property
    def stats_json(self) -> dict[str, Any]:
        """The stats file as written (docs/cli.md "Stats JSON", docs/device.md "Statistics")."""
        data: dict[str, Any] = json.loads(self._file("stats").read_text())
        return data

    @functools.cached_property
    def processor_stats(self) -> dict[str, dict[str, Any]]:
        s = self.stats_json
        return dict(s["processors"]) if self.device else {SINGLE: s}

    @functools.cached_property
    def stats(self) -> pd.DataFrame:
        """One row per processor: every scalar of its stats, nested keys dotted
        (`idle.percent`, `energy_joules.total`, `energy_model.average_power_w`)."""
        import pandas as pd

        rows = [{"processor": name, **_scalars(st)} for name, st in self.processor_stats.items()]
        return pd.DataFrame(rows)

    @functools.cached_property
    def device_stats(self) -> dict[str, Any]:
        """A device run's own scalars (`bus.frames`, `energy_joules.total`,
        `simulated_seconds` …); a single run's are its processor's."""
        return _scalars(self.stats_json)

    @functools.cached_property
    def stack(self) -> pd.DataFrame:
        """The main stack against its limit (docs/cli.md "Stats JSON" `stack`), one row per
        processor whose stack cairn-sim watched: limit, top, low_water, peak_bytes,
        overflowed, check."""
        import pandas as pd

        rows = [{"processor": n, **st["stack"]} for n, st in self.processor_stats.items() if "stack" in st]
        return pd.DataFrame(rows, columns=["processor", *STACK_COLUMNS])

    @functools.cached_property
    def energy(self) -> pd.DataFrame:
        """Long table of the energy breakdowns: processor, breakdown (state, category, task),
        part, joules, fj (exact)."""
        import pandas as pd

        rows = []
        for name, st in self.processor_stats.items():
            joules, fj = st.get("energy_joules", {}), st.get("energy_fj", {})
            for breakdown in ("state", "category", "task"):
                for part, j in joules.get(f"by_{breakdown}", {}).items():
                    rows.append({"processor": name, "breakdown": breakdown, "part": part, "joules": j,
                                 "fj": fj.get(f"by_{breakdown}", {}).get(part)})  # fmt: skip
        return pd.DataFrame(rows, columns=["processor", "breakdown", "part", "joules", "fj"])

    @functools.cached_property
    def tasks(self) -> pd.DataFrame:
        """One row per task of each processor: its energy (`by_task`), and with a trace, its
        handler runs and busy time from the `task N` (or RTOS task) tracks."""
        import pandas as pd

        e = self.energy
        frame = e[e["breakdown"] == "task"][["processor", "part", "joules"]].rename(columns={"part": "task"})
        if "trace" not in self.files:
            return frame.reset_index(drop=True)
        sl = self.trace_slices
        sl = sl[~sl["track"].isin(NON_TASK_TRACKS) & ~sl["track"].str.startswith("bus ")]
        runs = sl.groupby(["processor", "track"]).agg(runs=("name", "size"), busy_us=("dur_us", "sum")).reset_index()
        runs["task"] = runs["track"].str.replace("task ", "task", regex=False)
        merged = pd.merge(frame, runs.drop(columns="track"), on=["processor", "task"], how="outer")
        return merged.sort_values(["processor", "task"]).reset_index(drop=True)

    @functools.cached_property
    def profile(self) -> pd.DataFrame:
        """The per-function profile: processor, symbol, category, cycles, instructions,
        energy_joules, calls."""
        import pandas as pd

        rows = [{"processor": n, **r} for n, st in self.processor_stats.items() for r in st.get("profile", [])]
        return pd.DataFrame(rows)

    @functools.cached_property
    def ports(self) -> pd.DataFrame:
        """The I/O stats' ports and pins (docs/stimuli.md "Stats JSON io"), one row each."""
        return self._io_table("ports", "port")

    @functools.cached_property
    def jitter(self) -> pd.DataFrame:
        return self._io_table("jitter", "name")

    @functools.cached_property
    def delays(self) -> pd.DataFrame:
        """Stimulus -> response delay entries, their distributions flattened (`delay.p99_s`)."""
        return self._io_table("delay", "name")

    def _io_table(self, section: str, label: str) -> pd.DataFrame:
        import pandas as pd

        rows = []
        for n, st in self.processor_stats.items():
            for name, entry in st.get("io", {}).get(section, {}).items():
                rows.append({"processor": n, label: name, **_scalars(entry)})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ event files
    @functools.cached_property
    def io(self) -> pd.DataFrame:
        """The io-log (docs/stimuli.md "io-log CSV"): cycle, time_s, processor, kind, name,
        value; a device's rows in the device's time (docs/device.md)."""
        import pandas as pd

        frame = pd.read_csv(self._file("io_log"), keep_default_na=False, dtype={"processor": str, "name": str})
        if "processor" not in frame.columns:
            frame.insert(2, "processor", SINGLE)
        return frame

    @functools.cached_property
    def bus(self) -> pd.DataFrame:
        """The bus log (docs/device.md): one row per frame."""
        import pandas as pd

        return pd.read_csv(self._file("bus_log"), dtype={"dst": str, "power": str}, keep_default_na=False)

    @functools.cached_property
    def trace_json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self._file("trace").read_text())
        return data

    @functools.cached_property
    def trace_slices(self) -> pd.DataFrame:
        """The trace's slices: processor, track, name, start_us, dur_us, end_us, depth, args."""
        return trace_table.slices(self.trace_json)

    @functools.cached_property
    def trace_instants(self) -> pd.DataFrame:
        """The trace's instants and counter samples: processor, track, phase, name, ts_us, args."""
        return trace_table.instants(self.trace_json)

    @functools.cached_property
    def vcd(self) -> pd.DataFrame:
        """The waveform's value changes: signal (scope path), time_ps, value."""
        return vcd_table.read_vcd(self._file("vcd"))


def _scalars(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The scalar leaves of nested dicts, keys dotted; lists (profiles, histograms, fault
    lists) are left out, and the `processors` and `io` subtrees have tables of their own."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            if not prefix and k in ("processors", "io", "energy_fj"):
                continue
            out.update(_scalars(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[f"{prefix}{k}"] = v
    return out
