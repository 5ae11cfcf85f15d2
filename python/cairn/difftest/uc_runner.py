"""Run exec-cases on unicorn (QEMU's Cortex-M0 model), producing the same state rows as
`cairn-sim exec-cases`.

Two runners:

* UnicornRunner: the fast one the differential test uses. One Uc for all cases. It single-
  steps with `emu_start(pc|1, until=next_pc)`, where next_pc comes from a small decoder of
  control flow (thumb.next_pc) applied to unicorn's own current state. (Stepping with
  `count=1` or stopping from a code hook makes unicorn re-translate at ~0.5 ms per new block,
  about 50x slower.) Registers are read with one raw uc_reg_read_batch call per step.
* ReferenceRunner: the slow, independent one. A fresh Uc per case, `count=1` stepping and
  only the public unicorn API; it also flags any store outside the mem window (a generator
  bug). `--self-check` compares the two to prove the fast runner and the plumbing.

Unicorn notes that shape this module:
* UC_MODE_MCLASS makes unicorn ignore ctl_set_cpu_model and use a Cortex-M33 (ARMv8-M,
  Thumb-2). A plain UC_MODE_THUMB engine with the CPU model set to UC_CPU_ARM_CORTEX_M0 is an
  ARMv6-M M-profile core (v6-M 32-bit whitelist, alignment traps).
* uc_mem_write does not invalidate translated blocks: after rewriting code the range must be
  dropped with ctl_remove_cache, or the old code runs.
* SVC, BKPT and alignment faults arrive as interrupts (UC_HOOK_INTR intno 2, 7, 4); undefined
  encodings as UC_ERR_INSN_INVALID; unmapped accesses as UC_ERR_{READ,WRITE,FETCH}_UNMAPPED.
"""

from __future__ import annotations

import ctypes
from typing import Any

from unicorn import (
    UC_ARCH_ARM,
    UC_ERR_FETCH_UNMAPPED,
    UC_ERR_INSN_INVALID,
    UC_ERR_READ_UNMAPPED,
    UC_ERR_WRITE_UNMAPPED,
    UC_HOOK_INTR,
    UC_HOOK_MEM_WRITE,
    UC_MODE_THUMB,
    Uc,
    UcError,
)
from unicorn import arm_const as A

from . import thumb
from .contract import APSR_MASK, FLASH_BASE, FLASH_SIZE, SRAM_BASE, SRAM_SIZE, Case, Result, fnv1a64

# QEMU exception numbers (target/arm/cpu.h) as seen by UC_HOOK_INTR.
EXCP_UDEF = 1
EXCP_SWI = 2
EXCP_DATA_ABORT = 4  # on this M0 model: alignment fault (unmapped memory is a UcError)
EXCP_BKPT = 7
EXCP_INVSTATE = 18

INTR_KIND = {EXCP_UDEF: "undefined", EXCP_SWI: "svc", EXCP_DATA_ABORT: "unaligned", EXCP_BKPT: "bkpt",
             EXCP_INVSTATE: "invstate"}  # fmt: skip
UCERR_KIND = {
    UC_ERR_INSN_INVALID: "undefined",
    UC_ERR_READ_UNMAPPED: "bus",
    UC_ERR_WRITE_UNMAPPED: "bus",
    UC_ERR_FETCH_UNMAPPED: "bus",
}

STATE_REGS = [A.UC_ARM_REG_R0 + i for i in range(13)] + [
    A.UC_ARM_REG_SP,
    A.UC_ARM_REG_LR,
    A.UC_ARM_REG_PC,
    A.UC_ARM_REG_APSR,
]
INIT_REGS = [A.UC_ARM_REG_R0 + i for i in range(13)] + [
    A.UC_ARM_REG_SP,
    A.UC_ARM_REG_LR,
    A.UC_ARM_REG_APSR_NZCV,
    A.UC_ARM_REG_PRIMASK,
]

M32 = 0xFFFF_FFFF


def new_uc() -> Any:
    """A Cortex-M0 unicorn with flash and SRAM mapped. (Not UC_MODE_MCLASS: see module doc.)"""
    uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB)
    uc.ctl_set_cpu_model(A.UC_CPU_ARM_CORTEX_M0)
    uc.mem_map(FLASH_BASE, FLASH_SIZE)
    uc.mem_map(SRAM_BASE, SRAM_SIZE)
    return uc


def uc_fault_kind(err: UcError) -> str:
    return UCERR_KIND.get(err.errno, f"unicorn error {err.errno}: {err}")


