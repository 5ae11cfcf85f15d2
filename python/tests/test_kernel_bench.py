"""The kernel benchmark firmware (kernel/apps/kernel_bench, build/fw/kernel-bench.elf) runs on
cairn-sim, its trace parses into figures, every figure is a positive integer, and two runs
give exactly the same cycles (cairn-sim is cycle-exact). `make bench` uses the same code
(python/cairn/bench/kernel.py) to write build/bench/kernel.json."""

from __future__ import annotations

from pathlib import Path

from cairn.bench import kernel
from cairn.paths import build_dir, firmware_dir, sim_binary


def _elf() -> Path:
    elf = firmware_dir() / "kernel-bench.elf"
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    return elf


def test_kernel_bench_figures_are_exact_and_deterministic() -> None:
    elf = _elf()
    first = kernel.measure(str(sim_binary()), elf)
    figures, breakdowns, sizeofs = first
    for name in ("send_enqueue_cycles", "send_preempt_cycles", "irq_to_handler_cycles",
                 "irq_to_handler_beyond_entry_cycles", "timer_to_handler_cycles", "alloc_free_cycles"):
        value = figures[name]
        assert isinstance(value, int) and value > 0, f"{name} = {value!r}"
    assert figures["marker_overhead_cycles"] == 2  # one STR
    assert figures["irq_hw_entry_cycles_measured"] == kernel.HW_ENTRY_CYCLES
    for name in ("tcb_bytes", "msg_bytes"):
        assert isinstance(sizeofs[name], int) and sizeofs[name] > 0, f"{name} = {sizeofs.get(name)!r}"
    assert breakdowns["irq_to_handler"][-1]["cycle"] == figures["irq_to_handler_cycles"]
    assert breakdowns["timer_to_handler"][-1]["cycle"] == figures["timer_to_handler_cycles"]
    assert kernel.measure(str(sim_binary()), elf) == first, "two runs differ"


def test_kernel_sizes_from_link_map() -> None:
    elf = _elf()
    sizes = kernel.kernel_sizes_from_map(elf.with_suffix(".map").read_text())
    totals = sizes["totals"]
    assert totals["text"] > 0 and totals["bss"] > 0, totals
    objs = sorted((build_dir() / "obj" / "fw").glob("core/*.o"))
    # Every kernel/core object contributes code (the bench keeps the whole kernel).
    assert {f"core/{o.name}" for o in objs} <= set(sizes["per_object"]), sizes["per_object"].keys()
