"""Firmware tests: every test in kernel/tests/sim/expected.toml runs on cairn-sim and must
exit with its expected status (with `io = "FILE.toml"`, cairn-sim gets `--io` with that scenario
I/O section, relative to kernel/tests/sim/); tests with `qemu = true` (the default) also run on
qemu-system-arm -M mps2-an385, which must print the same stdout and exit the same way.
`make test` builds the ELFs (build/fw/test-<name>.elf) first, so a missing one fails."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from cairn.paths import expected_toml, firmware
from cairn.runners import run_qemu, run_sim


def _load() -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    path = expected_toml()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        return [], f"cannot read {path}: {e}"
    bad = [name for name, spec in data.items() if not isinstance(spec, dict) or not isinstance(spec.get("exit"), int)]
    if bad:
        return [], f"{path}: tables without an integer `exit`: {bad}"
    return sorted(data.items()), None


TESTS, LOAD_ERROR = _load()


def test_expected_toml_lists_tests() -> None:
    assert LOAD_ERROR is None, LOAD_ERROR
    assert TESTS, f"{expected_toml()} lists no tests"


@pytest.mark.parametrize(("name", "spec"), TESTS, ids=[name for name, _ in TESTS])
def test_firmware(name: str, spec: dict[str, Any]) -> None:
    elf = firmware(name)
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    want = spec["exit"]
    io = spec.get("io")
    args = ["--io", str(expected_toml().parent / io)] if isinstance(io, str) else []
    sim = run_sim(elf, *args, timeout=120)
    assert not sim.timed_out and sim.status == want, f"cairn-sim: want exit {want}\n{sim.describe()}"
    if spec.get("qemu", True):
        qemu = run_qemu(elf, timeout=60)
        assert not qemu.timed_out and qemu.status == want, f"QEMU: want exit {want}\n{qemu.describe()}"
        assert sim.stdout == qemu.stdout, (
            f"stdout differs between cairn-sim and QEMU\n{sim.describe()}\n=== QEMU\n{qemu.describe()}"
        )