class UnicornRunner:
    """Fast runner: one Uc for all cases, `until`-stepping, raw register batch reads."""

    def __init__(self) -> None:
        self.uc = new_uc()
        self._intr: int | None = None
        self.uc.hook_add(UC_HOOK_INTR, self._on_intr)
        self._written: list[tuple[int, int]] = []
        self.fallback_steps = 0  # steps that needed count=1 (branch to itself)
        self._raw = _RawRegs(self.uc)

    def _on_intr(self, uc: Any, intno: int, user_data: Any) -> None:
        self._intr = intno
        uc.emu_stop()

    def _load(self, case: Case) -> None:
        uc = self.uc
        for addr, size in self._written:
            uc.mem_write(addr, bytes(size))
            if addr < FLASH_BASE + FLASH_SIZE:
                uc.ctl_remove_cache(addr, addr + size)
        uc.mem_write(case.code_addr, case.code)
        uc.ctl_remove_cache(case.code_addr, case.code_addr + len(case.code))
        uc.mem_write(case.mem_addr, case.mem)
        self._written = [(case.code_addr, len(case.code)), (case.mem_addr, len(case.mem))]
        self._raw.write_init(case.regs + [case.apsr & APSR_MASK, 0])

    def _read32(self, addr: int) -> int:
        try:
            return int.from_bytes(self._raw.mem_read(addr, 4), "little")
        except UcError:
            return 0

    def run(self, case: Case) -> Result:
        uc = self.uc
        self._load(case)
        raw = self._raw
        mem_addr, mem_len = case.mem_addr, len(case.mem)
        last_mem = case.mem
        last_hash: int | None = None
        states: list[list[int]] = []
        regs = list(case.regs)
        apsr = case.apsr & APSR_MASK
        pc = case.code_addr & ~1
        fault: str | None = None
        code, code_addr, code_len = case.code, case.code_addr, len(case.code)
        for _ in range(case.steps):
            try:
                off = pc - code_addr
                ins = code[off : off + 4] if 0 <= off <= code_len - 4 else raw.mem_read(pc, 4)
                hw1 = ins[0] | ins[1] << 8
                hw2 = ins[2] | ins[3] << 8
                until = thumb.next_pc(pc, hw1, hw2, regs, apsr, self._read32)
            except UcError:
                # PC in unmapped memory. Having stopped here as an `until` address, unicorn
                # restarts here without running or reporting anything unless its translation
                # cache is flushed; then count=1 stepping reports the fetch fault.
                uc.ctl_flush_tb()
                until = pc
            self._intr = None
            if until == pc:  # (also) a branch to itself: `until` cannot express one step
                self.fallback_steps += 1
                err = raw.emu_start(pc | 1, 0xFFFF_FFFE, 1)
            else:
                err = raw.emu_start(pc | 1, until, 0)
                if not err and self._intr is None and raw.read_pc() == pc:
                    # Nothing ran: unicorn can keep a stale "stop here" block for an address
                    # it last stopped at as `until` (seen for address 0). Flush, count=1.
                    self.fallback_steps += 1
                    uc.ctl_flush_tb()
                    err = raw.emu_start(pc | 1, 0xFFFF_FFFE, 1)
            if self._intr is not None:
                fault = INTR_KIND.get(self._intr, f"unicorn interrupt {self._intr}")
                break
            if err:
                fault = uc_fault_kind(UcError(err))
                break
            row = raw.read_state()
            row[16] &= APSR_MASK
            if row[15] != until and until != pc:
                fault = f"harness: unicorn stopped at 0x{row[15]:08x}, predicted 0x{until:08x}"
                break
            mem = raw.mem_read(mem_addr, mem_len)
            if mem != last_mem or last_hash is None:
                last_hash = fnv1a64(mem)
                last_mem = mem
            row.append(last_hash)
            states.append(row)
            regs = row[:15]
            pc = row[15]
            apsr = row[16]
        return Result(states, fault)


