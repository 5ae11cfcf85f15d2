"""Rewrite the benchmark block of docs/STATUS.md from build/bench/*.json.

`make bench` runs this after the benchmarks, so the figures in STATUS.md are always the
output of a real run, never typed by hand. The block sits between the markers
``<!-- bench:begin -->`` and ``<!-- bench:end -->``.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.bench import models_metric

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"


def render_sim(d: dict[str, Any]) -> list[str]:
    m, r, o, w, t = d["mips"], d["ratio"], d["overhead"], d["wfi_one_simulated_second"], d["targets"]
    return [
        f"- CPU-bound firmware `{Path(d['firmware']).name}`, {d['instructions']:,} instructions, "
        f"best of {d['runs_per_figure']} runs:",
        f"  - cairn-sim **{m['cairn_sim']:.0f} MIPS** (target ≥ {t['mips_min']:.0f}: "
        f"{'met' if t['mips_met'] else 'not met'})",
        f"  - QEMU {m['qemu']:.0f} MIPS ({r['qemu_over_cairn_sim']:.2f}× cairn-sim); "
        f"QEMU `-icount shift=0` {m['qemu_icount']:.0f} MIPS ({r['qemu_icount_over_cairn_sim']:.2f}×)",
        f"  - `--stats` overhead {o['stats'] * 100:+.1f}%, `--trace` overhead {o['trace'] * 100:+.1f}%",
        f"  - energy accounting (`--energy {d['energy_profile']}`) overhead {d['energy_overhead_percent']:+.1f}% "
        f"wall clock; energy + attribution + I/O scenario with `--io-log` (experiments/bench/io_load.toml) "
        f"{d['measured_overhead_percent']:+.1f}% wall clock",
        *[f"  - in host instructions (callgrind, exact), `{Path(c['firmware']).name}`"
          f"{' ' + ' '.join(c['limit']) if c.get('limit') else ''}: energy **{c['energy_percent']:+.1f}%**, "
          f"energy + I/O scenario and log **{c['measured_percent']:+.1f}%**"
          for key in ("overhead_host_instructions", "overhead_host_instructions_cpu") if (c := d.get(key))],
        *([f"  - main-stack guard (`__stack_limit` watched ÷ `--stack-check off`, callgrind host instructions): "
           + "; ".join(f"`{Path(g['firmware']).name}` {g['plain']['ratio']:.4f} (energy {g['energy']['ratio']:.4f})"
                       for g in d["stack_guard"])] if d.get("stack_guard") else []),
        f"  - overhead target ≤ {t['energy_overhead_percent_max']:.0f}%, judged on "
        f"{d.get('overhead_judged_on', 'wall clock')}: {'met' if t['measured_overhead_met'] else 'not met'}",
        f"- One simulated second of WFI sleep between 1 kHz timer interrupts: cairn-sim "
        f"**{w['cairn_sim_host_seconds']:.4f} s** host (target < {t['wfi_host_seconds_max']} s: "
        f"{'met' if t['wfi_met'] else 'not met'}), QEMU {w['qemu_host_seconds']:.3f} s",
    ]


def render_kernel(d: dict[str, Any]) -> list[str]:
    t = d["targets"]

    def met(flag: str) -> str:
        return "met" if t[flag] else "not met"

    tr = d["traced"]
    *cycles, sizes = _kernel_lines(d, t, met, tr)
    models = models_metric.render_status_line(d["models"]) if "models" in d else []
    return [*cycles, *render_policies(d.get("policies", {})), *render_threads(d), *models, sizes]


#: How the STATUS block names the policies of kernel.json's `policies`.
POLICY_NAMES = {"fp": "fixed priority", "edf": "EDF + SRP", "csd": "CSD-2"}


def render_policies(policies: dict[str, Any]) -> list[str]:
    """One line of kernel.json's per-policy figures (docs/policies.md), when it has them."""
    if not policies:
        return []
    parts = [
        f"{POLICY_NAMES.get(name, name)} **{p['send_preempt_cycles']}** / {p['send_enqueue_cycles']} / "
        f"{p['irq_to_handler_cycles']} / {p['timer_to_handler_cycles']}"
        f"{'' if p['fast_paths'] == 'assembly' else ' (fast paths in ' + p['fast_paths'] + ')'}"
        for name, p in policies.items()
    ]
    return ["  - per scheduling policy (docs/policies.md), send → preempting handler / queued send / "
            "IRQ → handler / timer → handler: " + "; ".join(parts)]


