"""cairn-sim's main-stack guard (docs/cli.md `--stack-check`, the stats' `stack`): a firmware
that recurses past `__stack_limit` gets one warning and `overflowed` in its stats and runs on,
or with `--stack-check=fault` (or a scenario's `[stack] check`) stops at the push that crossed
the limit with exit status 123; the kernel's example firmware stays above its limit, with its
low-water mark reported; and watching adds no cycle."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cairn import run
from cairn import scenario as sc
from cairn.experiment.result import Result
from cairn.paths import firmware, firmware_dir

EXIT_STACK = 123
OVERFLOW = re.compile(
    r"main stack overflow: MSP 0x(?P<msp>[0-9a-f]{8}) below __stack_limit 0x(?P<limit>[0-9a-f]{8}) "
    r"at pc 0x[0-9a-f]{8} \(recurse\+0x[0-9a-f]+\)$"
)


def _symbol(elf: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", "--defined-only", str(elf)], capture_output=True, text=True, check=True)
    values = [int(line.split()[0], 16) for line in out.stdout.splitlines() if line.split()[-1] == name]
    assert len(values) == 1, f"{elf}: {name} defined {len(values)} times"
    return values[0]


def _recursing() -> Path:
    elf = firmware("stack_overflow")
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    return elf


def _stack(r: Result) -> dict[str, Any]:
    rows = r.stack.to_dict("records")
    assert len(rows) == 1, f"one processor's stack: {rows}\n{r.describe_failure()}"
    return {str(k): v for k, v in rows[0].items()}


def test_an_overflow_warns_once_and_the_run_goes_on() -> None:
    elf = _recursing()
    r = run(elf)
    assert r.status == 0, r.describe_failure()
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cairn-sim: warning: "), lines
    m = OVERFLOW.search(lines[0])
    assert m, lines[0]
    st = _stack(r)
    limit = _symbol(elf, "__stack_limit")
    assert (st["limit"], int(m["limit"], 16)) == (limit, limit)
    assert st["overflowed"] is True and st["check"] == "warn"
    assert st["low_water"] <= int(m["msp"], 16) < limit
    assert st["peak_bytes"] == st["top"] - st["low_water"]
    assert "PASS" in r.console


@pytest.mark.parametrize("how", ["option", "scenario"])
def test_fault_stops_at_the_push_with_its_own_status(how: str) -> None:
    elf = _recursing()
    if how == "option":
        r = run(elf, options=("--stack-check=fault",))
    else:
        r = run(sc.Scenario(firmware=str(elf), stack=sc.Stack(check="fault")))
    assert r.status == EXIT_STACK, r.describe_failure()
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cairn-sim: main stack overflow: "), lines
    m = OVERFLOW.search(lines[0])
    assert m, lines[0]
    st = _stack(r)
    assert st["overflowed"] is True and st["check"] == "fault"
    assert st["low_water"] == int(m["msp"], 16), "stopped at the first push below the limit"
    assert r.stats_json["exit_status"] == EXIT_STACK
    assert "PASS" not in r.console, "the run ended before the firmware did"


def test_a_scenario_limit_replaces_the_elf_symbol(tmp_path: Path) -> None:
    elf = _recursing()
    # Half a KiB below the ELF's limit: the recursion stops above it.
    lower = _symbol(elf, "__stack_limit") - 512
    scenario = tmp_path / "s.toml"
    scenario.write_text(f'firmware = "{elf}"\n[stack]\nlimit = "0x{lower:08x}"\ncheck = "fault"\n')
    assert sc.Scenario.load(scenario).stack == sc.Stack(limit=f"0x{lower:08x}", check="fault")
    r = run(scenario)
    assert r.status == 0 and r.stderr == b"", r.describe_failure()
    st = _stack(r)
    assert (st["limit"], st["overflowed"]) == (lower, False)


def test_off_watches_nothing_and_watching_adds_no_cycle() -> None:
    elf = _recursing()
    watched, off = run(elf), run(elf, options=("--stack-check", "off"))
    assert off.status == 0 and off.stderr == b"", off.describe_failure()
    assert "stack" not in off.stats_json and off.stack.empty
    for key in ("cycles", "instructions", "sleep_cycles"):
        assert watched.stats_json[key] == off.stats_json[key], key


def test_bad_stack_check_is_a_usage_error() -> None:
    r = run(_recursing(), options=("--stack-check", "loud"))
    assert r.status == 2
    assert r.stderr.decode().strip() == "cairn-sim: --stack-check: unknown stack check 'loud' (known: warn, fault, off)"


@pytest.mark.parametrize("name", ["hello", "kernel-threads", "thread-metric", "kernel-dispatch_storm"])
def test_kernel_firmware_stays_above_its_limit(name: str) -> None:
    elf = firmware_dir() / f"{name}.elf"
    assert elf.is_file(), f"{elf} is missing: `make build` builds it"
    r = run(elf, max_time="1s")
    assert r.ok, r.describe_failure()
    assert b"stack overflow" not in r.stderr
    st = _stack(r)
    assert st["limit"] == _symbol(elf, "__stack_limit")
    assert st["top"] == _symbol(elf, "__stack_top")
    assert st["overflowed"] is False
    assert st["limit"] <= st["low_water"] < st["top"], "a low-water mark inside the stack"
    assert 0 < st["peak_bytes"] == st["top"] - st["low_water"]


def test_a_device_reports_each_processor_and_names_the_one_that_overflowed(tmp_path: Path) -> None:
    deep, calm = _recursing(), firmware_dir() / "device-pingpong.elf"
    device = tmp_path / "d.toml"
    device.write_text(f'name = "d"\n[bus]\nslot = "8us"\n'
                      f'[[processor]]\nname = "calm"\nfirmware = "{calm}"\n'
                      f'[[processor]]\nname = "deep"\nfirmware = "{deep}"\n[processor.stack]\ncheck = "fault"\n')
    r = run(device, max_time="50ms")
    assert r.status == EXIT_STACK, r.describe_failure()
    last = r.stderr.decode().splitlines()[-1]
    assert last.startswith("cairn-sim: deep: main stack overflow: ") and OVERFLOW.search(last), last
    stacks = r.stack.set_index("processor")
    assert list(stacks.index) == ["calm", "deep"]
    assert stacks.loc["deep", "overflowed"] and not stacks.loc["calm", "overflowed"]
    assert r.processor_stats["deep"]["exit_status"] == EXIT_STACK
