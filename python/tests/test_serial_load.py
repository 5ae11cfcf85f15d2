"""The application description arriving over module 0's UART (docs/distributed.md,
"Applications"): python -m cairn.serial_load frames the spread pipeline's description, and
experiments/devices/pipeline-uart.toml feeds the frame to build/fw/pipeline-uart.elf, whose
receive interrupt decodes and CRC-checks it before the application manager loads it. The
modules print what pipeline-load.toml prints; a frame with one corrupted byte is refused,
counted, reported, and no application starts."""

from __future__ import annotations

from pathlib import Path

import pytest

import cairn
from cairn import serial_load
from cairn.paths import firmware_dir, repo_root
from cairn.scenario import Device, load

DEVICES = repo_root() / "experiments" / "devices"


def _need(name: str) -> None:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"


def test_crc_is_ccitt_false() -> None:
    # The catalogue's check value of CRC-16/CCITT-FALSE over "123456789".
    assert serial_load.crc16(b"123456789") == 0x29B1


def test_a_frame_carries_its_length_and_crc() -> None:
    f = serial_load.frame(b"\x01\x02\x03")
    assert f[0] == 0x7E and f[1:3] == b"\x03\x00" and f[3:6] == b"\x01\x02\x03"
    assert int.from_bytes(f[6:], "big") == serial_load.crc16(f[1:6])
    with pytest.raises(ValueError):
        serial_load.frame(b"")


def test_an_unwritable_frame_file_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert serial_load.main(["--out", str(tmp_path / "file" / "x.frame")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("serial_load: ")


def _of(console: str, processor: str) -> list[str]:
    return [line.removeprefix(f"{processor}: ") for line in console.splitlines() if line.startswith(f"{processor}: ")]


def test_over_the_uart_the_modules_print_what_the_loader_prints() -> None:
    _need("pipeline-uart.elf")
    _need("pipeline-load.elf")
    assert serial_load.main([]) == 0
    uart = cairn.run(DEVICES / "pipeline-uart.toml", timeout=120)
    loader = cairn.run(DEVICES / "pipeline-load.toml", timeout=120)
    assert uart.status == 0, uart.console + uart.stderr.decode(errors="replace")
    assert loader.status == 0, loader.console
    for processor in ("sensor", "filter", "logger"):
        assert _of(uart.console, processor) == _of(loader.console, processor)
    assert _of(uart.console, "logger")[-1] == "pipeline done"
    n = len(serial_load.description(serial_load.PIPELINE))
    assert _of(uart.console, "sensor")[0] == f"loader: {n} bytes to the application manager"


def test_one_corrupted_byte_is_refused_and_nothing_starts(tmp_path: Path) -> None:
    _need("pipeline-uart.elf")
    good = serial_load.frame(serial_load.description(serial_load.PIPELINE))
    bad = bytearray(good)
    bad[10] ^= 0x04  # inside the payload: the length still holds, the CRC does not
    (tmp_path / "bad.frame").write_bytes(bytes(bad))
    device = load(DEVICES / "pipeline-uart.toml").resolved()
    assert isinstance(device, Device) and device.processors
    inputs = device.processors[0].uart_inputs
    assert inputs
    inputs[0].file = str(tmp_path / "bad.frame")
    r = cairn.run(device, timeout=120)
    counters = "frames 0, crc errors 1, bad length 0, noise 0"
    assert r.status == 3, r.console + r.stderr.decode(errors="replace")
    assert _of(r.console, "sensor") == [f"uart: frame refused, {counters}", f"uart: no description, {counters}"]
    assert _of(r.console, "filter") == [] and _of(r.console, "logger") == []