def render_threads(d: dict[str, Any]) -> list[str]:
    """Threads, semaphores and the Thread-Metric-style suite (kernel.json's `thread_metric`)."""
    tm = d.get("thread_metric")
    if not tm:
        return []
    t = tm["targets"]
    pi = tm["priority_inheritance"]

    def met(ok: bool) -> str:
        return "met" if ok else "not met"

    return [
        f"  - threads (`thread-metric.elf`, docs/kernel.md): preemptive thread-to-thread switch "
        f"**{tm['preemptive_switch']}** (target ≤ {t['thread_switch_cycles_max']}: {met(t['thread_switch_met'])}; "
        f"a call in Thread mode; through PendSV {tm['preemptive_switch_pendsv']}); "
        f"uncontended mutex lock + unlock **{tm['mutex_lock_unlock']}** (target ≤ "
        f"{t['mutex_lock_unlock_cycles_max']}: {met(t['mutex_lock_unlock_met'])}); cooperative switch "
        f"{tm['cooperative_switch']}; semaphore give → waiter {tm['signal_to_waiter']}; counting semaphore "
        f"take + give {tm['synchronisation']}; interrupt processing {tm['interrupt_processing']}, interrupt "
        f"preemption {tm['interrupt_preemption']}; message processing {tm['message_processing']}; "
        f"memory allocation {tm['memory_allocation']}",
        f"  - EMERALDS's semaphores against plain ones: contended mutex (the hint) **{d['sem_contended_cycles']}** "
        f"against {d['sem_contended_plain_cycles']}; priority inheritance, holder's give → waiter with "
        f"{'/'.join(map(str, pi['threads_ready_behind']))} threads ready behind: "
        f"{'/'.join(map(str, pi['emeralds']))} (exchange of places) against {'/'.join(map(str, pi['plain']))}",
    ]


def _kernel_lines(d: dict[str, Any], t: dict[str, Any], met: Any, tr: dict[str, Any]) -> list[str]:
    return [
        f"- Cairn OS kernel on cairn-sim (Cortex-M0+, zero wait states, `-Os`, event log compiled out; "
        f"with the log on in brackets), `{Path(d['firmware']).name}`, exact cycles:",
        f"  - send to a lower-priority task (call → return) **{d['send_enqueue_cycles']}** "
        f"[{tr['send_enqueue_cycles']}]; send → first instruction of the preempting handler "
        f"**{d['send_preempt_cycles']}** [{tr['send_preempt_cycles']}] "
        f"(target ≤ {t['send_preempt_cycles_max']}: {met('send_preempt_met')})",
        f"  - interrupt bound to a message, IRQ pending → first instruction of the task handler "
        f"**{d['irq_to_handler_cycles']}** [{tr['irq_to_handler_cycles']}], "
        f"{d['irq_to_handler_beyond_entry_cycles']} beyond the 15-cycle exception entry "
        f"(target ≤ {t['irq_to_handler_beyond_entry_cycles_max']}: {met('irq_to_handler_met')}); "
        f"level-sensitive binding {d['irq_level_to_handler_beyond_entry_cycles']} beyond entry; "
        f"an ordinary ISR sending through PendSV {d['irq_isr_to_handler_beyond_entry_cycles']} beyond entry",
        f"  - timer expiry (from WFI) → TIMEOUT handler **{d['timer_to_handler_cycles']}** "
        f"[{tr['timer_to_handler_cycles']}]; `cairn_malloc` + `cairn_free` of 16 bytes "
        f"**{d['alloc_free_cycles']}** [{tr['alloc_free_cycles']}]; a 16-byte state message: write "
        f"**{d['statemsg_write16_cycles']}**, read **{d['statemsg_read16_cycles']}**, the slow reader's "
        f"read {d['statemsg_read16_atomic_cycles']} (a message to a 9-instruction handler, send → back: "
        f"{d['send_preempt_roundtrip_cycles']})",
        f"- Kernel size (kernel/core + arch/armv6m, event log on): kernel core text "
        f"**{d['kernel_core_text_bytes']} B** (scheduler, messaging, tasks, routes, ownership, interrupts, idle, "
        f"port paths; target \"kernel core ≤ {t['kernel_text_bytes_max']}\": {met('kernel_core_text_met')}); "
        f"everything linked `kernel_text_bytes` **{d['kernel_text_bytes']} B** = core + services "
        f"{d['kernel_services_text_bytes']} B (heap, slab, timers, app manager, multicast, sleep choice, "
        f"state messages; "
        f"≤ {t['kernel_text_bytes_max']}: {met('kernel_text_met')}); "
        f"data {d['kernel_data_bytes']} B, bss {d['kernel_bss_bytes']} B: static RAM "
        f"**{d['kernel_static_ram_bytes']} B** (target ≤ {t['kernel_static_ram_bytes_max']}: "
        f"{met('kernel_static_ram_met')}); TCB **{d['tcb_bytes']} B** (target ≤ {t['tcb_bytes_max']}: "
        f"{met('tcb_met')}), message {d['msg_bytes']} B",
    ]


