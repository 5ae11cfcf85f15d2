"""Bad input that used to get through: files that are not bounded regular files, numbers
that skipped the range checks, output that cannot be written, wrong fault reports.

Each test is about a class of input, not one case: every path the simulator reads from
the user goes through one bounded reader, every numeric value through one validator,
every output file through one complete-or-absent writer. The helpers (the simulator,
hand-made ELF files, the assembler) come from test_cli_errors.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
from pathlib import Path

import pytest

from test_cli_errors import (
    DEMO,
    EXIT_LIMIT,
    EXIT_LOCKUP,
    EXIT_USAGE,
    SIM,
    assemble,
    assert_no_panic,
    assert_usage_error,
    describe,
    run_sim,
    tiny_elf,
    write,
)

# The documented limits (docs/cli.md, "Input files").
DATA_LIMIT = 64 << 20
TEXT_LIMIT = 4 << 20
QUICK = 20.0  # seconds: a refused input is refused at once


def run_quick(args: list[str | os.PathLike[str]]) -> subprocess.CompletedProcess[bytes]:
    """Like run_sim, but a hang (reading a FIFO or /dev/zero forever) is a failure."""
    try:
        return run_sim(args, timeout=QUICK)
    except subprocess.TimeoutExpired:
        pytest.fail(f"cairn-sim {' '.join(map(str, args))} hung (no answer in {QUICK} s)")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    p = tmp_path / "fifo"
    os.mkfifo(p)
    return p


def sparse(tmp_path: Path, name: str, size: int) -> Path:
    """A file of `size` bytes that takes no disk space."""
    p = tmp_path / name
    with open(p, "wb") as f:
        f.truncate(size)
    return p


# ---------------------------------------------------------------- 1. unbounded reads


@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "dir"])
def test_firmware_that_is_not_a_regular_file(tmp_path: Path, fifo: Path, source: str) -> None:
    path = {"/dev/zero": Path("/dev/zero"), "fifo": fifo, "dir": tmp_path}[source]
    kind = {"/dev/zero": "character device", "fifo": "FIFO", "dir": "directory"}[source]
    assert_usage_error(run_quick(["run", path]), str(path), "not a regular file", kind)


def test_firmware_over_the_size_limit(tmp_path: Path) -> None:
    big = sparse(tmp_path, "big.elf", 200 << 20)
    assert_usage_error(run_quick(["run", big]), "big.elf", "64 MiB")


def test_firmware_at_the_size_limit_is_read(tmp_path: Path) -> None:
    # Exactly the limit is allowed: refused as an ELF, not for its size.
    big = sparse(tmp_path, "limit.elf", DATA_LIMIT)
    assert_usage_error(run_quick(["run", big]), "not an ELF file")


@pytest.mark.parametrize("option", ["--device", "--io", "--energy"])
@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "big"])
def test_toml_inputs_are_bounded(tmp_path: Path, fifo: Path, option: str, source: str) -> None:
    path = {"/dev/zero": Path("/dev/zero"), "fifo": fifo, "big": sparse(tmp_path, "big.toml", 200 << 20)}[source]
    elf = write(tmp_path, "t.elf", tiny_elf())
    line = assert_usage_error(run_quick(["run", option, path, elf]), str(path))
    assert ("not a regular file" in line) == (source != "big"), line
    assert ("4 MiB" in line) == (source == "big"), line


@pytest.mark.parametrize("kind", ["csv", "wav"])
@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "big"])
def test_adc_sources_are_bounded(tmp_path: Path, fifo: Path, kind: str, source: str) -> None:
    path = {"/dev/zero": Path("/dev/zero"), "fifo": fifo, "big": sparse(tmp_path, f"big.{kind}", 200 << 20)}[source]
    scenario = tmp_path / "s.toml"
    scenario.write_text(f"[adc]\nrate_hz = 1000\n[[adc.channel]]\nsource = '{kind}'\nfile = '{path}'\n")
    elf = write(tmp_path, "t.elf", tiny_elf())
    line = assert_usage_error(run_quick(["run", "--device", scenario, elf]), "adc.channel[0].file", str(path))
    assert ("64 MiB" in line) == (source == "big"), line