class _RawRegs:
    """uc_reg_read_batch / uc_reg_write_batch / uc_emu_start through ctypes with preallocated
    buffers: the binding's reg_read_batch costs ~40 us for 17 registers, this ~2 us."""

    def __init__(self, uc: Any) -> None:
        self.uc = uc
        try:
            from unicorn.unicorn_py3 import unicorn as _binding

            self.lib: Any = _binding.uclib
            self.handle: Any = uc._uch
        except (ImportError, AttributeError):  # another binding layout: use the public API
            self.lib = None
        n = len(STATE_REGS)
        self.n = n
        self.ids = (ctypes.c_int * n)(*STATE_REGS)
        self.vals = (ctypes.c_uint32 * n)()
        base = ctypes.addressof(self.vals)
        self.ptrs = (ctypes.c_void_p * n)(*[base + 4 * i for i in range(n)])
        m = len(INIT_REGS)
        self.m = m
        self.init_ids = (ctypes.c_int * m)(*INIT_REGS)
        self.init_vals = (ctypes.c_uint32 * m)()
        ibase = ctypes.addressof(self.init_vals)
        self.init_ptrs = (ctypes.c_void_p * m)(*[ibase + 4 * i for i in range(m)])
        self.buf = ctypes.create_string_buffer(4096)

    def read_state(self) -> list[int]:
        if self.lib is None:
            return [int(v) & M32 for v in self.uc.reg_read_batch(STATE_REGS)]
        err = self.lib.uc_reg_read_batch(self.handle, self.ids, self.ptrs, self.n)
        if err:
            raise UcError(err)
        return self.vals[:]

    def mem_read(self, addr: int, size: int) -> bytes:
        """Raises UcError for unmapped memory."""
        if self.lib is None or size > len(self.buf):
            return bytes(self.uc.mem_read(addr, size))
        err = self.lib.uc_mem_read(self.handle, addr, self.buf, size)
        if err:
            raise UcError(err)
        return ctypes.string_at(self.buf, size)

    def read_pc(self) -> int:
        return int(self.uc.reg_read(A.UC_ARM_REG_PC))

    def write_init(self, values: list[int]) -> None:
        if self.lib is None:
            self.uc.reg_write_batch(list(zip(INIT_REGS, values)))
            return
        for i, v in enumerate(values):
            self.init_vals[i] = v
        err = self.lib.uc_reg_write_batch(self.handle, self.init_ids, self.init_ptrs, self.m)
        if err:
            raise UcError(err)

    def emu_start(self, begin: int, until: int, count: int) -> int:
        """Returns the uc_err status (0 = OK) instead of raising."""
        if self.lib is None:
            try:
                self.uc.emu_start(begin, until, count=count)
            except UcError as e:
                return int(e.errno)
            return 0
        return int(self.lib.uc_emu_start(self.handle, begin, until, 0, count))


class ReferenceRunner:
    """Slow, independent runner: fresh Uc per case, count=1 stepping, public API only."""

    def run(self, case: Case) -> Result:
        uc = new_uc()
        intr: list[int] = []
        outside: list[int] = []
        lo, hi = case.mem_addr, case.mem_addr + len(case.mem)

        def on_intr(u: Any, intno: int, ud: Any) -> None:
            intr.append(intno)
            u.emu_stop()

        def on_write(u: Any, access: int, addr: int, size: int, value: int, ud: Any) -> None:
            if addr < lo or addr + size > hi:
                outside.append(addr)

        uc.hook_add(UC_HOOK_INTR, on_intr)
        uc.hook_add(UC_HOOK_MEM_WRITE, on_write, None, 0, M32)
        uc.mem_write(case.code_addr, case.code)
        uc.mem_write(case.mem_addr, case.mem)
        for reg, val in zip(INIT_REGS, case.regs + [case.apsr & APSR_MASK, 0]):
            uc.reg_write(reg, val)
        pc = case.code_addr & ~1
        states: list[list[int]] = []
        fault: str | None = None
        for k in range(case.steps):
            try:
                uc.emu_start(pc | 1, 0xFFFF_FFFE, count=1)
            except UcError as e:
                new_pc = uc.reg_read(A.UC_ARM_REG_PC) & M32
                if e.errno == UC_ERR_FETCH_UNMAPPED and new_pc != pc and not intr:
                    # unicorn translates the next block before `count` stops it, so a
                    # branch to unmapped memory reports the fetch inside the branch's own
                    # step. The branch itself completed: record it, the fetch faults next.
                    states.append(self._row(uc, case))
                    if k + 1 < case.steps:
                        fault = "bus"
                    break
                fault = uc_fault_kind(e)
                break
            if intr:
                fault = INTR_KIND.get(intr[0], f"unicorn interrupt {intr[0]}")
                break
            if outside:
                fault = f"harness: store outside the mem window at 0x{outside[0]:08x}"
                break
            row = self._row(uc, case)
            states.append(row)
            pc = row[15]
        return Result(states, fault)

    @staticmethod
    def _row(uc: Any, case: Case) -> list[int]:
        row = [uc.reg_read(r) & M32 for r in STATE_REGS]
        row[16] &= APSR_MASK
        row.append(fnv1a64(bytes(uc.mem_read(case.mem_addr, len(case.mem)))))
        return row
