"""The kernel benchmark firmware (kernel/apps/kernel_bench, build/fw/kernel-bench.elf) runs on
cairn-sim, its trace parses into figures, every figure is a positive integer, and two runs
give exactly the same cycles (cairn-sim is cycle-exact). `make bench` uses the same code
(python/cairn/bench/kernel.py) to write build/bench/kernel.json."""

from __future__ import annotations

from pathlib import Path

from cairn.bench import kernel
from cairn.paths import build_dir, firmware_dir, sim_binary


def _elf(name: str = "kernel-bench.elf") -> Path:
    elf = firmware_dir() / name
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


def test_kernel_fast_paths_meet_the_issue_targets() -> None:
    """The kernel's latency targets, on the production build (event log compiled out). cairn-sim is
    cycle-exact, so this is a deterministic regression guard, not a timing test."""
    figures, breakdowns, _ = kernel.measure(str(sim_binary()), _elf("kernel-bench-notrace.elf"))
    assert figures["send_preempt_cycles"] <= kernel.TARGETS["send_preempt_cycles_max"], figures
    limit = kernel.TARGETS["irq_to_handler_beyond_entry_cycles_max"]
    assert figures["irq_to_handler_beyond_entry_cycles"] <= limit, figures
    assert figures["irq_level_to_handler_beyond_entry_cycles"] <= limit, figures
    # The bound interrupt returns straight into the handler: no PendSV on the way.
    assert not any("PendSV" in row["event"] for row in breakdowns["irq_to_handler"]), breakdowns
    # The ordinary ISR path still goes through PendSV, and is slower.
    assert any("PendSV" in row["event"] for row in breakdowns["irq_isr_to_handler"]), breakdowns
    assert figures["irq_isr_to_handler_beyond_entry_cycles"] > figures["irq_to_handler_beyond_entry_cycles"]
    traced, _, _ = kernel.measure(str(sim_binary()), _elf())
    assert traced["send_preempt_cycles"] > figures["send_preempt_cycles"]  # the log costs a few stores


def test_kernel_sizes_from_link_map() -> None:
    elf = _elf()
    sizes = kernel.kernel_sizes_from_map(elf.with_suffix(".map").read_text())
    totals = sizes["totals"]
    assert totals["text"] > 0 and totals["bss"] > 0, totals
    # Only objects whose source still exists: a renamed file leaves its old object behind.
    core = Path(__file__).resolve().parents[2] / "kernel" / "core"
    objs = sorted(o for o in (build_dir() / "obj" / "fw").glob("core/*.o")
                  if (core / o.with_suffix(".c").name).exists())
    # Every kernel/core object with code contributes it (the bench keeps the whole kernel);
    # the deadline policies' policy.o is empty under fixed priority.
    text = kernel.berkeley_size("arm-none-eabi-size", objs)
    with_code = {f"core/{o.name}" for o in objs if text[str(o)]["text"] > 0}
    assert "core/sched.o" in with_code and "core/policy.o" not in with_code, with_code
    assert with_code <= set(sizes["per_object"]), sizes["per_object"].keys()


def test_a_state_message_read_costs_less_than_a_message() -> None:
    """EMERALDS's point, measured: a reader takes the latest value for less than a message to
    it costs (send -> a 9-instruction handler -> back), and the slow reader's masked copy
    for no more than the checked one."""
    figures, _, _ = kernel.measure(str(sim_binary()), _elf("kernel-bench-notrace.elf"))
    read, atomic = figures["statemsg_read16_cycles"], figures["statemsg_read16_atomic_cycles"]
    assert 0 < read < figures["send_preempt_roundtrip_cycles"], figures
    assert 0 < atomic <= read, figures
    assert 0 < figures["statemsg_write16_cycles"] < figures["send_preempt_roundtrip_cycles"], figures



#: Fixed priority's exact cycles on the production build (event log compiled out) from before
#: the policy seam (kernel/core/policy.h): its fixed-priority side compiles to the same code,
#: so none of these may move. A change that means to move one updates it here and says why.
#: The two general interrupt paths (PendSV's dispatch) pay 26 cycles for the dispatch loop's
#: mark (kernel/core/sched.c): the interrupt's end compares and sets it, each dequeue clears it,
#: the handler's end sets it; the fast paths do not touch it.
FP_CYCLES_BEFORE_THE_SEAM = {
    "send_preempt_cycles": 94,
    "send_enqueue_cycles": 230,
    "irq_to_handler_cycles": 86,
    "irq_level_to_handler_beyond_entry_cycles": 80,
    "irq_isr_to_handler_beyond_entry_cycles": 669,
    "timer_to_handler_cycles": 941,
}


def test_fixed_priority_figures_unchanged_by_the_policy_seam() -> None:
    figures, _, sizeofs = kernel.measure(str(sim_binary()), _elf("kernel-bench-notrace.elf"))
    assert {k: figures[k] for k in FP_CYCLES_BEFORE_THE_SEAM} == FP_CYCLES_BEFORE_THE_SEAM
    assert sizeofs["msg_bytes"] == 16, sizeofs


def test_each_policy_runs_the_bench() -> None:
    """build/fw/kernel-bench-{edf,csd}.elf (docs/policies.md): every phase runs, deterministic
    cycles, the policies' entries as kernel.json's `policies` holds them. Their fast paths are
    C, not assembly, and the deadline's stamp costs cycles: each figure is above fixed
    priority's; an interrupt bound to a message still returns straight into the handler."""
    fp_figures, _, fp_sizeofs = kernel.measure(str(sim_binary()), _elf("kernel-bench-notrace.elf"))
    fp = kernel.policy_figures(fp_figures, fp_sizeofs, "assembly")
    for policy in kernel.POLICIES:
        elf = _elf(f"kernel-bench-{policy}.elf")
        figures, breakdowns, sizeofs = kernel.measure(str(sim_binary()), elf)
        assert kernel.measure(str(sim_binary()), elf)[0] == figures, f"{policy}: two runs differ"
        entry = kernel.policy_figures(figures, sizeofs, kernel.FAST_PATHS[policy])
        # The binding's path decides in C and returns straight into the handler: no PendSV.
        assert not any("PendSV" in row["event"] for row in breakdowns["irq_to_handler"]), breakdowns
        assert any("PendSV" in row["event"] for row in breakdowns["irq_isr_to_handler"]), breakdowns
        for name in kernel.POLICY_FIGURES:
            assert entry[name] > fp[name] > 0, (policy, name, entry[name], fp[name])
        assert entry["msg_bytes"] > fp["msg_bytes"], entry


def test_status_block_shows_each_policy() -> None:
    """The STATUS bench block (python -m cairn.bench.status) gives kernel.json's `policies` a line
    among the cycle figures; a kernel.json without them renders as before."""
    from cairn.bench import status

    fp_figures, _, fp_sizeofs = kernel.measure(str(sim_binary()), _elf("kernel-bench-notrace.elf"))
    policies = {"fp": kernel.policy_figures(fp_figures, fp_sizeofs, "assembly"),
                "edf": {**kernel.policy_figures(fp_figures, fp_sizeofs, "C"), "send_preempt_cycles": 7}}
    lines = status.render_policies(policies)
    assert len(lines) == 1 and f"fixed priority **{fp_figures['send_preempt_cycles']}**" in lines[0], lines
    assert "EDF + SRP **7** /" in lines[0] and "(fast paths in C)" in lines[0], lines
    assert status.render_policies({}) == []
