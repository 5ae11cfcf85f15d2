"""The compared execution models (kernel/models/, docs/models.md) as firmware on cairn-sim and
QEMU: build/fw/model-<m>.elf runs the shared workload (a periodic sensing job and forwarding
work per stimulus interrupt) on the TinyOS-like model, the Echidna-style cooperative
executive, NOS, the LIMIT harness and the MANTIS-like threads, and checks its own counts.
The firmware prints only behaviour, so its transcript is the same on both; the timing is
read here from cairn-sim's waveform (the marker pins each job toggles as it starts, and
those set as the clock and the stimuli start: SysTick's period is exact, so stimulus k
arrives (k + 1) × STIM_US after) and its io-log (the counters a model publishes on output
ports), which QEMU does not have."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import pytest

import cairn
from cairn.paths import firmware_dir
from cairn.runners import run_qemu, run_sim

MODELS = ["tinyos", "coop", "nos", "limit", "mantis"]
COUNTS = re.compile(r"sensed=(\d+) stimuli=(\d+) forwarded=(\d+)")
#: workload.h: RUN_MS 104, SENSE_MS 10, STIM_US 3000.
SENSE_US = 10_000
STIM_US = 3000
SENSED = 104 // 10
STIMULI = 104_000 // STIM_US
#: workload.h's marker pins.
PIN_FORWARD, PIN_SENSE, PIN_CLOCK, PIN_STIMULUS = 0, 1, 2, 3
#: What each example publishes on output port n (its example.c).
PUBLISHED = {
    "tinyos": ["sleeps", "posted"],
    "coop": ["dispatched", "late", "max_batch"],
    "nos": ["passes", "sleeps", "missed"],
    "limit": [],
    "mantis": ["switches", "idle_passes", "overruns", "resumed", "coalesced"],
}


def _elf(model: str) -> str:
    elf = firmware_dir() / f"model-{model}.elf"
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    return str(elf)


@dataclass(frozen=True)
class Timing:
    """One cairn-sim run's timing, in microseconds."""

    arrivals: list[float]  # stimulus k was due
    forwards: list[float]  # forwarding k started
    senses: list[float]  # sensing job n started
    clock_start: float
    published: dict[str, int]

    def forward_delays(self) -> list[float]:
        return [f - a for a, f in zip(self.arrivals, self.forwards, strict=True)]

    def sense_lateness(self) -> list[float]:
        return [s - (self.clock_start + (n + 1) * SENSE_US) for n, s in enumerate(self.senses)]


@cache
def timing(model: str) -> Timing:
    result = cairn.run(_elf(model), ["vcd", "io_log"], timeout=120)
    assert result.status == 0, f"model-{model}: status {result.status}"
    vcd = result.vcd

    def changes(signal: str, to: int | None = None) -> list[float]:
        rows = vcd[vcd.signal == signal].sort_values("time_ps", kind="stable")
        times, before = [], None
        for t, v in zip(rows.time_ps, rows.value, strict=True):
            if before is not None and v != before and (to is None or v == to):
                times.append(t / 1e6)
            before = v
        return times

    io = result.io
    outputs = io[io.kind == "output"]
    last = {str(n): int(v) for n, v in zip(outputs.name, outputs.value, strict=True)}
    published = {name: last[f"out{n}"] for n, name in enumerate(PUBLISHED[model])}
    (clock_start,) = changes(f"cairn.gpio.gpio{PIN_CLOCK}", to=1)
    (stimulus_start,) = changes(f"cairn.gpio.gpio{PIN_STIMULUS}", to=1)
    return Timing(
        arrivals=[stimulus_start + (k + 1) * STIM_US for k in range(STIMULI)],
        forwards=changes(f"cairn.gpio.gpio{PIN_FORWARD}"),
        senses=changes(f"cairn.gpio.gpio{PIN_SENSE}"),
        clock_start=clock_start,
        published=published,
    )


@pytest.mark.parametrize("model", MODELS)
def test_model_example_on_sim(model: str) -> None:
    result = run_sim(_elf(model), timeout=120)
    text = result.text()
    assert not result.timed_out and result.status == 0, result.describe()
    assert "FAIL" not in text and text.rstrip().endswith("PASS"), result.describe()
    assert text.startswith(f"# test model-{model}\n"), result.describe()
    m = COUNTS.search(text)
    assert m is not None, result.describe()
    assert tuple(int(g) for g in m.groups()) == (SENSED, STIMULI, STIMULI), result.describe()
    again = run_sim(_elf(model), timeout=120)
    assert again.stdout == result.stdout, "cairn-sim runs differ"


@pytest.mark.parametrize("model", MODELS)
def test_model_timing_on_sim(model: str) -> None:
    """What the workload implies in time, from the waveform: every stimulus arrived and was
    forwarded before the next one arrived, and every sensing job started before the next
    one was due."""
    t = timing(model)
    assert len(t.arrivals) == len(t.forwards) == STIMULI, (len(t.arrivals), len(t.forwards))
    assert len(t.senses) == SENSED
    for k, (arrival, forward) in enumerate(zip(t.arrivals, t.forwards, strict=True)):
        assert arrival <= forward < arrival + STIM_US, (k, arrival, forward)
        if k + 1 < STIMULI:
            assert forward < t.arrivals[k + 1], (k, forward, t.arrivals[k + 1])
    assert all(0 <= late < SENSE_US for late in t.sense_lateness()), t.sense_lateness()


def test_models_publish_no_late_work() -> None:
    """The models' own time-dependent counters, on cairn-sim: no late release (coop), no
    missed deadline (NOS), no sensing overrun (MANTIS); one event per poll (coop); every
    task posted is a job of the workload (TinyOS); each scheduler slept between events."""
    assert timing("coop").published["late"] == 0
    assert timing("coop").published["max_batch"] == 1
    assert timing("nos").published["missed"] == 0
    assert timing("mantis").published["overruns"] == 0
    assert timing("tinyos").published["posted"] == SENSED + STIMULI
    assert timing("tinyos").published["sleeps"] > 0 and timing("nos").published["sleeps"] > 0


def test_nos_polls_with_interrupts_masked() -> None:
    """NOS takes no interrupt: every stimulus is a LOW interrupt handled by the control loop,
    and the sensing jobs are its HARD runs."""
    result = run_sim(_elf("nos"), timeout=120)
    m = re.search(r"hard=(\d+) low_irqs=(\d+)", result.text())
    assert m is not None, result.describe()
    assert (int(m.group(1)), int(m.group(2))) == (SENSED, STIMULI), result.describe()
    assert timing("nos").published["missed"] == 0


def test_mantis_forwarding_preempts_sensing() -> None:
    """The paper's point for MANTIS: the forwarding thread, a level above the sensing one,
    preempts it, so a packet never waits for a sensing job as it does under the models that
    run work to completion (and under LIMIT, whose handlers do not nest)."""
    mantis = timing("mantis")
    assert mantis.published["resumed"] == STIMULI and mantis.published["overruns"] == 0
    worst = max(mantis.forward_delays())
    for other in ["tinyos", "coop", "nos", "limit"]:
        assert worst < max(timing(other).forward_delays()), other


@pytest.mark.parametrize("model", MODELS)
def test_model_example_on_qemu_prints_what_it_prints_on_sim(model: str) -> None:
    sim = run_sim(_elf(model), timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    qemu = run_qemu(_elf(model), timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()
    assert qemu.stdout == sim.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"