def render_device(d: dict[str, Any]) -> list[str]:
    t, b = d["targets"], d["busy"]

    def met(flag: str) -> str:
        return "met" if t[flag] else "not met"

    return [
        "- Devices (build/bench/device.json; ratios in callgrind host instructions, exact):",
        f"  - single-processor cost after the device layer, bench_cpu.elf, after ÷ before: plain "
        f"**{d['restructure_host_instructions_ratio']:.4f}**, energy on "
        f"**{d['restructure_energy_host_instructions_ratio']:.4f}** (target ≤ {t['restructure_max']}: "
        f"{met('restructure_met')})",
        f"  - five modules, one computing and four asleep, ÷ the computing one alone: "
        f"**{d['five_sleepy_vs_one_host_ratio']:.3f}** (target ≤ {t['sleepy_max']}: {met('sleepy_met')}; "
        f"wall clock {d['five_sleepy_vs_one_wall_ratio']:.2f})",
        f"  - five busy modules at {d['clock']}, aggregate simulated MIPS ÷ one module alone, a frame "
        f"per module every 100 µs **{d['five_busy_vs_single_mips_ratio']:.3f}** (target ≥ {t['busy_min']}: "
        f"{met('busy_met')}), every 10 µs {d['five_busy_vs_single_mips_ratio_10us']:.3f}, every 1 µs "
        f"{d['five_busy_vs_single_mips_ratio_1us']:.3f}; against a plain one-processor run of "
        f"bench_cpu.elf {d['five_busy_vs_plain_run_mips_ratio']:.3f}; wall-clock MIPS five / one: "
        + ", ".join(f"{k} {v['five']['mips_wall']:.0f} / {v['single']['mips_wall']:.0f}" for k, v in b.items()),
    ]


