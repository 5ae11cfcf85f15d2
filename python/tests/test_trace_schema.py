"""The `cairn-sim run --trace FILE.json` output validates against docs/trace.schema.json
(JSON Schema draft 2020-12, the Chrome trace-event format restricted to what
sim/cairn-sim/src/trace.rs emits), and the schema is strict enough to reject a corrupted
trace."""

from __future__ import annotations

import copy
import json
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import cairn
from cairn.paths import expected_toml, firmware, firmware_dir, repo_root
from cairn.runners import TIMEOUT_STATUS, run_sim

Trace = dict[str, Any]


def _schema_path() -> Path:
    return repo_root() / "docs" / "trace.schema.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(_schema_path().read_text())
    Draft202012Validator.check_schema(schema)  # the schema itself is valid draft 2020-12
    return Draft202012Validator(schema)


def _errors(validator: Draft202012Validator, trace: object) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(trace)]


def _run_trace(out: Path, elf: Path, *args: str, status: int) -> Trace:
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    result = run_sim(elf, "--trace", str(out), *args, timeout=120)
    assert not result.timed_out and result.status == status, result.describe()
    trace: Trace = json.loads(out.read_text())
    return trace


def _phases(trace: Trace) -> Counter[str]:
    return Counter(str(e["ph"]) for e in trace["traceEvents"])


def _names(trace: Trace, ph: str) -> set[str]:
    return {str(e["name"]) for e in trace["traceEvents"] if e["ph"] == ph}


def _expected_exit(name: str) -> int:
    with expected_toml().open("rb") as f:
        return int(tomllib.load(f)[name]["exit"])


@pytest.fixture(scope="module")
def hello_trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    """hello-8 with the stm32l053 energy profile: task slices, deep sleep and wake-up
    slices, power-state and supply-current counters, kernel-event and interrupt instants."""
    out = tmp_path_factory.mktemp("trace") / "hello-8.json"
    return _run_trace(out, firmware_dir() / "hello-8.elf", "--energy", "stm32l053", status=0)


def test_hello_energy_trace_validates(validator: Draft202012Validator, hello_trace: Trace) -> None:
    assert _errors(validator, hello_trace) == []
    # The run exercises every phase the schema describes, so the check is not vacuous.
    assert set(_phases(hello_trace)) == {"M", "B", "E", "X", "i", "C"}
    assert {"task 1", "task 2"} <= _names(hello_trace, "B")
    assert {"deep sleep", "wake-up"} <= _names(hello_trace, "X")
    assert _names(hello_trace, "C") == {"power state", "supply current (uA)"}


@pytest.mark.parametrize("name", ["exceptions", "semihosting"])
def test_firmware_test_trace_validates(validator: Draft202012Validator, tmp_path: Path, name: str) -> None:
    """kernel/tests/sim: `exceptions` takes faults (fault instants, HardFault slices) and
    exits 0; `semihosting` exits 3 with nothing but the fixed tracks."""
    trace = _run_trace(tmp_path / f"{name}.json", firmware(name), status=_expected_exit(name))
    assert _errors(validator, trace) == []
    if name == "exceptions":
        faults = [e for e in trace["traceEvents"] if e["ph"] == "i" and e["name"] == "fault"]
        assert faults and all(isinstance(e["args"]["what"], str) for e in faults)
        assert "HardFault" in _names(trace, "B")


def test_rtos_task_trace_validates(validator: Draft202012Validator, tmp_path: Path) -> None:
    """rtos_tasks followed with --rtos freertos: one track per task, named after it, whose
    slices carry the control block's address; a bad address is rejected."""
    trace = _run_trace(tmp_path / "rtos.json", firmware("rtos_tasks"), "--rtos", "freertos", status=0)
    assert _errors(validator, trace) == []
    assert {"alpha", "beta", "gamma"} <= _names(trace, "B")
    begin = _first(trace, "B", "alpha")
    assert begin["args"]["tcb"].startswith("0x2")
    begin["args"]["tcb"] = 536870912
    assert _errors(validator, trace) != []


def _run_device_trace(device: Path, *args: str, status: int) -> Trace:
    result = cairn.run(device, ["trace"], options=args, timeout=120)
    assert result.status == status, result.describe_failure()
    return result.trace_json


