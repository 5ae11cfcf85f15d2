"""cairn.paths and cairn.runners."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cairn import paths, runners


def test_repo_root_and_layout() -> None:
    root = paths.repo_root()
    assert (root / "python" / "cairn" / "paths.py").is_file()
    assert paths.sim_binary() == root / "build" / "bin" / "cairn-sim"
    assert paths.firmware("uart") == root / "build" / "fw" / "test-uart.elf"
    assert paths.expected_toml() == root / "kernel" / "tests" / "sim" / "expected.toml"


def test_env_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CAIRN_ROOT", str(tmp_path))
    assert paths.repo_root() == tmp_path.resolve()
    monkeypatch.setenv("CAIRN_SIM", "/opt/sim")
    assert paths.sim_binary() == Path("/opt/sim")


def test_run_captures_status_and_streams(tmp_path: Path) -> None:
    script = tmp_path / "fake-sim"
    script.write_text(
        "#!/bin/sh\n"
        'echo "args: $*"\n'
        'echo "diag" >&2\n'
        "exit 7\n"
    )  # fmt: skip
    script.chmod(0o755)
    r = runners.run_sim("fw.elf", "--max-time", "1s", sim=script, timeout=10)
    assert r.status == 7
    assert r.stdout == b"args: run --max-time 1s fw.elf\n"
    assert r.stderr == b"diag\n"
    assert not r.timed_out


def test_wall_clock_timeout(tmp_path: Path) -> None:
    script = tmp_path / "slow"
    script.write_text(f"#!{sys.executable}\nimport time\nprint('started', flush=True)\ntime.sleep(30)\n")
    script.chmod(0o755)
    r = runners.run_sim("x.elf", sim=script, timeout=1)
    assert r.timed_out and r.status == runners.TIMEOUT_STATUS
    assert b"started" in r.stdout and b"timeout" in r.stderr
    assert "timed out" in r.describe()


def test_qemu_command_routes_uart_and_semihosting_to_stdout() -> None:
    cmd = runners.qemu_command("fw.elf")
    assert cmd[:3] == ["qemu-system-arm", "-M", "mps2-an385"]
    assert "-nographic" in cmd and cmd[-2:] == ["-kernel", "fw.elf"]
    assert cmd[cmd.index("-semihosting-config") + 1] == "enable=on,target=native,chardev=con"
    assert cmd[cmd.index("-serial") + 1] == "chardev:con"