def render_distributed(d: dict[str, Any]) -> list[str]:
    """build/bench/distributed.json. Later keys (migration_*, timesync_*) add their own lines
    to DISTRIBUTED_EXTRA."""
    t, tr = d["targets"], d["traced"]

    def met(flag: str) -> str:
        return "met" if t[flag] else "not met"

    mc = d["multicast_cycles_by_group_size"]
    lines = [
        f"- Cairn OS across modules (build/bench/distributed.json; five 8 MHz Cortex-M0+ modules on the "
        f"default bus, `{Path(d['firmware']).name}`, event log compiled out; on in brackets), exact cycles:",
        f"  - local send → preempting handler **{d['local_send_to_handler_cycles']}** "
        f"[{tr['local_send_to_handler_cycles']}] (target ≤ {t['local_send_to_handler_cycles_max']}: "
        f"{met('local_send_to_handler_met')}); send call → return: remote **{d['remote_send_return_cycles']}** "
        f"[{tr['remote_send_return_cycles']}] (the frame written to the controller), local to a lower "
        f"priority (queued) {d['local_send_return_cycles']} [{tr['local_send_return_cycles']}]",
        f"  - remote send → first instruction of the remote handler **{d['remote_send_to_handler_cycles']}** "
        f"[{tr['remote_send_to_handler_cycles']}] = sender {d['remote_send_to_handler_sender_cycles']} + bus "
        f"{d['remote_send_to_handler_bus_cycles']} (slot wait and {d['remote_frame_wire_ps'] / 1e6:.6g} µs on the "
        f"wire, as the bus parameters give) + receiver {d['remote_send_to_handler_receiver_cycles']}; beyond the "
        f"bus **{d['remote_send_to_handler_beyond_bus_cycles']}** "
        f"[{tr['remote_send_to_handler_beyond_bus_cycles']}] (target ≤ "
        f"{t['remote_send_to_handler_beyond_bus_cycles_max']}: {met('remote_send_to_handler_met')})",
        "  - multicast → the last member's handler, one member on each of g modules: "
        + ", ".join(f"g = {g} **{c}**" for g, c in mc.items())
        + f"; send call → return {d['multicast_return_cycles_by_group_size']['1']}",
        f"  - distributed services text (kernel/core/net + the board's bus driver, event log on) "
        f"**{d['distributed_text_bytes']} B**, apart from the kernel's",
    ]
    if "timesync_skew_us_max" in d:
        ts_met = "met" if d["timesync_skew_met"] else "not met"
        lines.append(f"  - time synchronisation at 1 Hz, four modules with ±20 ppm crystals "
                     f"(experiments/devices/timesync.toml), worst true skew between modules "
                     f"**{d['timesync_skew_us_max']} µs** over {d['timesync_marks']} marks (target ≤ "
                     f"{d['timesync_skew_us_target']} µs: {ts_met})")
        if "timesync_energy_skew_us_max" in d:
            te_met = "met" if d["timesync_energy_skew_met"] else "not met"
            lines[-1] += (f"; with the STM32L053 energy profile (its flash wait state and deep-sleep "
                          f"wake-up; timesync-energy.toml) **{d['timesync_energy_skew_us_max']} µs** over "
                          f"{d['timesync_energy_marks']} marks ({te_met})")
    if "checkpoint_cost_base_cycles" in d:
        by = d["checkpoint_cost_cycles_by_size"]
        lines.append("  - checkpoint migration (a 4 MHz and a 32 MHz module, docs/checkpoint.md), migration "
                     f"point → restart on the destination, in 32 MHz cycles: "
                     + ", ".join(f"{k} B **{v}**" for k, v in by.items())
                     + f"; fitted {d['checkpoint_cost_base_cycles']} + {d['checkpoint_cost_per_byte_cycles']} "
                     f"per byte; freezing time (the paper's break-even after the migration point) at 1 KiB "
                     f"{d['checkpoint_freeze_cycles']}")
    if "migration_base_cycles" in d:
        def mig_met(key: str) -> str:
            return "met" if d[f"migration_{key}_met"] else "not met"

        by, bm = d["migration_by_size"], d["migration_by_modules"]
        lines.append("  - task migration (8 MHz modules, docs/migration.md), REQUEST accepted → the task "
                     "live on the destination, by state size on 2 modules: "
                     + ", ".join(f"{k} B **{v['latency_cycles']}**" for k, v in by.items())
                     + f"; fitted **{d['migration_base_cycles']}** (target ≤ {d['migration_base_cycles_target']}: "
                     f"{mig_met('base')}) + **{d['migration_cycles_per_byte']}** per byte (target ≤ "
                     f"{d['migration_cycles_per_byte_target']}: {mig_met('per_byte')}), R² {d['migration_fit_r2']}; "
                     f"{d['migration_transfer_cycles_per_part']} per STATE part; source frozen at 1 KiB "
                     f"{by.get('1024', {}).get('freeze_cycles', '-')}; by module count at "
                     f"{d['migration_by_modules_state_bytes']} B: "
                     + ", ".join(f"{k} {v['latency_cycles']}" for k, v in bm.items()))
    for render in DISTRIBUTED_EXTRA:
        lines += render(d)
    return lines


def render_sweep(d: dict[str, Any]) -> list[str]:
    """build/bench/sweep.json (python -m cairn.bench.sweep)."""
    load = d["load_average_1min"]
    return [
        f"- Sweeps (build/bench/sweep.json; cairn.sweep on a Dask LocalCluster, {d['runs']} runs of "
        f"{d['firmware']}, {d['mean_run_s_one_worker']} s each on one worker): 1 worker {d['one_worker_s']} s, "
        f"2 workers {d['two_workers_s']} s, speedup **{d['speedup']}×** (target ≥ {d['target_speedup']}: "
        f"{'met' if d['met'] else 'not met'}); cores the runs got {d['cores_used_one_worker']} and "
        f"{d['cores_used_two_workers']}, 1-minute load average {load['before']} before, "
        f"{load['after_two_workers']} after",
    ]


def render_spin(d: dict[str, Any]) -> list[str]:
    """build/bench/spin.json (written by `python -m cairn.spin`, i.e. `make test-spin`)."""
    big = d["largest"]
    return [
        f"- SPIN model of migration (build/bench/spin.json): {d['configurations']} configurations, "
        f"{d['states']:,} states, in **{d['total_seconds']} s** with {d['jobs']} searches at once "
        f"(target ≤ {d['target_seconds']:.0f} s: {'met' if d['met'] else 'not met'}; the largest, "
        f"{big['name']}, {big['seconds']} s; 1-minute load average {d['load_average_1min']})",
    ]


def render_fresh_run(d: dict[str, Any]) -> list[str]:
    """build/bench/fresh-run.json (python -m cairn.bench.fresh_run)."""
    steps = ", ".join(f"{k} {v} s" for k, v in d.get("steps", {}).items())
    return [
        f"- `make run` from a fresh clone (build/bench/fresh-run.json; own Cargo home, no pip cache; "
        f"apt packages and the Rust toolchain present): **{d['seconds']} s** ({steps}; target ≤ "
        f"{d['target_seconds']:.0f} s: {'met' if d['met'] else 'not met'}; exit {d['exit_status']}; "
        f"1-minute load average {d['load_average_1min_before']} before, "
        f"{d['load_average_1min_after']} after, {d['cores']} cores)",
    ]



