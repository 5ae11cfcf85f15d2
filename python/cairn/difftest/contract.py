"""The `cairn-sim exec-cases` contract: case and result records, their JSON form, the
memory hash, and the fault vocabulary both sides are compared in.

Input, one JSON object per line::

    {"code_addr": int, "code": "<hex>", "mem_addr": int, "mem": "<hex>",
     "regs": [r0, ..., r12, sp, lr], "apsr": int, "steps": int}

The simulator maps flash at 0x00000000 (4 MiB) and SRAM at 0x20000000 (4 MiB), zero-filled,
writes `code` at `code_addr` and `mem` at `mem_addr`, sets the registers (SP is MSP, thread
mode, privileged; only APSR bits 31..28 of `apsr` are used), sets PC = code_addr and executes
`steps` instructions one at a time.

Output, one JSON object per input line, in order::

    {"states": [[r0, ..., r12, sp, lr, pc, apsr, memhash], ...], "fault": null | "<kind>"}

One state after each executed instruction; `pc` is the address of the next instruction,
`apsr` is masked to bits 31..28 and `memhash` is FNV-1a 64 over the `mem` window. If
instruction k (0-based) faults, there are k states and `fault` names the fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FLASH_BASE = 0x0000_0000
FLASH_SIZE = 4 << 20
SRAM_BASE = 0x2000_0000
SRAM_SIZE = 4 << 20

#: Field names of one state row, in order.
STATE_FIELDS: tuple[str, ...] = tuple(f"r{i}" for i in range(13)) + ("sp", "lr", "pc", "apsr", "memhash")
N_REGS_IN = 15  # r0..r12, sp, lr
PC_IDX = 15
APSR_IDX = 16
HASH_IDX = 17
APSR_MASK = 0xF000_0000

FNV_OFFSET = 0xCBF2_9CE4_8422_2325
FNV_PRIME = 0x0000_0100_0000_01B3
_M64 = 0xFFFF_FFFF_FFFF_FFFF


def fnv1a64(data: bytes) -> int:
    """FNV-1a, 64-bit."""
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & _M64
    return h


# --------------------------------------------------------------------------- faults
#: Normalised fault kinds. Either side's own text is mapped onto these before comparing.
FAULT_KINDS = ("undefined", "unaligned", "bus", "bkpt", "svc", "invstate")


def normalize_fault(text: str | None) -> str | None:
    """Map a fault description to a kind in FAULT_KINDS (or 'other: <text>').

    cairn-sim reports e.g. "undefined instruction", "unaligned access at 0x...",
    "bus error at 0x...", "instruction fetch from non-executable address 0x...",
    "system instruction Svc", "lockup: <kind>"; the unicorn side reports the bare kinds.
    Unmapped data accesses and unmapped/non-executable instruction fetches are all "bus".
    """
    if text is None:
        return None
    t = text.strip().lower()
    if t.startswith("lockup:"):
        t = t[len("lockup:"):].strip()
    if t in FAULT_KINDS:
        return t
    if "undefined" in t or t.startswith("undef") or "udf" in t:
        return "undefined"
    if "unaligned" in t or "alignment" in t:
        return "unaligned"
    if "bus" in t or "unmapped" in t or "non-executable" in t or "no execute" in t:
        return "bus"
    if "svc" in t or "supervisor" in t:
        return "svc"
    if "bkpt" in t or "breakpoint" in t:
        return "bkpt"
    if "invalid state" in t or "invstate" in t or "arm state" in t:
        return "invstate"
    return "other: " + t


# --------------------------------------------------------------------------- records
@dataclass(slots=True)
class Insn:
    """One generated instruction, for reports and coverage statistics."""

    addr: int
    hws: tuple[int, ...]  # one or two halfwords
    cls: str  # encoding class, e.g. "dp_lsl", "ldr_imm", "bl"
    note: str = ""  # e.g. "fault:unaligned", "target:sled"

    @property
    def size(self) -> int:
        return 2 * len(self.hws)

    def raw(self) -> bytes:
        return b"".join(h.to_bytes(2, "little") for h in self.hws)


@dataclass(slots=True)
class Case:
    code_addr: int
    code: bytes
    mem_addr: int
    mem: bytes
    regs: list[int]  # r0..r12, sp, lr
    apsr: int
    steps: int
    # Not part of the wire format:
    seed: int = 0
    index: int = 0
    insns: list[Insn] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "code_addr": self.code_addr,
                "code": self.code.hex(),
                "mem_addr": self.mem_addr,
                "mem": self.mem.hex(),
                "regs": self.regs,
                "apsr": self.apsr,
                "steps": self.steps,
            },
            separators=(",", ":"),
        )

    @staticmethod
    def from_json(line: str) -> Case:
        d = json.loads(line)
        return Case.from_dict(d)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Case:
        regs = [int(v) & 0xFFFF_FFFF for v in d["regs"]]
        if len(regs) != N_REGS_IN:
            raise ValueError(f"regs must hold {N_REGS_IN} values (r0..r12, sp, lr), got {len(regs)}")
        return Case(
            code_addr=int(d["code_addr"]),
            code=bytes.fromhex(d["code"]),
            mem_addr=int(d["mem_addr"]),
            mem=bytes.fromhex(d["mem"]),
            regs=regs,
            apsr=int(d["apsr"]) & APSR_MASK,
            steps=int(d["steps"]),
        )


@dataclass(slots=True)
class Result:
    states: list[list[int]]
    fault: str | None  # as reported (not normalised)

    def to_json(self) -> str:
        return json.dumps({"states": self.states, "fault": self.fault}, separators=(",", ":"))

    @staticmethod
    def from_json(line: str) -> Result:
        d = json.loads(line)
        if not isinstance(d, dict) or "states" not in d or "fault" not in d:
            raise ValueError("result object needs 'states' and 'fault'")
        states = d["states"]
        if not isinstance(states, list) or any(not isinstance(s, list) or len(s) != len(STATE_FIELDS) for s in states):
            raise ValueError(f"each state must be a list of {len(STATE_FIELDS)} integers")
        fault = d["fault"]
        if fault is not None and not isinstance(fault, str):
            raise ValueError("'fault' must be null or a string")
        return Result(states=states, fault=fault)
