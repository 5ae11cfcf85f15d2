"""SimBed's P-IPC, FIR, UP, DOWN, ADPCM and G721 jobs (kernel/models/rtos/) checked bit for bit
against their Python references (cairn.workloads.fir, signal, ima_adpcm, g721): what each task
wrote to its output port, in order, over a short run of two tasks (each keeps its own state)."""

from __future__ import annotations

import struct
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.paths import firmware_dir
from cairn.runners import run_sim
from cairn.workloads import TaskSet, fir, g721, ima_adpcm, run_task_set, signal

RUN_MS = 300  # about 300 outputs per task: the test signal's envelope rises and falls once

REFERENCES: dict[str, Callable[[int, int], list[int]]] = {
    "pipc": lambda n, _r: fir.pipc(n),
    "fir": lambda n, _r: fir.fir(n),
    "adpcm": lambda n, _r: ima_adpcm.encode(signal.signal(i) for i in range(n)),
    "g721": lambda n, _r: g721.decode(signal.g721_code(i) for i in range(n)),
    "up": lambda n, r: signal.up(n, r),
    "down": lambda n, r: signal.down(n, r),
}


MODELS = ("limit", "cairn", "tinyos", "coop", "nos", "mantis")
CASES = [("pipc", 1), ("fir", 1), ("adpcm", 1), ("g721", 1), ("up", 4), ("down", 8), ("up", 2)]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("kind", "ratio"), CASES)
def test_job_outputs_match_the_reference(tmp_path: Path, model: str, kind: str, ratio: int) -> None:
    """Each model schedules a task's input and output jobs separately, in its own order where
    both are due: the outputs are the same under every one."""
    ts = TaskSet(tasks=2, period_ms=1, kind=kind, ratio=ratio, run_ms=RUN_MS)
    r = run_task_set(model, ts, tmp_path, values=True)
    for got in r.values:
        assert len(got) >= RUN_MS // ts.output_period_ms - 2, (kind, len(got))
        assert list(got) == REFERENCES[kind](len(got), ratio), (model, kind)
    assert len(set(r.values[0])) >= 12, r.values[0][:40]  # the signal exercises the job (16 codes at most)


def test_the_signal_spans_silence_to_full_scale() -> None:
    xs = [signal.signal(n) for n in range(256)]
    assert max(map(abs, xs[:4])) < 1024 and max(map(abs, xs[100:156])) > 16384


def test_adpcm_matches_cpythons_ima_encoder() -> None:
    """CPython's audioop.lin2adpcm (until 3.13) is an independent IMA ADPCM encoder: same codes,
    two to a byte, the first in the high nibble."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        audioop = pytest.importorskip("audioop")
    xs = [signal.signal(n) for n in range(2000)]
    packed, _ = audioop.lin2adpcm(struct.pack(f"<{len(xs)}h", *xs), 2, None)
    theirs = [nibble for byte in packed for nibble in (byte >> 4, byte & 0xF)]
    assert ima_adpcm.encode(xs) == theirs


def test_g721_stays_in_the_standards_16_bit_arithmetic() -> None:
    """Long runs of the largest codes push the sums past 16 bits, where the standard's two's
    complement arithmetic wraps: the output stays 4 times a 16-bit sample."""
    for code in (7, 9):
        assert all(-(1 << 17) <= v < (1 << 17) and v % 4 == 0 for v in g721.decode([code] * 400)), code


def test_g721_follows_its_codes() -> None:
    """Large codes of one sign drive the decoded signal that way, growing; zeros leave it at rest."""
    up, down = g721.decode([7] * 16), g721.decode([9] * 16)
    assert all(a < b for a, b in zip(up, up[1:])) and up[-1] > 8000
    assert all(a > b for a, b in zip(down, down[1:])) and down[0] < 0
    assert max(map(abs, g721.decode([0] * 40))) < 64


def test_adpcm_codes_track_the_signal() -> None:
    """Decoding the codes with the same step rules follows a slow ramp within a few steps."""
    ramp = [i * 40 for i in range(200)]
    predicted, index = 0, 0
    for x, code in zip(ramp, ima_adpcm.encode(ramp)):
        step = ima_adpcm.STEPS[index]
        moved = (step >> 3) + sum(step >> s for s, bit in ((0, 4), (1, 2), (2, 1)) if code & bit)
        predicted += -moved if code & 8 else moved
        index = max(0, min(88, index + ima_adpcm.INDEX_STEP[code & 7]))
        assert abs(predicted - x) <= 4 * ima_adpcm.STEPS[index] + 64


def test_a_ratio_is_refused_where_it_makes_no_sense() -> None:
    with pytest.raises(ValueError, match="ratio"):
        TaskSet(tasks=1, period_ms=1, kind="up", ratio=3).check()
    with pytest.raises(ValueError, match="ratio"):
        TaskSet(tasks=1, period_ms=1, kind="fir", ratio=2).check()


@pytest.mark.parametrize(("kind_value", "why"), [
    (2, "IN[2] (kind): UP and DOWN add 256 times a ratio of 2, 4 or 8"),  # UP without its ratio
    (3 + 3 * 256, "IN[2] (kind): UP and DOWN add 256 times a ratio of 2, 4 or 8"),
    (4 + 2 * 256, "IN[2] (kind): only UP and DOWN take a ratio"),
    (6, "IN[2] (kind) must be 0 P-IPC, 1 FIR, 2 UP, 3 DOWN, 4 ADPCM or 5 G721"),
])
def test_firmware_refuses_a_bad_kind(tmp_path: Path, kind_value: int, why: str) -> None:
    text = TaskSet(tasks=1, period_ms=1, kind="up", ratio=2).scenario()
    block = 'index = 2\ndeliver = [{ at = "0s", value = 514 }]'
    assert block in text
    scenario = tmp_path / "bad.toml"
    scenario.write_text(text.replace(block, f'index = 2\ndeliver = [{{ at = "0s", value = {kind_value} }}]'))
    res = run_sim(firmware_dir() / "rtos-limit.elf", "--device", str(scenario), "--max-time", "10ms")
    assert res.status == 2 and res.text() == f"rtos: parameter block: {why}\n", res.describe()


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("kind", "ratio"), [("up", 2), ("adpcm", 1), ("pipc", 1)])
def test_eight_tasks_keep_every_job(tmp_path: Path, model: str, kind: str, ratio: int) -> None:
    """Eight tasks' sixteen jobs due at once fit each model's queue (Cairn's message pool,
    TinyOS's eight posts): every output comes, right."""
    ts = TaskSet(tasks=8, period_ms=4, kind=kind, ratio=ratio, run_ms=RUN_MS)
    r = run_task_set(model, ts, tmp_path, values=True)
    assert r.outputs >= ts.tasks * (RUN_MS // ts.output_period_ms - 1), (model, r.outputs)
    for got in r.values:
        assert list(got) == REFERENCES[kind](len(got), ratio), model


def test_mantis_overload_keeps_the_main_stack(tmp_path: Path) -> None:
    """Four G.721 tasks every millisecond with the background load keep a MANTIS thread ready
    at nearly every return to the message level. Each such return once left a dispatch frame
    on the main stack under the thread it switched to (the switch was asked from inside the
    return's trampoline, not after it), so the main stack grew a frame a round until it ran
    over .bss and the core locked up, about 0.9 s in. Now the run ends normally."""
    ts = TaskSet(tasks=4, period_ms=1, kind="g721", background=True, run_ms=1024)
    r = run_task_set("mantis", ts, tmp_path)  # raises RunError on a lock-up or a fault
    assert r.outputs > 0 and r.apipc_answered == r.apipc, r.line()