def render_fresh_root(d: dict[str, Any]) -> list[str]:
    """build/bench/fresh-run-scratch.json (python -m cairn.bench.fresh_root)."""
    inner = ", ".join(f"{k} {v} s" for k, v in d.get("bootstrap_steps", {}).items() if v >= 1)
    steps = ", ".join(f"{k} {v} s" + (f" [{inner}]" if k == "bootstrap" and inner else "")
                      for k, v in d.get("steps", {}).items())
    hosts = ", ".join(f"{host} {n / 1e6:.0f} MB" for host, n in d.get("bytes_downloaded_by_host", {}).items()
                      if n >= 1e6)
    return [
        f"- `make run` on a fresh Debian root (build/bench/fresh-run-scratch.json; {d['release']} "
        f"{d['root'].split()[1].removeprefix('--variant=')} + make in a chroot, `nice -n {d['nice']}`; python3, "
        f"the apt packages, Rust and the venv installed by the run): **{d['seconds']} s** ({steps}; "
        f"target ≤ {d['target_seconds']:.0f} s: {'met' if d['met'] else 'not met'}; exit {d['exit_status']}; "
        f"{d['cpu_seconds']} CPU seconds, which other work on the cores does not stretch; "
        f"**{d['bytes_downloaded'] / 1e6:.0f} MB** downloaded: {hosts}; the root itself {d['root_seconds']} s "
        f"apart; 1-minute load average {d['load_average_1min_before']} before, "
        f"{d['load_average_1min_after']} after, {d['cores']} cores)",
    ]

#: Renderers of later sections of distributed.json (migration_*, timesync_*), in order.
DISTRIBUTED_EXTRA: list[Callable[[dict[str, Any]], list[str]]] = []


#: The first line of each section of the block, by the JSON it is rendered from: a section
#: whose JSON a partial run did not write (e.g. the CPU benchmark could not run) keeps its
#: lines from the previous block, which an earlier run of this script wrote.
SECTION_HEADS = {
    "sim.json": "Latest `make bench`",
    "kernel.json": "- Cairn OS kernel on cairn-sim",
    "distributed.json": "- Cairn OS across modules",
    "device.json": "- Devices (",
    "sweep.json": "- Sweeps (",
    "spin.json": "- SPIN model of migration",
    "fresh-run.json": "- `make run` from a fresh clone",
    "fresh-run-scratch.json": "- `make run` on a fresh Debian root",
}


def previous_sections(block: str) -> dict[str, list[str]]:
    """The lines of each section of an existing block, by JSON name."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    for line in block.splitlines():
        if line in (BEGIN, END):
            continue
        for name, head in SECTION_HEADS.items():
            if line.startswith(head):
                current = name
        if current is not None:
            out.setdefault(current, []).append(line)
    return out


def render_sim_section(data: dict[str, Any]) -> list[str]:
    return [f"Latest `make bench`: {data.get('date', '?')}, {platform.machine()} host with "
            f"{data.get('host_cores', '?')} cores.", "", *render_sim(data)]


RENDERERS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "sim.json": render_sim_section,
    "kernel.json": render_kernel,
    "distributed.json": render_distributed,
    "device.json": render_device,
    "sweep.json": render_sweep,
    "spin.json": render_spin,
    "fresh-run.json": render_fresh_run,
    "fresh-run-scratch.json": render_fresh_root,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bench-dir", type=Path, default=Path("build/bench"))
    ap.add_argument("--status", type=Path, default=Path("docs/STATUS.md"))
    args = ap.parse_args(argv)
    text = args.status.read_text()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    found = pattern.search(text)
    if not found:
        raise SystemExit(f"{args.status}: markers {BEGIN} ... {END} not found")
    before = previous_sections(found.group(0))
    lines = [BEGIN]
    for name, render in RENDERERS.items():
        path = args.bench_dir / name
        if path.exists():
            lines += render(json.loads(path.read_text()))
        elif name in before:
            lines += before[name]
            print(f"{args.status}: no {path}, its lines kept from the previous block")
        elif name == "sim.json":
            lines.append("- no build/bench/sim.json yet: run `make bench`")
    lines.append(END)
    block = "\n".join(lines)
    args.status.write_text(pattern.sub(lambda _: block, text))
    print(f"updated {args.status}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
