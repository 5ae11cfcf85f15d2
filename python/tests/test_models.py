"""The compared execution models (kernel/models/, docs/models.md) as firmware on cairn-sim:
build/fw/model-<m>.elf runs the shared workload (a periodic sensing job and forwarding
work per stimulus interrupt) on the TinyOS-like model, the Echidna-style cooperative
executive, NOS, the LIMIT harness and the MANTIS-like threads, and checks its own counts. cairn-sim is exact, so
the transcript is the same on every run."""

from __future__ import annotations

import re

import pytest

from cairn.paths import firmware_dir
from cairn.runners import run_qemu, run_sim

MODELS = ["tinyos", "coop", "nos", "limit", "mantis"]
STATS = re.compile(r"sensed=(\d+) forwarded=(\d+) max_forward_delay_us=(\d+) max_sense_late_us=(\d+)")
#: workload.h: RUN_MS 104, SENSE_MS 10, STIM_US 3000.
SENSED = 104 // 10
STIMULI = 104_000 // 3000


@pytest.mark.parametrize("model", MODELS)
def test_model_example_on_sim(model: str) -> None:
    elf = firmware_dir() / f"model-{model}.elf"
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    result = run_sim(elf, timeout=120)
    text = result.text()
    assert not result.timed_out and result.status == 0, result.describe()
    assert "FAIL" not in text and text.rstrip().endswith("PASS"), result.describe()
    assert text.startswith(f"# test model-{model}\n"), result.describe()
    m = STATS.search(text)
    assert m is not None, result.describe()
    assert (int(m.group(1)), int(m.group(2))) == (SENSED, STIMULI), result.describe()
    again = run_sim(elf, timeout=120)
    assert again.stdout == result.stdout, "cairn-sim runs differ"


def test_nos_polls_with_interrupts_masked() -> None:
    """NOS takes no interrupt: every stimulus is a LOW interrupt handled by the control loop."""
    result = run_sim(firmware_dir() / "model-nos.elf", timeout=120)
    m = re.search(r"low_irqs=(\d+) sleeps=(\d+) missed=(\d+)", result.text())
    assert m is not None, result.describe()
    assert int(m.group(1)) == STIMULI and int(m.group(3)) == 0, result.describe()


def _max_forward_delay_us(model: str) -> int:
    result = run_sim(firmware_dir() / f"model-{model}.elf", timeout=120)
    m = STATS.search(result.text())
    assert m is not None, result.describe()
    return int(m.group(3))


def test_mantis_forwarding_preempts_sensing() -> None:
    """The paper's point for MANTIS: the forwarding thread, a level above the sensing one,
    preempts it, so a packet never waits for a sensing job as it does under the models that
    run work to completion (and under LIMIT, whose handlers do not nest)."""
    result = run_sim(firmware_dir() / "model-mantis.elf", timeout=120)
    m = re.search(r"threads switches=(\d+) resumed=(\d+) idle_passes=(\d+) overruns=(\d+)", result.text())
    assert m is not None, result.describe()
    assert int(m.group(2)) == STIMULI + 1 and int(m.group(4)) == 0, result.describe()
    mantis = _max_forward_delay_us("mantis")
    for other in ["tinyos", "coop", "nos", "limit"]:
        assert mantis < _max_forward_delay_us(other), other


@pytest.mark.xfail(strict=True, reason="the examples print what they measured in time (the worst "
                   "forwarding delay and sensing lateness, the scheduler's sleeps, passes, dispatches "
                   "and switches) and check timing (every packet forwarded before the next arrives, no "
                   "late release): QEMU is not cycle-accurate and its mps2-an385 runs the timers on the "
                   "host's clock, so those lines differ, and some checks fail there; with -icount the "
                   "SysTick stimuli still fall behind timer1's clock. The same transcript needs examples "
                   "whose printed lines do not depend on time, the timing figures taken from "
                   "cairn-sim's trace instead (the models' metric-<model>.elf already run the same on "
                   "both: test_models_metric.py)")
@pytest.mark.parametrize("model", MODELS)
def test_model_example_on_qemu_prints_what_it_prints_on_sim(model: str) -> None:
    elf = firmware_dir() / f"model-{model}.elf"
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()
    assert qemu.stdout == sim.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"
