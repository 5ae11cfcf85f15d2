"""How the runners start a process beyond its command: what its standard input reads, where its
standard output and error go, which variables it gets on top of the caller's environment, and
its resource limits. A study needs none of this; the command-line tests need all of it (a full
or closed standard stream, a disk that fills up, a small address space) to check cairn-sim's
exit statuses, and they get it here rather than by starting the binary themselves."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, Union

#: Where standard output or error goes: "capture" (into the runner's Result), "inherit" (the
#: caller's own descriptor), "null" (/dev/null), "closed" (the process starts with the
#: descriptor closed, as after the shell's `exec 2>&-`), or an open descriptor of the caller's.
Stream = Union[int, Literal["capture", "inherit", "null", "closed"]]

#: What standard input reads: "null" (/dev/null), "inherit", "closed", an open descriptor of
#: the caller's, bytes (written to a pipe, then the pipe is closed), or a file's path.
Input = Union[bytes, os.PathLike[str], int, Literal["null", "inherit", "closed"]]

_STREAM_WORDS = ("capture", "inherit", "null", "closed")
_INPUT_WORDS = ("null", "inherit", "closed")


class LaunchError(ValueError):
    """A Launch that cannot describe a process (an unknown stream word, a negative limit)."""


@dataclass(frozen=True)
class Launch:
    """The process set-up of one run. The default is what every study run gets: stdin from
    /dev/null, both output streams captured, the caller's environment, no limits.

    `env` adds (or replaces) variables in a copy of the caller's environment. `limits` maps a
    `resource.RLIMIT_*` constant to the value its soft and hard limits are set to in the new
    process. `ignore_signals` are set to SIG_IGN there before it starts the program, which
    keeps them ignored (e.g. SIGXFSZ, so a write past RLIMIT_FSIZE fails with EFBIG as on a
    full disk instead of killing the process)."""

    stdin: Input = "null"
    stdout: Stream = "capture"
    stderr: Stream = "capture"
    env: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[int, int] = field(default_factory=dict)
    ignore_signals: Sequence[int] = ()

    def __post_init__(self) -> None:
        for name in ("stdout", "stderr"):
            v = getattr(self, name)
            if isinstance(v, str) and v not in _STREAM_WORDS:
                raise LaunchError(f"{name}: {v!r} is not one of {', '.join(_STREAM_WORDS)} or a descriptor")
        if isinstance(self.stdin, str) and self.stdin not in _INPUT_WORDS:
            raise LaunchError(f"stdin: {self.stdin!r} is not one of {', '.join(_INPUT_WORDS)}, bytes, a path or a descriptor")
        for which, value in self.limits.items():
            if value < 0:
                raise LaunchError(f"limits: {value} for resource {which} is negative")

    def popen_args(self, files: ExitStack) -> dict[str, Any]:
        """Keyword arguments for subprocess.run; a file opened for stdin is closed by `files`."""
        args: dict[str, Any] = {
            "stdout": _stream(self.stdout),
            "stderr": _stream(self.stderr),
            "preexec_fn": self._child_setup(),
        }
        if isinstance(self.stdin, bytes):
            args["input"] = self.stdin
        elif isinstance(self.stdin, int):
            args["stdin"] = self.stdin
        elif self.stdin == "inherit":
            args["stdin"] = None
        elif self.stdin in ("null", "closed"):
            args["stdin"] = subprocess.DEVNULL
        else:
            args["stdin"] = files.enter_context(open(self.stdin, "rb"))
        if self.env:
            args["env"] = {**os.environ, **self.env}
        return args

    def _child_setup(self) -> Callable[[], None] | None:
        """What the new process does between fork and exec; None when there is nothing to do
        (subprocess then need not run Python in the child at all)."""
        closed = [fd for fd, s in ((0, self.stdin), (1, self.stdout), (2, self.stderr)) if s == "closed"]
        limits = dict(self.limits)
        ignored = tuple(self.ignore_signals)
        if not (closed or limits or ignored):
            return None

        def setup() -> None:
            for sig in ignored:
                signal.signal(sig, signal.SIG_IGN)
            for which, value in limits.items():
                resource.setrlimit(which, (value, value))
            # After subprocess has put the streams in place: closing here is what the program sees.
            for fd in closed:
                os.close(fd)

        return setup


def _stream(s: Stream) -> int | None:
    if isinstance(s, int):
        return s
    return {"capture": subprocess.PIPE, "inherit": None, "null": subprocess.DEVNULL, "closed": None}[s]
