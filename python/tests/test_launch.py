"""cairn.launch: the process set-up the runners give a simulator (stdin, streams, environment,
limits), checked on a stand-in simulator that reports what it was started with."""

from __future__ import annotations

import json
import resource
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.launch import Launch, LaunchError
from cairn.runners import run_cairn_sim

REPORTER = """\
import json, os, resource, signal, sys

def is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False

stdin = os.read(0, 1 << 16).decode() if is_open(0) else None
report = {
    "args": sys.argv[1:],
    "stdin": stdin,
    "open": [fd for fd in (0, 1, 2) if is_open(fd)],
    "var": os.environ.get("CAIRN_LAUNCH_TEST"),
    "path_kept": "PATH" in os.environ,
    "fsize": resource.getrlimit(resource.RLIMIT_FSIZE),
    "usr1_ignored": signal.getsignal(signal.SIGUSR1) == signal.SIG_IGN,
}
os.write(1, json.dumps(report).encode())
"""


@pytest.fixture
def sim(tmp_path: Path) -> Path:
    script = tmp_path / "reporting-sim"
    script.write_text(f"#!{sys.executable}\n{REPORTER}")
    script.chmod(0o755)
    return script


def report(sim: Path, launch: Launch) -> dict[str, Any]:
    r = run_cairn_sim(["run", "fw.elf"], timeout=30, sim=sim, launch=launch)
    assert r.status == 0, r.describe()
    doc: dict[str, Any] = json.loads(r.stdout)
    return doc


def test_the_default_is_a_study_run(sim: Path) -> None:
    doc = report(sim, Launch())
    assert doc["args"] == ["run", "fw.elf"]
    assert doc["stdin"] == "" and doc["open"] == [0, 1, 2]
    assert doc["var"] is None and doc["path_kept"]
    assert doc["fsize"] == list(resource.getrlimit(resource.RLIMIT_FSIZE)) and not doc["usr1_ignored"]


def test_stdin_bytes_env_limits_and_a_closed_stderr(sim: Path) -> None:
    launch = Launch(
        stdin=b"frames\n",
        stderr="closed",
        env={"CAIRN_LAUNCH_TEST": "on"},
        limits={resource.RLIMIT_FSIZE: 4096},
        # SIGUSR1: the stand-in is Python, which ignores SIGXFSZ by itself.
        ignore_signals=(signal.SIGUSR1,),
    )
    doc = report(sim, launch)
    assert doc["stdin"] == "frames\n"
    assert doc["open"] == [0, 1]
    assert doc["var"] == "on" and doc["path_kept"], "env adds to the caller's environment"
    assert doc["fsize"] == [4096, 4096] and doc["usr1_ignored"]


def test_stdin_from_a_file_and_a_closed_stdin(sim: Path, tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("from a file\n")
    assert report(sim, Launch(stdin=source))["stdin"] == "from a file\n"
    doc = report(sim, Launch(stdin="closed"))
    assert doc["stdin"] is None and doc["open"] == [1, 2]


def test_stdout_on_a_descriptor_is_not_captured(sim: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    with open(out, "wb") as f:
        r = run_cairn_sim(["run"], timeout=30, sim=sim, launch=Launch(stdout=f.fileno()))
    assert r.status == 0 and r.stdout == b"", r.describe()
    assert json.loads(out.read_text())["args"] == ["run"]


@pytest.mark.parametrize(
    ("kwargs", "expect"),
    [({"stdout": "pipe"}, "stdout: 'pipe'"), ({"stdin": "capture"}, "stdin: 'capture'"),
     ({"limits": {resource.RLIMIT_AS: -1}}, "negative")],
    ids=["stream", "input", "limit"],
)
def test_a_launch_that_describes_no_process_is_refused(kwargs: dict[str, Any], expect: str) -> None:
    with pytest.raises(LaunchError, match=expect):
        Launch(**kwargs)
