"""Start cairn-sim or QEMU and capture what they printed: the one place in the package that
starts a simulator process (cairn.run builds experiments on top of run_cairn_sim; the
command-line tests set up the process's streams, environment and limits with a Launch).
python/tests/test_one_launcher.py fails when other code starts cairn-sim itself."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from contextlib import ExitStack
from typing import IO

from .launch import Launch
from .paths import sim_binary

#: Exit status reported when the wall-clock timeout of run_sim/run_qemu ends a run
#: (the same number cairn-sim uses for its own --max-time limit).
TIMEOUT_STATUS = 124


@dataclass(frozen=True)
class Result:
    stdout: bytes
    stderr: bytes
    status: int
    timed_out: bool = False
    command: tuple[str, ...] = ()

    def text(self) -> str:
        return self.stdout.decode(errors="replace")

    def describe(self, limit: int = 2000) -> str:
        """For assertion messages: command, status and the ends of both streams."""
        out = self.stdout.decode(errors="replace")[-limit:]
        err = self.stderr.decode(errors="replace")[-limit:]
        head = f"$ {' '.join(self.command)}\nstatus {self.status}" + (" (timed out)" if self.timed_out else "")
        return f"{head}\n--- stdout (tail)\n{out}\n--- stderr (tail)\n{err}"


_PLAIN = Launch()


def _run(
    cmd: Sequence[str],
    timeout: float | None,
    cwd: str | os.PathLike[str] | None = None,
    launch: Launch = _PLAIN,
) -> Result:
    try:
        with ExitStack() as files:
            p = subprocess.run(list(cmd), timeout=timeout, cwd=cwd, **launch.popen_args(files))
    except subprocess.TimeoutExpired as e:
        return Result(
            stdout=_bytes(e.stdout),
            stderr=_bytes(e.stderr) + f"\n[killed after {timeout}s wall-clock timeout]\n".encode(),
            status=TIMEOUT_STATUS,
            timed_out=True,
            command=tuple(cmd),
        )
    return Result(stdout=_bytes(p.stdout), stderr=_bytes(p.stderr), status=p.returncode, command=tuple(cmd))


def _bytes(v: bytes | str | None) -> bytes:
    if v is None:
        return b""
    return v.encode() if isinstance(v, str) else v


def run_command(
    cmd: Sequence[str],
    timeout: float | None = 60.0,
    cwd: str | os.PathLike[str] | None = None,
    launch: Launch = _PLAIN,
) -> Result:
    """Any command, stdin from /dev/null and both streams captured unless `launch` says
    otherwise; for tools that wrap a simulator run (valgrind, a timing harness) and for QEMU."""
    return _run(cmd, timeout, cwd, launch)


def start_process(cmd: Sequence[str], stderr: IO[bytes]) -> subprocess.Popen[bytes]:
    """A long-lived process fed on stdin and read line by line from stdout (the differential
    tester's `cairn-sim exec-cases /dev/stdin`), its stderr into `stderr`."""
    return subprocess.Popen(list(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)


def run_cairn_sim(
    args: Sequence[str],
    timeout: float | None = 60.0,
    cwd: str | os.PathLike[str] | None = None,
    sim: str | os.PathLike[str] | None = None,
    launch: Launch = _PLAIN,
) -> Result:
    """`cairn-sim ARGS...` (build/bin/cairn-sim, or $CAIRN_SIM, or `sim`). A relative `sim`
    is from the caller's working directory, not from `cwd`. `launch`: the process's stdin,
    stdout and stderr (a stream not captured is empty in the Result), extra environment
    variables and resource limits (cairn.launch). A run longer than `timeout` seconds is
    killed and gets status 124 with `timed_out` set."""
    exe = Path(sim).absolute() if sim is not None else sim_binary()
    return _run([str(exe), *args], timeout, cwd, launch)


def run_sim(elf: str | os.PathLike[str], *args: str, timeout: float = 60.0, sim: str | os.PathLike[str] | None = None) -> Result:
    """`cairn-sim run [ARGS...] ELF`. UART0 (and semihosting console) output is stdout;
    status is the firmware's semihosting exit code, 124 on a limit, 125 on a lockup."""
    return run_cairn_sim(["run", *args, str(elf)], timeout, sim=sim)


def qemu_command(elf: str | os.PathLike[str], qemu: str = "qemu-system-arm") -> list[str]:
    """QEMU's mps2-an385 with UART0 and the semihosting console multiplexed, in order, onto
    stdout. (With plain `-serial stdio -semihosting`, SYS_WRITEC/SYS_WRITE0 output goes to
    stderr instead, so the two streams cannot be compared with cairn-sim's stdout.)"""
    # -icount: QEMU's clock follows the instructions, not the host's, so the firmware's timers
    # fire at the same point however loaded the host is (docs/firmware-tests.md).
    return [
        qemu, "-M", "mps2-an385", "-nographic", "-monitor", "none",
        "-chardev", "stdio,id=con,mux=on", "-serial", "chardev:con",
        "-semihosting-config", "enable=on,target=native,chardev=con",
        "-icount", "shift=5,align=off,sleep=off",
        "-kernel", str(elf),
    ]  # fmt: skip


def run_qemu(elf: str | os.PathLike[str], timeout: float = 30.0, qemu: str = "qemu-system-arm") -> Result:
    """Run ELF on qemu-system-arm -M mps2-an385; status is the semihosting exit code."""
    return _run(qemu_command(elf, qemu), timeout)
