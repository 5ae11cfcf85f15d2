"""Task migration's latency against serialised state size and module count, on cairn-sim
(docs/migration.md, "Implementation").

``measure()`` runs build/fw/migration-bench-<bytes>.elf (kernel/apps/migration_bench: one
movable task with a state block of that many bytes, moved once from module 0 to module 1) on
devices of 8 MHz modules on the default bus, generated here. From the migrators' trace words,
stamped with each processor's exact cycle:

- the latency: REQUEST accepted at the source -> the task live on the destination (committed);
- the freeze time: the task frozen at the source -> the source's migration left (unfrozen);
- the phases of the latency: request -> serialised (freezing and serialising), serialised ->
  staged (the STATE parts with their acknowledgements, and de-serialising), staged ->
  committed (the commit point alone when the last STATE part carries the commit, as on two
  modules; with more, the others' FREEZE round, then DESERIALIZED and the commit, one round
  trip).

The latency is fitted as base + per byte by least squares over the sizes at 2 modules (R²
reported); the latency by module count is taken at one size. It returns the dict that
``make bench`` adds to build/bench/distributed.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import cairn
from cairn import net_trace
from cairn.bench.linefit import fit
from cairn.paths import firmware_dir
from cairn.scenario import Device, Processor

SIZES = (0, 256, 512, 1024, 2048, 4096)
MODULE_COUNTS = (2, 3, 4, 5, 6, 7, 8)
#: the state size of the table by module count
SIZE_BY_MODULES = 1024
CLOCK_HZ = 8_000_000
PS_PER_CYCLE = 1_000_000_000_000 // CLOCK_HZ
#: the issue's targets (CoMOS on mPlatform: about 3.5 ms + 13 µs per byte)
BASE_CYCLES_MAX = 5000
PER_BYTE_CYCLES_MAX = 10.0
#: the serialised bytes one STATE frame carries (CAIRN_MIG_FRAME_MAX, 246, less the part's
#: 8-byte header, rounded down to a multiple of 4: MIG_PART in migrator_state.h)
STATE_PART_BYTES = 236


class MigrationBenchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    """One migration, in cycles of the 8 MHz modules."""

    state_bytes: int
    modules: int
    latency: int  #: REQUEST accepted -> committed on the destination
    freeze: int  #: frozen -> unfrozen at the source
    freezing: int  #: REQUEST accepted -> serialised (FREEZE_ACKs and the serialisation)
    transfer: int  #: serialised -> staged on the destination (the STATE parts)
    commit: int  #: staged -> committed
    parts: int  #: STATE frames the source sent (its first sending of each part)


def device(elf: Path, modules: int) -> Device:
    """A device of ``modules`` 8 MHz modules running elf, on the default bus (no [bus])."""
    return Device(
        name=f"migration-bench-{modules}",
        processors=[Processor(name=f"m{i}", firmware=str(elf.resolve()), clock="8MHz") for i in range(modules)],
    )


def _cycles(ps: int) -> int:
    if ps % PS_PER_CYCLE:
        raise MigrationBenchError(f"{ps} ps is not a whole number of 8 MHz cycles")
    return ps // PS_PER_CYCLE


def _one(phases: list[net_trace.Phase], pid: int, name: str) -> int:
    at = [p.ps for p in phases if p.pid == pid and p.phase == name]
    if len(at) != 1:
        raise MigrationBenchError(f"processor {pid}: {len(at)} '{name}' words, expected one")
    return at[0]


def run(state_bytes: int, modules: int, sim: Path | None = None) -> Migration:
    """One migration of a task of state_bytes on a device of modules (module 0 -> 1)."""
    elf = firmware_dir() / f"migration-bench-{state_bytes}.elf"
    if not elf.exists():
        raise MigrationBenchError(f"{elf} is missing (make firmware)")
    r = cairn.run(device(elf, modules), ["trace"], max_time="10s", timeout=300, sim=sim)
    trace = r.files["trace"]
    text = trace.read_text() if trace.exists() else ""
    out = r.console
    if r.status != 0 or f"state ok {state_bytes}" not in out:
        raise MigrationBenchError(f"{state_bytes} B on {modules} modules: status {r.status}:\n"
                                  f"{out[-1000:]}{r.stderr.decode(errors='replace')[-1000:]}")
    m = re.search(r"moved \d+ outcome (\d+) retransmits (\d+)", out)
    if not m or m.group(1) != "1" or m.group(2) != "0":
        raise MigrationBenchError(f"{state_bytes} B on {modules} modules: not moved once without "
                                  f"retransmission: {m.group(0) if m else out[-500:]}")
    tr = net_trace.parse(text)
    phases = net_trace.migration_phases(tr)
    src, dst = 1, 2  # pids: modules 0 and 1, the file order
    request = _one(phases, src, "request")
    frozen = _one(phases, src, "frozen")
    serialized = _one(phases, src, "serialized")
    unfrozen = _one(phases, src, "unfrozen")
    staged = _one(phases, dst, "staged")
    committed = _one(phases, dst, "committed")
    parts = -(-_state_bytes_serialised(state_bytes) // STATE_PART_BYTES)
    return Migration(
        state_bytes=state_bytes, modules=modules,
        latency=_cycles(committed - request), freeze=_cycles(unfrozen - frozen),
        freezing=_cycles(serialized - request), transfer=_cycles(staged - serialized),
        commit=_cycles(committed - staged), parts=parts,
    )


def _state_bytes_serialised(state_bytes: int) -> int:
    """The serialised task's length (kernel/core/net/serialize.c) for the bench's task: id,
    priority, flags, ports (0 routes), memberships (none), the sequence table (count and 8
    bytes), timers (none), queued messages (none), the block's length, zeros up to a multiple
    of 4, and its bytes."""
    head = 4 + 1 + 1 + 8 + 1 + 1 + 2
    return head + (-head % 4) + state_bytes


def measure(sizes: tuple[int, ...] = SIZES, module_counts: tuple[int, ...] = MODULE_COUNTS,
            size_by_modules: int = SIZE_BY_MODULES, sim: Path | None = None) -> dict[str, object]:
    """The figures for build/bench/distributed.json (``migration_*`` keys)."""
    by_size = {s: run(s, 2, sim) for s in sizes}
    by_modules = {n: (by_size[size_by_modules] if n == 2 and size_by_modules in by_size
                      else run(size_by_modules, n, sim)) for n in module_counts}
    base, per_byte, r2 = fit([float(s) for s in sizes], [float(by_size[s].latency) for s in sizes])
    per_part = by_size[max(sizes)].transfer / by_size[max(sizes)].parts
    return {
        "migration_base_cycles": round(base),
        "migration_cycles_per_byte": round(per_byte, 3),
        "migration_fit_r2": round(r2, 6),
        "migration_base_cycles_target": BASE_CYCLES_MAX,
        "migration_cycles_per_byte_target": PER_BYTE_CYCLES_MAX,
        "migration_base_met": base <= BASE_CYCLES_MAX,
        "migration_per_byte_met": per_byte <= PER_BYTE_CYCLES_MAX,
        "migration_transfer_cycles_per_part": round(per_part),
        "migration_by_size": {str(s): _row(m) for s, m in by_size.items()},
        "migration_by_modules_state_bytes": size_by_modules,
        "migration_by_modules": {str(n): _row(m) for n, m in by_modules.items()},
        "migration_method": (
            "cairn-sim, devices of 2-8 modules of 8 MHz Cortex-M0+ on the default bus, "
            "build/fw/migration-bench-<bytes>.elf: one movable task with a state block of <bytes> "
            "moved once from module 0 to module 1, no retransmission; latency = the source's "
            "MIG_REQUEST word -> the destination's MIG_COMMITTED word, freeze = the source's "
            "MIG_FROZEN -> MIG_UNFROZEN, in cycles from the trace's stamps; fit: least squares "
            "over the sizes at 2 modules"),
    }


def _row(m: Migration) -> dict[str, int]:
    return {"latency_cycles": m.latency, "freeze_cycles": m.freeze, "freezing_cycles": m.freezing,
            "transfer_cycles": m.transfer, "commit_cycles": m.commit, "state_parts": m.parts}


if __name__ == "__main__":
    import json

    print(json.dumps(measure(), indent=2))
