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
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.launch import Launch, Stream
from cairn.runners import Result
from test_cli_errors import (
    DEMO,
    EXIT_LIMIT,
    EXIT_LOCKUP,
    EXIT_USAGE,
    asm_program,
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


def run_quick(args: list[str | os.PathLike[str]]) -> Result:
    """run_sim with a short timeout: a hang (reading a FIFO or /dev/zero forever) fails soon."""
    return run_sim(args, timeout=QUICK)


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


# ---------------------------------------------------------------- 2. numbers in scenario files


@pytest.mark.parametrize(
    ("toml", "key", "expect"),
    [
        # Integers that a 32-bit cast would truncate to a valid size or clock.
        ("[memory]\nflash = 4295032832\n", "memory.flash", "between 1 KiB and 256 MiB"),
        ("[memory]\nsram = 4294967300\n", "memory.sram", "between 1 KiB and 256 MiB"),
        ("[memory]\nflash = 1000\n", "memory.flash", "multiple of 4"),
        ("[memory]\nsram = -65536\n", "memory.sram", "-65536"),
        ("clock = 100000000000\n", "clock", "from 1 Hz to 17 GHz"),
        ("clock = 0\n", "clock", "from 1 Hz to 17 GHz"),
        ("clock = 1.5\n", "clock", "1.5"),
        ("clock = nan\n", "clock", "not a finite number"),
        ("[memory]\nflash_wait_states = 16\n", "memory.flash_wait_states", "0..=15"),
        ("[memory]\nflash_wait_states = -1\n", "memory.flash_wait_states", "not a non-negative integer"),
        ("[memory]\nflash_wait_states = 4294967296\n", "memory.flash_wait_states", "0..=15"),
    ],
    ids=lambda v: v.strip().replace("\n", " ") if isinstance(v, str) and "=" in v else None,
)
def test_scenario_numbers_are_range_checked(tmp_path: Path, toml: str, key: str, expect: str) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(toml)
    elf = write(tmp_path, "t.elf", tiny_elf())
    assert_usage_error(run_quick(["run", "--device", scenario, "--max-instructions", "10", elf]), f"{key}: ", expect)


@pytest.mark.parametrize(
    ("toml", "option"),
    [("clock = 48000000\n", ["--clock", "48MHz"]), ("clock = 48e6\n", ["--clock", "48000000"]),
     ("[memory]\nflash = 262144\nsram = 65536\n", ["--flash-size", "256K", "--sram-size", "64K"]),
     ("[memory]\nflash_wait_states = 2\n", ["--flash-wait-states", "2"])],
    ids=["clock-int", "clock-float", "memory", "wait-states"],
)
def test_scenario_numbers_equal_their_options(tmp_path: Path, toml: str, option: list[str]) -> None:
    """A value written as a TOML number means what the same option means."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(toml)
    stats = []
    for i, args in enumerate([["--device", str(scenario)], option]):
        out = tmp_path / f"stats{i}.json"
        p = run_sim(["run", *args, "--max-instructions", "20000", "--stats", out, DEMO])
        assert p.status == EXIT_LIMIT, describe(p)
        doc = json.loads(out.read_text())
        stats.append((doc["clock_hz"], doc["cycles"], doc["instructions"]))
    assert stats[0] == stats[1]


# ---------------------------------------------------------------- 4. options and fault reports


@pytest.mark.parametrize(
    ("option", "value", "expect"),
    [
        ("--max-instructions", "-5", "-5 is not a non-negative integer"),
        ("--seed", "-1", "-1 is not a non-negative integer"),
        ("--gdb", "-1", "-1 is not a non-negative integer"),
        ("--gdb", "65536", "0..=65535"),
        ("--flash-wait-states", "-1", "-1 is not a non-negative integer"),
        ("--flash-wait-states", "16", "0..=15"),
        ("--max-instructions", "18446744073709551616", "out of range"),
        ("--max-time", "-1s", "invalid duration '-1s'"),
        ("--clock", "-25MHz", "invalid frequency '-25MHz'"),
        ("--flash-size", "-64K", "invalid size '-64K'"),
    ],
)
def test_negative_and_out_of_range_option_values(option: str, value: str, expect: str) -> None:
    """The message is about the value, not clap's 'unexpected argument' for '-5'."""
    line = assert_usage_error(run_quick(["run", option, value, DEMO]), f"{option}: ", expect)
    assert "unexpected argument" not in line, line


ET_REL = 1
ET_DYN = 3


@pytest.mark.parametrize(("e_type", "expect"), [(ET_REL, "relocatable"), (ET_DYN, "ET_DYN"), (0x1234, "ET_EXEC")])
def test_only_executables_are_firmware(tmp_path: Path, e_type: int, expect: str) -> None:
    """An object file with program headers (e_type is the only difference from a good
    tiny ELF) is not firmware."""
    elf = bytearray(tiny_elf())
    elf[16:18] = e_type.to_bytes(2, "little")
    path = write(tmp_path, "obj.o", bytes(elf))
    assert_usage_error(run_quick(["run", path]), "obj.o", expect)


# A HardFault handler whose last instruction is an SVC: at HardFault priority that is a
# lockup, and the instruction after it is the next function's first.
SVC_LOCKUP_ASM = asm_program(["reset_handler", "next_function", "hardfault_handler"], """\
    udf #1
    .size reset_handler, . - reset_handler

    .thumb_func
    .type hardfault_handler, %function
hardfault_handler:
    nop
    svc #0
    .size hardfault_handler, . - hardfault_handler

    .thumb_func
    .type next_function, %function
next_function:
    b next_function
    .size next_function, . - next_function
""")

# WFI with nothing enabled that could wake the core.
SLEEP_FOREVER_ASM = asm_program(["reset_handler"], """\
    wfi
    b reset_handler
    .size reset_handler, . - reset_handler
""")


def test_svc_in_hardfault_reports_the_svc(tmp_path: Path) -> None:
    elf = assemble(tmp_path, "svc_lockup", SVC_LOCKUP_ASM)
    p = run_quick(["run", elf])
    assert_no_panic(p)
    assert p.status == EXIT_LOCKUP, describe(p)
    first = p.stderr.decode().splitlines()[0]
    assert "SVC executed where it cannot be taken" in first, describe(p)
    assert "(hardfault_handler+0x2) in HardFault" in first, describe(p)
    assert "next_function" not in first, describe(p)


@pytest.mark.parametrize("limits", [[], ["--max-time", "1ms"], ["--max-time", "1s", "--max-instructions", "100"]])
def test_asleep_forever_is_125_with_or_without_limits(tmp_path: Path, limits: list[str]) -> None:
    elf = assemble(tmp_path, "sleep", SLEEP_FOREVER_ASM)
    p = run_quick(["run", *limits, elf])
    assert_no_panic(p)
    assert p.status == EXIT_LOCKUP, describe(p)
    lines = p.stderr.decode().splitlines()
    assert len(lines) == 1 and "no enabled event that could wake it" in lines[0], describe(p)


# ---------------------------------------------------------------- 3. output that cannot be written


def run_with(
    args: list[str | os.PathLike[str]],
    *,
    stdout: Stream = "capture",
    stderr: Stream = "capture",
    fsize: int | None = None,
) -> Result:
    """Run cairn-sim with its stdout/stderr on given descriptors, or closed, and a file size
    limit (RLIMIT_FSIZE, with SIGXFSZ ignored so a write past it fails with EFBIG as on a
    full disk)."""
    if fsize is None:
        return run_sim(args, timeout=120, launch=Launch(stdout=stdout, stderr=stderr))
    disk = {resource.RLIMIT_FSIZE: fsize}
    return run_sim(args, timeout=120, launch=Launch(stdout=stdout, stderr=stderr, limits=disk, ignore_signals=(signal.SIGXFSZ,)))


def test_full_stdout_ends_the_run() -> None:
    """Firmware output that cannot be written is not lost silently: exit 2, one line."""
    with open("/dev/full", "wb") as full:
        p = run_with(["run", DEMO], stdout=full.fileno())
    assert_no_panic(p)
    assert p.status == EXIT_USAGE, describe(p)
    lines = p.stderr.decode().splitlines()
    assert len(lines) == 1 and "standard output" in lines[0] and "No space left" in lines[0], describe(p)


def test_closed_pipe_on_stdout_keeps_the_status(tmp_path: Path) -> None:
    """A reader that went away (`| head`) is not an error: the bytes are dropped."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = run_with(["run", DEMO], stdout=w)
    finally:
        os.close(w)
    assert_no_panic(p)
    assert p.status == 0, describe(p)


@pytest.mark.parametrize("how", ["full", "closed"])
def test_unwritable_stderr_keeps_the_status(tmp_path: Path, how: str) -> None:
    """A diagnostic that cannot be written does not abort (it used to: eprintln! panics,
    the panic hook prints again, abort), and a closed stderr does not lend its descriptor to
    an output file (Rust's runtime puts /dev/null there): the trace stays valid JSON."""
    trace = tmp_path / "t.json"
    args: list[str | os.PathLike[str]] = ["run", "--max-instructions", "1000", "--trace", trace, DEMO]
    if how == "full":
        with open("/dev/full", "wb") as full:
            p = run_with(args, stderr=full.fileno())
    else:
        p = run_with(args, stderr="closed")
    assert p.status == EXIT_LIMIT, describe(p)
    json.loads(trace.read_text())


@pytest.mark.parametrize("option", ["--stats", "--trace", "--io-log", "--vcd"])
def test_output_to_a_full_device(tmp_path: Path, option: str) -> None:
    io = tmp_path / "io.toml"
    io.write_text("[pin.led]\nindex = 0\n")
    p = run_with(["run", "--io", io, option, "/dev/full", "--max-instructions", "20000", DEMO])
    assert_usage_error_after_output(p, "cannot write /dev/full", "No space left")


def assert_usage_error_after_output(p: Result, *expect: str) -> None:
    """Exit 2 and, last on stderr, one line with every string in `expect`."""
    assert_no_panic(p)
    assert p.status == EXIT_USAGE, describe(p)
    last = p.stderr.decode().splitlines()[-1]
    assert last.startswith("cairn-sim: ") and all(e in last for e in expect), describe(p)


BENCH_WFI_RUN = ["--max-time", "200ms"]


@pytest.mark.parametrize("option", ["--stats", "--trace", "--io-log", "--vcd"])
def test_output_file_on_a_full_disk_is_absent(tmp_path: Path, option: str) -> None:
    """A file that cannot be completed is not left behind truncated (nor its temporary
    file), and an older file of that name is kept. The disk fills up at 256 bytes (the
    stats) or 4 KiB (the streamed files, so that they fail during the run)."""
    from test_cli_errors import BENCH_WFI

    out = tmp_path / "out" / "file"
    out.parent.mkdir()
    io = tmp_path / "io.toml"
    io.write_text("[[stimulus]]\nname = 's'\nkind = 'periodic'\nperiod = '10us'\nline = 0\n")
    args: list[str | os.PathLike[str]] = ["run", *BENCH_WFI_RUN, option, out, BENCH_WFI]
    if option != "--stats":
        args[1:1] = ["--io", io]
    fsize = 256 if option == "--stats" else 4096
    p = run_with(args, fsize=fsize)
    assert_usage_error_after_output(p, f"cannot write {out}")
    assert list(out.parent.iterdir()) == [], describe(p)
    out.write_text("earlier\n")
    p = run_with(args, fsize=fsize)
    assert p.status == EXIT_USAGE, describe(p)
    assert [f.name for f in out.parent.iterdir()] == ["file"] and out.read_text() == "earlier\n", describe(p)


def test_output_files_are_complete_on_success(tmp_path: Path) -> None:
    """The same run with room to write: every file in place, nothing else in the folder."""
    from test_cli_errors import BENCH_WFI

    out = tmp_path / "out"
    out.mkdir()
    io = tmp_path / "io.toml"
    io.write_text("[pin.led]\nindex = 0\n")
    names = {"--stats": "s.json", "--trace": "t.json", "--io-log": "l.csv", "--vcd": "w.vcd"}
    args: list[str | os.PathLike[str]] = ["run", "--io", io, *BENCH_WFI_RUN, BENCH_WFI]
    for option, name in names.items():
        args[1:1] = [option, out / name]
    p = run_with(args)
    assert p.status == EXIT_LIMIT, describe(p)
    assert sorted(f.name for f in out.iterdir()) == sorted(names.values())
    json.loads((out / "s.json").read_text())
    json.loads((out / "t.json").read_text())


def test_rejected_run_leaves_no_output(tmp_path: Path) -> None:
    """Files are started before the run; a run refused after that removes them."""
    out = tmp_path / "out"
    out.mkdir()
    p = run_with(["run", "--stats", out / "s.json", "--trace", out / "t.json", "--gdb", "-1", DEMO])
    assert p.status == EXIT_USAGE, describe(p)
    with open("/dev/full", "wb") as full:
        p = run_with(["run", "--stats", out / "s.json", "--trace", out / "t.json", DEMO], stdout=full.fileno())
    assert p.status == EXIT_USAGE, describe(p)
    assert list(out.iterdir()) == [], describe(p)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (needs root, or the right to mount: skipped otherwise)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_full_disk_leaves_no_partial_file(small_disk: Path) -> None:
    """A real full disk (ENOSPC) during the run: the trace is streamed until the disk is
    full, then the run ends, exit 2, and nothing is left on the disk. Then a disk filled up
    before the run: the stats cannot be written and are absent, not truncated."""
    from test_cli_errors import BENCH_WFI

    p = run_with(["run", "--max-time", "1s", "--trace", small_disk / "t.json", BENCH_WFI])
    assert_usage_error_after_output(p, "t.json", "No space left on device")
    assert list(small_disk.iterdir()) == [], describe(p)
    with open(small_disk / "filler", "wb") as f:
        try:
            f.write(bytes(64 << 10))
        except OSError:
            pass
    p = run_with(["run", "--max-time", "1ms", "--stats", small_disk / "s.json", BENCH_WFI])
    assert_usage_error_after_output(p, "s.json", "No space left on device")
    assert [f.name for f in small_disk.iterdir()] == ["filler"], describe(p)


def test_exec_cases_reads_lines_of_bounded_length() -> None:
    """The differential tester's case runner streams its input, one line at a time: a stream
    without newlines is refused at the line limit, not read whole."""
    p = run_quick(["exec-cases", "/dev/zero"])
    assert_usage_error(p, "/dev/zero:1: line longer than 1048576 bytes")
