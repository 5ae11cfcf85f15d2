"""The differential test: generate cases, run them through one `<sim> exec-cases` process
and through unicorn, and compare state by state.

Cases stream to the simulator's standard input (given as the CASES path /dev/stdin) in
chunks; a reader thread collects its output, so the simulator works on one chunk while
unicorn runs the previous one.
"""

from __future__ import annotations

import collections
import os
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO

from ..runners import start_process
from .contract import Case, Result, normalize_fault
from .gen import CaseGen
from .report import describe, first_difference
from .uc_runner import UnicornRunner

CHUNK = 2000


@dataclass
class Summary:
    seed: int
    start: int
    cases: int = 0
    steps: int = 0  # states compared
    mismatches: int = 0
    harness_errors: int = 0
    faults: collections.Counter[str] = field(default_factory=collections.Counter)  # unicorn's kinds
    classes: collections.Counter[str] = field(default_factory=collections.Counter)
    reports: list[str] = field(default_factory=list)
    seconds: float = 0.0
    unicorn_seconds: float = 0.0
    fallback_steps: int = 0
    error: str | None = None  # the simulator failed as a whole

    @property
    def ok(self) -> bool:
        return self.error is None and self.mismatches == 0 and self.harness_errors == 0

    def text(self) -> str:
        head = (
            f"difftest seed={self.seed} cases={self.cases} (from {self.start}) states={self.steps} "
            f"mismatches={self.mismatches} harness_errors={self.harness_errors} "
            f"time={self.seconds:.1f}s (unicorn {self.unicorn_seconds:.1f}s)"
        )
        faults = ", ".join(f"{k}={v}" for k, v in sorted(self.faults.items()))
        out = [head, f"faults (unicorn side): {faults or 'none'}"]
        if self.error:
            out.append(f"ERROR: {self.error}")
        out.extend(self.reports)
        return "\n".join(out)


def compare_one(case: Case, ours: Result, theirs: Result) -> str | None:
    """None if equal, else the reason."""
    fo, ft = normalize_fault(ours.fault), normalize_fault(theirs.fault)
    if ours.states == theirs.states and fo == ft:
        return None
    if ours.states != theirs.states:
        k = first_difference(ours, theirs)
        if k < len(ours.states) and k < len(theirs.states):
            return f"state after step {k} differs"
        return f"state count differs ({len(ours.states)} vs {len(theirs.states)})"
    return f"fault differs after {len(ours.states)} steps ({fo!r} vs {ft!r})"


class _SimProcess:
    """`<cmd> exec-cases /dev/stdin` with a thread turning its output lines into a queue."""

    def __init__(self, cmd: Sequence[str]) -> None:
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = start_process([*cmd, "exec-cases", "/dev/stdin"], self.stderr)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, data: bytes) -> bool:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def close_input(self) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    def next_line(self, timeout: float) -> bytes | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no output for {timeout:.0f}s") from None

    def stderr_tail(self, limit: int = 2000) -> str:
        self.stderr.seek(0)
        data = self.stderr.read().decode(errors="replace").strip()
        return data[-limit:]

    def finish(self, timeout: float = 30) -> int:
        self.close_input()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def run_diff(
    n: int,
    seed: int,
    sim_cmd: Sequence[str],
    start: int = 0,
    max_reports: int = 5,
    keep: str | None = None,
    progress: Callable[[Summary], None] | None = None,
    line_timeout: float = 120.0,
    names: tuple[str, str] = ("unicorn", "cairn-sim"),
) -> Summary:
    """Run cases [start, start+n) of `seed` on unicorn and through `sim_cmd exec-cases`."""
    summary = Summary(seed=seed, start=start)
    t0 = time.perf_counter()
    gen = CaseGen(seed)
    runner = UnicornRunner()
    sim = _SimProcess(sim_cmd)
    keep_file = open(keep, "w") if keep else None  # noqa: SIM115
    pending: list[Case] = []
    try:
        i = start
        end = start + n
        while i < end or pending:
            # Send the next chunk first, so the simulator works while unicorn runs `pending`.
            chunk: list[Case] = []
            if i < end:
                chunk = [gen.case(j) for j in range(i, min(end, i + CHUNK))]
                i += len(chunk)
                data = "".join(c.to_json() + "\n" for c in chunk)
                if keep_file:
                    keep_file.write(data)
                if not sim.send(data.encode()):
                    summary.error = _sim_failure(sim, "stopped reading its input")
                    break
                if i >= end:
                    sim.close_input()
            for case in pending:
                t1 = time.perf_counter()
                ours = runner.run(case)
                summary.unicorn_seconds += time.perf_counter() - t1
                try:
                    line = sim.next_line(line_timeout)
                except TimeoutError as e:
                    summary.error = _sim_failure(sim, str(e))
                    break
                if line is None:
                    summary.error = _sim_failure(sim, f"ended its output after {summary.cases} results")
                    break
                try:
                    theirs = Result.from_json(line.decode())
                except ValueError as e:
                    summary.error = f"malformed output line for case {case.index}: {e}: {line[:200]!r}"
                    break
                _account(summary, case, ours, theirs, max_reports, names)
            if summary.error:
                break
            pending = chunk
            if progress:
                progress(summary)
        if summary.error is None:
            sim.close_input()
            extra = sim.next_line(line_timeout)
            if extra is not None:
                summary.error = f"simulator wrote more result lines than cases: {extra[:200]!r}"
            status = sim.finish()
            if summary.error is None and status != 0:
                summary.error = _sim_failure(sim, f"exited with status {status}")
    finally:
        if sim.proc.poll() is None:
            sim.proc.kill()
            sim.proc.wait()
        if keep_file:
            keep_file.close()
    summary.fallback_steps = runner.fallback_steps
    summary.seconds = time.perf_counter() - t0
    return summary


def _account(summary: Summary, case: Case, ours: Result, theirs: Result, max_reports: int,
             names: tuple[str, str]) -> None:  # fmt: skip
    summary.cases += 1
    summary.steps += len(ours.states)
    for ins in case.insns:
        summary.classes[ins.cls] += 1
    if ours.fault:
        summary.faults[normalize_fault(ours.fault) or ""] += 1
    if ours.fault and ours.fault.startswith("harness"):
        summary.harness_errors += 1
        if len(summary.reports) < max_reports:
            summary.reports.append(describe(case, ours, theirs, *names, reason=f"HARNESS ERROR: {ours.fault}"))
        return
    reason = compare_one(case, ours, theirs)
    if reason is not None:
        summary.mismatches += 1
        if len(summary.reports) < max_reports:
            summary.reports.append(describe(case, ours, theirs, *names, reason=reason))


def _sim_failure(sim: _SimProcess, what: str) -> str:
    try:
        status: int | None = sim.proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        status = None
    tail = sim.stderr_tail()
    return f"simulator {what}" + (f" (exit status {status})" if status is not None else "") + (
        f"; stderr:\n{tail}" if tail else ""
    )


def reference_cmd() -> list[str]:
    """A stand-in simulator: the slow, independent unicorn runner behind the same CLI."""
    import sys

    return [sys.executable, "-m", "cairn.difftest.refsim"]


def default_sim() -> str:
    from ..paths import sim_binary

    return str(sim_binary())


def sim_exists(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