def test_device_trace_validates(validator: Draft202012Validator, tmp_path: Path) -> None:
    """A device file (docs/device.md, 'Outputs'): a process per processor, bus frames as
    slices and flows; with power control and fault rules, 'off' slices and injected faults."""
    for elf in ("device-broadcast.elf", "device-stream.elf", "hello-8.elf"):
        assert (firmware_dir() / elf).is_file(), f"{elf} is missing: `make build` builds it"
    five = _run_device_trace(repo_root() / "experiments" / "devices" / "five-modules.toml", status=0)
    assert _errors(validator, five) == []
    assert {"s", "f"} <= set(_phases(five))
    assert len([e for e in five["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]) == 5
    fw = firmware_dir()
    device = tmp_path / "faults.toml"
    device.write_text(
        f"""name = "faults"
[[processor]]
name = "tx"
firmware = "{fw / 'device-stream.elf'}"
clock = "32MHz"
[[processor]]
name = "rx"
firmware = "{fw / 'device-stream.elf'}"
clock = "32MHz"
[[processor]]
name = "os"
firmware = "{fw / 'hello-8.elf'}"
clock = "25MHz"
[processor.energy]
profile = "stm32l053"
[[fault]]
action = "reset"
processor = "os"
at = "2ms"
[[fault]]
action = "power_off"
processor = "rx"
at = "100us"
[[fault]]
action = "drop"
every = 3
src = "tx"
"""
    )
    faults = _run_device_trace(device, "--max-time", "60ms", status=TIMEOUT_STATUS)
    assert _errors(validator, faults) == []
    assert "off" in _names(faults, "X")
    assert "injected fault" in _names(faults, "i")


def test_limit_trace_with_open_slices_validates(validator: Draft202012Validator, tmp_path: Path) -> None:
    """bench_wfi stopped by --max-time: plain sleep slices, slices still open are closed."""
    trace = _run_trace(
        tmp_path / "wfi.json", firmware_dir() / "bench_wfi.elf", "--max-time", "5ms", status=TIMEOUT_STATUS
    )
    assert _errors(validator, trace) == []
    assert "sleep" in _names(trace, "X")


def test_global_instants_are_rejected(validator: Draft202012Validator, hello_trace: Trace) -> None:
    """The trace is streamed and never truncated: the old global 'trace truncated' instant
    (and any global-scope instant) is not part of the format any more."""
    trace = copy.deepcopy(hello_trace)
    trace["traceEvents"].append(
        {
            "ph": "i", "s": "g", "pid": 1, "tid": 1, "ts": 1000.5,
            "name": "trace truncated", "args": {"dropped_events": 7},
        }  # fmt: skip
    )
    assert _errors(validator, trace) != []


def _first(trace: Trace, ph: str, name: str | None = None) -> dict[str, Any]:
    for e in trace["traceEvents"]:
        if e["ph"] == ph and (name is None or e["name"] == name):
            ev: dict[str, Any] = e
            return ev
    raise AssertionError(f"no {ph!r} event named {name!r} in the trace")


def _drop_ts(t: Trace) -> None:
    del _first(t, "B")["ts"]


def _counter_arg_string(t: Trace) -> None:
    _first(t, "C", "supply current (uA)")["args"]["uA"] = "3475"


def _counter_arg_object(t: Trace) -> None:
    _first(t, "C", "power state")["args"] = {"state": {"value": 0}}


def _power_state_out_of_range(t: Trace) -> None:
    _first(t, "C", "power state")["args"]["state"] = 4


def _negative_ts(t: Trace) -> None:
    _first(t, "E")["ts"] = -1.0


def _negative_dur(t: Trace) -> None:
    _first(t, "X")["dur"] = -0.5


def _ts_string(t: Trace) -> None:
    _first(t, "i")["ts"] = "12.5"


def _tid_not_integer(t: Trace) -> None:
    _first(t, "B")["tid"] = 1.5


def _pid_string(t: Trace) -> None:
    _first(t, "X")["pid"] = "1"


def _unknown_phase(t: Trace) -> None:
    _first(t, "E")["ph"] = "Z"


def _missing_phase(t: Trace) -> None:
    del _first(t, "E")["ph"]


def _extra_key(t: Trace) -> None:
    _first(t, "E")["cat"] = "extra"


def _instant_without_scope(t: Trace) -> None:
    del _first(t, "i")["s"]


def _complete_without_dur(t: Trace) -> None:
    del _first(t, "X")["dur"]


def _thread_name_without_tid(t: Trace) -> None:
    del _first(t, "M", "thread_name")["tid"]


def _kernel_event_bad_args(t: Trace) -> None:
    _first(t, "i", "event 2")["args"] = {"a": 1}


def _events_not_array(t: Trace) -> None:
    t["traceEvents"] = {"0": t["traceEvents"][0]}


def _missing_events(t: Trace) -> None:
    del t["traceEvents"]


CORRUPTIONS: dict[str, Callable[[Trace], None]] = {
    "slice without ts": _drop_ts,
    "counter arg is a string": _counter_arg_string,
    "counter arg is an object": _counter_arg_object,
    "power state out of range": _power_state_out_of_range,
    "negative ts": _negative_ts,
    "negative dur": _negative_dur,
    "ts is a string": _ts_string,
    "tid not an integer": _tid_not_integer,
    "pid is a string": _pid_string,
    "unknown phase": _unknown_phase,
    "event without ph": _missing_phase,
    "unexpected key": _extra_key,
    "instant without scope": _instant_without_scope,
    "complete event without dur": _complete_without_dur,
    "thread_name without tid": _thread_name_without_tid,
    "kernel event args incomplete": _kernel_event_bad_args,
    "traceEvents not an array": _events_not_array,
    "no traceEvents": _missing_events,
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_schema_rejects_corrupted_trace(validator: Draft202012Validator, hello_trace: Trace, corruption: str) -> None:
    trace = copy.deepcopy(hello_trace)
    CORRUPTIONS[corruption](trace)
    assert _errors(validator, trace), f"schema accepted a trace with: {corruption}"
