"""The cairn-sim command line on bad input, and its other exit statuses.

The contract (docs/architecture.md, "The cairn-sim command"): exit 2 on usage, file, ELF or config
errors with one clear line on stderr; 124 when --max-time/--max-instructions ends the run;
125 on a lockup (stderr: fault kind, PC, symbol+offset, registers, stacked frame); never a
Rust panic message; runs are deterministic.

The simulator is started through cairn.runners (build/bin/cairn-sim under the repository
root, or $CAIRN_SIM), with the process set-up a test needs (limits, streams) as a
cairn.launch.Launch; firmware comes from build/fw/ (`make build`). Hand-made ELF files are
written by the helpers below; the lockup firmware is assembled with arm-none-eabi-gcc in a
temporary directory.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import struct
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from cairn.launch import Launch
from cairn.paths import sim_binary
from cairn.runners import Result, run_cairn_sim

ROOT = Path(__file__).resolve().parents[2]
SIM = sim_binary()
FW = ROOT / "build" / "fw"
DEMO = FW / "demo.elf"
BENCH_WFI = FW / "bench_wfi.elf"
TEST_SVC = FW / "test-svc.elf"

EXIT_USAGE = 2
EXIT_LIMIT = 124
EXIT_LOCKUP = 125

EM_386 = 3
EM_ARM = 40
EM_RISCV = 243
PT_LOAD = 1
PT_NOTE = 4


def run_sim(args: Sequence[str | os.PathLike[str]], timeout: float = 60, launch: Launch = Launch()) -> Result:
    """`cairn-sim ARGS`; a run that outlives `timeout` seconds is a failure (a hang)."""
    assert SIM.is_file(), f"{SIM} is missing: `make build` builds it"
    p = run_cairn_sim([*map(str, args)], timeout=timeout, launch=launch)
    assert not p.timed_out, f"hung: no answer in {timeout} s\n{describe(p)}"
    return p


def describe(p: Result) -> str:
    return (
        f"$ {' '.join(p.command)}\nexit {p.status}\n"
        f"--- stdout ({len(p.stdout)} bytes)\n{p.stdout[:2000].decode(errors='replace')}"
        f"--- stderr\n{p.stderr[:4000].decode(errors='replace')}"
    )


def assert_no_panic(p: Result) -> None:
    err = p.stderr.decode(errors="replace")
    for text in ("panicked", "RUST_BACKTRACE", "stack backtrace", "internal error", "memory allocation of"):
        assert text not in err, f"Rust panic/abort text {text!r} on stderr\n{describe(p)}"
    assert p.status >= 0, f"killed by signal {-p.status}\n{describe(p)}"


def assert_usage_error(p: Result, *expect: str) -> str:
    """Exit 2, exactly one stderr line starting with `cairn-sim: `, nothing on stdout, no
    panic; the line contains every string in `expect` (case-insensitive). Returns the line."""
    assert_no_panic(p)
    assert p.status == EXIT_USAGE, f"want exit {EXIT_USAGE}\n{describe(p)}"
    assert p.stdout == b"", f"want nothing on stdout\n{describe(p)}"
    err = p.stderr.decode(errors="replace")
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), f"want exactly one line on stderr\n{describe(p)}"
    line = lines[0]
    assert line.startswith("cairn-sim: ") and len(line) > len("cairn-sim: ") + 5, describe(p)
    for e in expect:
        assert e.lower() in line.lower(), f"want {e!r} in the message\n{describe(p)}"
    return line


# ---------------------------------------------------------------- hand-made ELF files


def elf32(
    segments: Sequence[tuple[int, int, bytes, int]] = (),
    *,
    machine: int = EM_ARM,
    ei_class: int = 1,
    ei_data: int = 1,
) -> bytes:
    """A minimal 32-bit ELF executable: header, program headers, then each segment's bytes.
    A segment is (p_type, p_paddr, file bytes, p_memsz). The header is always packed
    little-endian; `ei_class`/`ei_data` only change the identification bytes."""
    phoff = 52
    data_off = phoff + 32 * len(segments)
    phdrs = b""
    payload = b""
    for p_type, paddr, data, memsz in segments:
        off = data_off + len(payload)
        phdrs += struct.pack("<8I", p_type, off, paddr, paddr, len(data), memsz, 5, 4)
        payload += data
    ident = b"\x7fELF" + bytes([ei_class, ei_data, 1, 0]) + bytes(8)
    header = ident + struct.pack(
        "<HHIIIIIHHHHHH", 2, machine, 1, 0x101, phoff if segments else 0, 0, 0x05000200,
        52, 32, len(segments), 40, 0, 0,
    )
    return header + phdrs + payload


# Initial SP, reset vector -> 0x8 (Thumb), then `b .` twice: a valid, tiny image.
TINY_IMAGE = struct.pack("<II", 0x2000_1000, 0x9) + bytes.fromhex("fee7fee7")


def tiny_elf(**kw: int) -> bytes:
    return elf32([(PT_LOAD, 0, TINY_IMAGE, len(TINY_IMAGE))], **kw)


def without_section_headers(elf: bytes) -> bytes:
    """`elf` with e_shoff, e_shnum and e_shstrndx zeroed, so only program headers matter."""
    b = bytearray(elf)
    struct.pack_into("<I", b, 32, 0)
    struct.pack_into("<HH", b, 48, 0, 0)
    return bytes(b)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def firmware_bytes(path: Path) -> bytes:
    assert path.is_file(), f"{path} is missing: `make build` builds it"
    return path.read_bytes()


# ---------------------------------------------------------------- file and ELF errors


def test_missing_file(tmp_path: Path) -> None:
    assert_usage_error(run_sim(["run", tmp_path / "nope.elf"]), "nope.elf")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    assert_usage_error(run_sim(["run", tmp_path]), str(tmp_path))


def test_text_file(tmp_path: Path) -> None:
    f = write(tmp_path, "notes.txt", b"this is not firmware\n")
    assert_usage_error(run_sim(["run", f]), "not an ELF")


def test_empty_file(tmp_path: Path) -> None:
    f = write(tmp_path, "empty.elf", b"")
    assert_usage_error(run_sim(["run", f]), "empty.elf")


def test_host_executable() -> None:
    true = Path(shutil.which("true") or "/bin/true")
    assert true.is_file()
    assert_usage_error(run_sim(["run", true]))


@pytest.mark.parametrize(("machine", "name"), [(EM_RISCV, "RISC-V"), (EM_386, "x86")], ids=["riscv", "i386"])
def test_elf_for_another_machine(tmp_path: Path, machine: int, name: str) -> None:
    f = write(tmp_path, "other.elf", tiny_elf(machine=machine))
    assert_usage_error(run_sim(["run", f]), name, "not ARM")


def test_crafted_elf_is_accepted(tmp_path: Path) -> None:
    """The hand-made ELF files are valid apart from the one thing each test breaks."""
    f = write(tmp_path, "tiny.elf", tiny_elf())
    p = run_sim(["run", "--max-instructions", "100", f])
    assert_no_panic(p)
    assert p.status == EXIT_LIMIT, describe(p)


def test_64bit_elf(tmp_path: Path) -> None:
    f = write(tmp_path, "c64.elf", tiny_elf(ei_class=2))
    assert_usage_error(run_sim(["run", f]), "32-bit")


def test_big_endian_elf(tmp_path: Path) -> None:
    f = write(tmp_path, "be.elf", tiny_elf(ei_data=2))
    assert_usage_error(run_sim(["run", f]), "big-endian")


@pytest.mark.parametrize("length", [40, 51, 60, 84, 100])
def test_truncated_in_headers(tmp_path: Path, length: int) -> None:
    """Cut inside the ELF header (40, 51) or the program headers (60, 84, 100: test-svc has
    two program headers at 52..116)."""
    f = write(tmp_path, "cut.elf", firmware_bytes(TEST_SVC)[:length])
    assert_usage_error(run_sim(["run", f]))


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_truncated_in_segments(tmp_path: Path, fraction: float) -> None:
    """Cut in the middle of the file: section headers (at the end) are missing."""
    data = firmware_bytes(TEST_SVC)
    f = write(tmp_path, "cut.elf", data[: int(len(data) * fraction)])
    assert_usage_error(run_sim(["run", f]))


def test_truncated_segment_data(tmp_path: Path) -> None:
    """No section headers, and the file ends in the middle of the first segment's bytes."""
    data = without_section_headers(firmware_bytes(TEST_SVC))
    (offset, filesz) = struct.unpack_from("<I12xI", data, 52 + 4)
    assert filesz > 16
    f = write(tmp_path, "cut.elf", data[: offset + filesz // 2])
    assert_usage_error(run_sim(["run", f]), "truncated")


def test_segment_past_end_of_file(tmp_path: Path) -> None:
    elf = bytearray(tiny_elf())
    struct.pack_into("<I", elf, 52 + 16, 4096)  # p_filesz
    f = write(tmp_path, "past.elf", bytes(elf))
    assert_usage_error(run_sim(["run", f]), "truncated")


def test_segment_outside_memory(tmp_path: Path) -> None:
    f = write(tmp_path, "far.elf", elf32([(PT_LOAD, 0x6000_0000, TINY_IMAGE, len(TINY_IMAGE))]))
    assert_usage_error(run_sim(["run", f]), "0x60000000", "flash or SRAM")


def test_segment_wrapping_address_space(tmp_path: Path) -> None:
    f = write(tmp_path, "wrap.elf", elf32([(PT_LOAD, 0xFFFF_FFF0, TINY_IMAGE, 0x20)]))
    assert_usage_error(run_sim(["run", f]), "flash or SRAM")


def test_segment_larger_than_flash_option(tmp_path: Path) -> None:
    """A real firmware that does not fit a board made smaller on the command line."""
    assert_usage_error(run_sim(["run", "--flash-size", "1K", DEMO]), "flash or SRAM")


# 1 GiB: plenty for the simulator, far less than the segment below claims.
SMALL_ADDRESS_SPACE = Launch(limits={resource.RLIMIT_AS: 1 << 30})


def test_huge_zero_filled_segment(tmp_path: Path) -> None:
    """p_memsz of 3.75 GiB with 8 file bytes: refused as not fitting, without first
    allocating the zero fill (under a 1 GiB address-space limit, as in a small container)."""
    f = write(tmp_path, "bss.elf", elf32([(PT_LOAD, 0, TINY_IMAGE[:8], 0xF000_0000)]))
    assert_usage_error(run_sim(["run", f], launch=SMALL_ADDRESS_SPACE), "flash or SRAM")


def test_no_loadable_segments(tmp_path: Path) -> None:
    f = write(tmp_path, "note.elf", elf32([(PT_NOTE, 0, TINY_IMAGE, len(TINY_IMAGE))]))
    assert_usage_error(run_sim(["run", f]), "no loadable segments")


def test_no_program_headers(tmp_path: Path) -> None:
    f = write(tmp_path, "none.elf", elf32([]))
    assert_usage_error(run_sim(["run", f]), "no loadable segments")


# ---------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["run", "{demo}", "--bogus"], ["--bogus"]),
        (["run", "--bogus", "{demo}"], ["--bogus"]),
        (["run", "{demo}", "--max-time"], ["--max-time"]),
        (["run", "{demo}", "--stats"], ["--stats"]),
        (["run", "--max-time", "10 parsecs", "{demo}"], ["--max-time", "10 parsecs"]),
        (["run", "--max-time", "-1s", "{demo}"], []),
        (["run", "--max-time=-1s", "{demo}"], ["--max-time", "-1s"]),
        (["run", "--max-time", "ms", "{demo}"], ["--max-time"]),
        (["run", "--clock", "0", "{demo}"], ["--clock", "'0'"]),
        (["run", "--clock", "fast", "{demo}"], ["--clock", "fast"]),
        (["run", "--board", "pdp-11", "{demo}"], ["pdp-11", "mps2-an385"]),
        (["run", "--flash-size", "3", "{demo}"], ["--flash-size"]),
        (["run", "--flash-size", "1G", "{demo}"], ["--flash-size"]),
        (["run", "--sram-size", "lots", "{demo}"], ["--sram-size"]),
        (["run", "--mul-cycles", "7", "{demo}"], ["--mul-cycles", "7"]),
        (["run", "--flash-wait-states", "99", "{demo}"], ["--flash-wait-states"]),
        (["run", "--max-instructions", "many", "{demo}"], ["--max-instructions"]),
        (["run", "--gdb", "99999", "{demo}"], ["--gdb"]),
        (["frobnicate"], ["frobnicate"]),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_bad_option(args: list[str], expect: list[str]) -> None:
    args = [str(DEMO) if a == "{demo}" else a for a in args]
    assert_usage_error(run_sim(args), *expect)


def test_no_subcommand() -> None:
    assert_usage_error(run_sim([]), "run")


def test_run_without_firmware() -> None:
    assert_usage_error(run_sim(["run"]), "FIRMWARE")


def test_run_options_without_firmware() -> None:
    assert_usage_error(run_sim(["run", "--max-instructions", "10"]), "FIRMWARE")


# ---------------------------------------------------------------- hand-assembled firmware

LINKER_SCRIPT = """
ENTRY(reset_handler)
SECTIONS
{
    . = 0x00000000;
    .vectors : { KEEP(*(.vectors)) }
    .text : { *(.text*) }
}
"""

def asm_program(vectors: list[str], body: str) -> str:
    """A Thumb assembly file: the vector table (initial SP 0x20001000, then `vectors`) and
    `body` after the global `reset_handler:` label."""
    words = "".join(f"    .word {v}\n" for v in vectors)
    return (
        "    .syntax unified\n    .cpu cortex-m0plus\n    .thumb\n"
        f'    .section .vectors, "a"\n    .word 0x20001000\n{words}\n'
        "    .text\n    .thumb_func\n    .global reset_handler\n"
        f"    .type reset_handler, %function\nreset_handler:\n{body}"
    )


# Sets recognisable register values, faults on `udf`, and the HardFault handler faults
# again: a fault at HardFault priority is a lockup.
LOCKUP_ASM = asm_program(["reset_handler", "hang_handler", "hardfault_handler"], """\
    movs r0, #0x11
    movs r1, #0x22
    movs r2, #0x33
    movs r7, #0x77
    nop
    udf #1
    .size reset_handler, . - reset_handler

    .thumb_func
    .type hardfault_handler, %function
hardfault_handler:
    movs r4, #0x44
    udf #2
    .size hardfault_handler, . - hardfault_handler

    .thumb_func
    .type hang_handler, %function
hang_handler:
    b hang_handler
    .size hang_handler, . - hang_handler
""")

# Semihosting SYS_EXIT with ADP_Stopped_ApplicationExit: exit status 0, prints nothing.
EXIT_ASM = asm_program(["reset_handler"], """\
    movs r0, #0x18
    ldr r1, =0x20026
    bkpt 0xab
    b reset_handler
    .size reset_handler, . - reset_handler
    .ltorg
""")


def assemble(tmp: Path, name: str, source: str) -> Path:
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        pytest.fail("arm-none-eabi-gcc is missing (scripts/bootstrap installs gcc-arm-none-eabi)")
    (tmp / f"{name}.s").write_text(source)
    (tmp / "tiny.ld").write_text(LINKER_SCRIPT)
    elf = tmp / f"{name}.elf"
    cmd = [
        gcc, "-mcpu=cortex-m0plus", "-mthumb", "-nostdlib", "-nostartfiles",
        "-T", str(tmp / "tiny.ld"), "-o", str(elf), str(tmp / f"{name}.s"),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout}{r.stderr}"
    return elf


@pytest.fixture(scope="module")
def asm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("asm")


@pytest.fixture(scope="module")
def lockup_elf(asm_dir: Path) -> Path:
    return assemble(asm_dir, "lockup", LOCKUP_ASM)


@pytest.fixture(scope="module")
def exit_elf(asm_dir: Path) -> Path:
    return assemble(asm_dir, "exit0", EXIT_ASM)


def test_semihosting_exit_firmware(exit_elf: Path) -> None:
    p = run_sim(["run", exit_elf])
    assert_no_panic(p)
    assert (p.status, p.stdout, p.stderr) == (0, b"", b""), describe(p)


def test_unwritable_stats_file(tmp_path: Path, exit_elf: Path) -> None:
    p = run_sim(["run", "--stats", tmp_path / "no-such-dir" / "stats.json", exit_elf])
    assert_usage_error(p, "stats.json")


def test_unwritable_trace_file(tmp_path: Path, exit_elf: Path) -> None:
    p = run_sim(["run", "--trace", tmp_path / "no-such-dir" / "trace.json", exit_elf])
    assert_usage_error(p, "trace.json")


# ---------------------------------------------------------------- exit 124 and 125


def assert_limit(p: Result) -> None:
    assert_no_panic(p)
    assert p.status == EXIT_LIMIT, f"want exit {EXIT_LIMIT}\n{describe(p)}"
    lines = p.stderr.decode(errors="replace").splitlines()
    assert lines and lines[-1].startswith("cairn-sim: ") and "limit" in lines[-1], describe(p)


def test_max_instructions_limit() -> None:
    assert DEMO.is_file(), f"{DEMO} is missing: `make build` builds it"
    p = run_sim(["run", "--max-instructions", "1000", DEMO])
    assert_limit(p)
    assert "1000 instructions" in p.stderr.decode(), describe(p)


def test_max_time_limit() -> None:
    assert BENCH_WFI.is_file(), f"{BENCH_WFI} is missing: `make build` builds it"
    p = run_sim(["run", "--max-time", "1ms", BENCH_WFI])
    assert_limit(p)
    # 1 ms at the default 25 MHz clock.
    assert "25000 cycles" in p.stderr.decode(), describe(p)


def test_huge_max_time_is_no_limit() -> None:
    """A --max-time whose cycle count overflows (about 1.4e19 s at 25 MHz; picoseconds times
    Hz wraps a u128 to 1 cycle) must not stop the run early: bench_wfi runs to its end."""
    assert BENCH_WFI.is_file(), f"{BENCH_WFI} is missing: `make build` builds it"
    wraps = -(-(2**128) // 25_000_000)
    p = run_sim(["run", "--max-time", f"{wraps}ps", BENCH_WFI])
    assert_no_panic(p)
    assert p.status == 0, describe(p)


def test_lockup_in_hardfault_handler(lockup_elf: Path) -> None:
    p = run_sim(["run", lockup_elf])
    assert_no_panic(p)
    assert p.status == EXIT_LOCKUP, f"want exit {EXIT_LOCKUP}\n{describe(p)}"
    assert p.stdout == b"", describe(p)
    err = p.stderr.decode(errors="replace")
    assert err.startswith("cairn-sim: "), describe(p)
    first = err.splitlines()[0]
    assert "lockup" in first and "undefined instruction" in first, describe(p)
    assert "pc 0x" in first and "hardfault_handler+0x2" in first, describe(p)
    assert "HardFault" in first, describe(p)
    # The first fault, in thread mode, with its own location.
    assert "reset_handler+0xa" in err, describe(p)
    # Registers as they were at the lockup, and the frame stacked by the first fault.
    for reg in ("r0=0x00000011", "r1=0x00000022", "r2=0x00000033", "r4=0x00000044", "r7=0x00000077"):
        assert reg in err, f"want {reg}\n{describe(p)}"
    for reg in ("sp=0x", "lr=0x", "pc=0x", "xpsr=0x"):
        assert reg in err, f"want {reg}\n{describe(p)}"
    assert "stacked frame" in err and "(reset_handler+0xa)" in err, describe(p)


# ---------------------------------------------------------------- determinism


def test_runs_are_deterministic(tmp_path: Path) -> None:
    assert DEMO.is_file(), f"{DEMO} is missing: `make build` builds it"
    runs = []
    for i in range(2):
        stats = tmp_path / f"stats{i}.json"
        p = run_sim(["run", "--stats", stats, DEMO], timeout=300)
        assert_no_panic(p)
        assert p.status == 0, describe(p)
        doc = json.loads(stats.read_text())
        for key in ("instructions", "cycles", "simulated_seconds", "sleep_cycles", "host_seconds", "mips"):
            assert key in doc, f"stats JSON lacks {key!r}: {sorted(doc)}"
        del doc["host_seconds"], doc["mips"]
        runs.append((p.stdout, p.stderr, doc))
    assert runs[0][0], "the demo printed nothing"
    assert runs[0][0] == runs[1][0], "stdout differs between two identical runs"
    assert runs[0][1] == runs[1][1], "stderr differs between two identical runs"
    assert runs[0][2] == runs[1][2], f"stats differ between two identical runs:\n{runs[0][2]}\n{runs[1][2]}"
