"""The Thread-Metric-style figures per execution model (python/cairn/bench/models_metric.py,
kernel/models/metric/): each model has exactly the figures of its concepts, ordered as the
models' designs imply (docs/models.md, "Thread-Metric per model"), each firmware prints the
same on QEMU as on cairn-sim, the table in docs/models.md and each model's block on its page
(docs/models/<model>.md) are the script's, and the kernel bench's JSON gets them under `models`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.bench import models_metric
from cairn.bench.models_metric import NA
from cairn.paths import firmware_dir, repo_root, sim_binary
from cairn.runners import run_qemu, run_sim

#: the figures each model has a concept for (the rest are n/a)
CONCEPTS = {
    "limit": {"interrupt_processing", "interrupt_preemption"},
    "tinyos": {"cooperative_switch", "interrupt_processing"},
    "coop": {"cooperative_switch", "interrupt_processing", "synchronisation"},
    "nos": {"cooperative_switch", "interrupt_processing"},
    "mantis": {"cooperative_switch", "preemptive_switch", "interrupt_processing", "interrupt_preemption",
               "synchronisation", "memory_allocation"},
    "cairn": {key for key, _, _ in models_metric.FIGURES},
}  # fmt: skip


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    for m in models_metric.MODELS:
        elf = firmware_dir() / f"metric-{m}.elf"
        assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    return models_metric.measure(str(sim_binary()), firmware_dir())


def test_each_model_has_the_figures_of_its_concepts(models: dict[str, Any]) -> None:
    figs = models["figures"]
    assert set(figs) == set(CONCEPTS)
    for model, have in CONCEPTS.items():
        for key, _, _ in models_metric.FIGURES:
            v = figs[model][key]
            if key in have:
                assert isinstance(v, int) and v > 0, (model, key, v)
            else:
                assert v == NA, (model, key, v)
    assert set(models["method"]) == {"cycles", *(key for key, _, _ in models_metric.FIGURES)}


def test_figures_are_ordered_as_the_designs_imply(models: dict[str, Any]) -> None:
    f = models["figures"]
    irq = {m: f[m]["interrupt_processing"] for m in CONCEPTS}
    # No OS between the interrupt and the work.
    assert irq["limit"] == min(irq.values()), irq
    # Hardware nesting, then a return into the handler on the one stack, then a thread switch.
    assert f["limit"]["interrupt_preemption"] <= f["cairn"]["interrupt_preemption"] \
        <= f["mantis"]["interrupt_preemption"], f
    # A preempting handler is a function call; a preempting thread a context switch.
    assert f["cairn"]["preemptive_switch"] < f["mantis"]["preemptive_switch"], f
    # Run-to-completion units keep no context; a FIFO is the cheapest choice of the next.
    rtc = [f[m]["cooperative_switch"] for m in ("tinyos", "coop", "nos")]
    assert max(rtc) < f["mantis"]["cooperative_switch"], f
    assert f["tinyos"]["cooperative_switch"] == min(rtc), f
    # A port's signal and take is a counter; the others' synchronisation is a semaphore.
    sync = [f[m]["synchronisation"] for m in CONCEPTS if f[m]["synchronisation"] != NA]
    assert f["coop"]["synchronisation"] == min(sync), f
    # The layer's threads allocate from Cairn's heap.
    assert abs(f["mantis"]["memory_allocation"] - f["cairn"]["memory_allocation"]) <= 8, f


@pytest.mark.parametrize("model", models_metric.MODELS)
def test_the_firmware_prints_the_same_on_qemu(model: str) -> None:
    """Each model's runtime (and Cairn's kernel under mantis and cairn) runs on QEMU's
    mps2-an385 as on cairn-sim: the transcript holds only its checks, no timing."""
    elf = firmware_dir() / f"metric-{model}.elf"
    sim = run_sim(elf, timeout=60)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()
    assert qemu.stdout == sim.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


def test_the_table_in_the_docs_is_the_scripts(models: dict[str, Any]) -> None:
    doc = (repo_root() / "docs" / "models.md").read_text()
    block = models_metric.render_table(models)
    assert block in doc, "docs/models.md's table is stale: python -m cairn.bench.models_metric " \
                         "--sim build/bin/cairn-sim --write-doc docs/models.md"


@pytest.mark.parametrize("model", models_metric.MODELS)
def test_each_model_page_has_the_scripts_block(model: str, models: dict[str, Any]) -> None:
    page = models_metric.page_path(repo_root() / "docs" / "models.md", model)
    block = models_metric.render_page(models, model)
    assert block in page.read_text(), f"{page.name}'s figures are stale: python -m " \
        "cairn.bench.models_metric --sim build/bin/cairn-sim --write-doc docs/models.md"


def test_a_page_block_compares_with_the_other_models(models: dict[str, Any]) -> None:
    """The least and the most of the others skip the models without the concept, and a figure
    no other model has says so."""
    figs = {m: dict(models["figures"][m]) for m in models_metric.MODELS}
    figs["cairn"]["message_processing"] = 5
    block = models_metric.render_page({"figures": figs}, "nos")
    assert "| message processing | n/a | 5 (cairn) | 5 (cairn) |" in block, block
    alone = models_metric.render_page({"figures": figs}, "cairn")
    assert "| message processing | 5 | none has it | none has it |" in alone, alone


def test_write_docs_reports_a_stale_page(tmp_path: Path, models: dict[str, Any]) -> None:
    overview = tmp_path / "models.md"
    overview.write_text(f"{models_metric.BEGIN}\nold\n{models_metric.END}\n")
    (tmp_path / "models").mkdir()
    for m in models_metric.MODELS:
        begin, end = models_metric.page_markers(m)
        (tmp_path / "models" / f"{m}.md").write_text(f"# {m}\n{begin}\n{end}\n")
    assert models_metric.write_docs(overview, models, False, "fix") == 1
    assert models_metric.write_docs(overview, models, True, "fix") == 0
    assert models_metric.write_docs(overview, models, False, "fix") == 0
    assert models_metric.render_page(models, "limit") in (tmp_path / "models" / "limit.md").read_text()


def test_the_cli_puts_them_under_models(tmp_path: Path, models: dict[str, Any]) -> None:
    out = tmp_path / "kernel.json"
    out.write_text(json.dumps({"send_preempt_cycles": 1}))
    p = subprocess.run([sys.executable, "-m", "cairn.bench.models_metric", "--sim", str(sim_binary()),
                        "--fw", str(firmware_dir()), "--out", str(out)], capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    assert data["send_preempt_cycles"] == 1 and data["models"]["figures"] == models["figures"]


def test_the_cli_refuses_a_missing_firmware(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "cairn.bench.models_metric", "--sim", str(sim_binary()),
                        "--fw", str(tmp_path)], capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("models_metric:"), p.stderr


def test_status_block_line_omits_na(models: dict[str, Any]) -> None:
    from cairn.bench import status  # the STATUS bench block renders kernel.json's `models`

    [line] = models_metric.render_status_line(models)
    assert NA not in line
    assert f"interrupt processing limit {models['figures']['limit']['interrupt_processing']}," in line
    assert f"message processing cairn {models['figures']['cairn']['message_processing']};" in line
    assert status.render_threads({}) == []
