"""Readable reports of a differing case: its code (disassembled with capstone when present),
the initial registers, and the first differing step with the registers before and after on
both sides."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .contract import STATE_FIELDS, Case, Result, normalize_fault

M32 = 0xFFFF_FFFF


@lru_cache(maxsize=1)
def _capstone() -> Any:
    try:
        import capstone

        md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
        return md
    except Exception:  # capstone is optional: fall back to hex
        return None


def disasm(raw: bytes, addr: int) -> str:
    md = _capstone()
    if md is not None:
        for ins in md.disasm(raw, addr, 1):
            return f"{ins.mnemonic} {ins.op_str}".strip()
    return "(undecodable)" if md is not None else ""


def insn_at(case: Case, pc: int) -> tuple[bytes, str]:
    """The bytes at pc as the case lays them out (flash outside `code` is zero)."""
    off = pc - case.code_addr
    if 0 <= off < len(case.code):
        raw = case.code[off : off + 4].ljust(4, b"\0")
    elif 0 <= pc < 4 << 20:
        raw = bytes(4)
    else:
        return b"", "(unmapped)"
    hw1 = int.from_bytes(raw[:2], "little")
    size = 4 if (hw1 >> 11) >= 0x1D else 2
    return raw[:size], disasm(raw[:size], pc)


def _hexbytes(raw: bytes) -> str:
    return " ".join(f"{int.from_bytes(raw[i:i + 2], 'little'):04x}" for i in range(0, len(raw), 2))


def flags(apsr: int) -> str:
    return "".join(c if apsr >> (31 - i) & 1 else c.lower() for i, c in enumerate("NZCV"))


def _fmt(field: str, v: int | None) -> str:
    if v is None:
        return "-"
    if field == "apsr":
        return f"{v:08x} {flags(v)}"
    if field == "memhash":
        return f"{v:016x}"
    return f"{v:08x}"


def initial_row(case: Case) -> list[int | None]:
    return [*case.regs, case.code_addr & ~1, case.apsr, None]


def first_difference(ours: Result, theirs: Result) -> int:
    """Index of the first differing state (len of the shorter list if one is a prefix)."""
    for k, (a, b) in enumerate(zip(ours.states, theirs.states)):
        if a != b:
            return k
    return min(len(ours.states), len(theirs.states))


def describe(case: Case, ours: Result, theirs: Result, ours_name: str = "unicorn", theirs_name: str = "cairn-sim",
             reason: str = "") -> str:  # fmt: skip
    lines: list[str] = []
    w = max(len(ours_name), len(theirs_name), 10)
    lines.append(f"=== case {case.index} (seed {case.seed}): {reason}")
    lines.append(f"    reproduce: python -m cairn.difftest --seed {case.seed} --case {case.index}")
    lines.append(
        f"    code_addr=0x{case.code_addr:08x} mem=0x{case.mem_addr:08x}+{len(case.mem)} steps={case.steps}"
        f" apsr={flags(case.apsr)}"
    )
    lines.append("    code:")
    for ins in case.insns:
        raw = ins.raw()
        note = f"  ({ins.note})" if ins.note else ""
        lines.append(f"      0x{ins.addr:08x}: {_hexbytes(raw):<10} {disasm(raw, ins.addr):<28} [{ins.cls}]{note}")
    regs = "  ".join(f"{STATE_FIELDS[i]}={v:08x}" for i, v in enumerate(case.regs))
    lines.append(f"    initial: {regs}")
    k = first_difference(ours, theirs)
    prev: list[int | None] = list(ours.states[k - 1]) if k > 0 else initial_row(case)
    pc = prev[15]
    if pc is not None:
        raw, text = insn_at(case, pc)
        lines.append(f"    step {k} executes 0x{pc:08x}: {_hexbytes(raw)}  {text}")
    a = ours.states[k] if k < len(ours.states) else None
    b = theirs.states[k] if k < len(theirs.states) else None
    lines.append(f"      {'field':<8} {'before':<17} {ours_name:<{w + 7}} {theirs_name:<{w + 7}}")
    for i, name in enumerate(STATE_FIELDS):
        va = a[i] if a is not None else None
        vb = b[i] if b is not None else None
        mark = "  <<" if va != vb else ""
        lines.append(f"      {name:<8} {_fmt(name, prev[i]):<17} {_fmt(name, va):<{w + 7}} {_fmt(name, vb):<{w + 7}}{mark}")
    if a is not None and b is not None:
        diff = [name for i, name in enumerate(STATE_FIELDS) if a[i] != b[i]]
        lines.append(f"    differing fields: {', '.join(diff)}")
    fo, ft = normalize_fault(ours.fault), normalize_fault(theirs.fault)
    lines.append(
        f"    {ours_name}: {len(ours.states)} states, fault={ours.fault!r}; "
        f"{theirs_name}: {len(theirs.states)} states, fault={theirs.fault!r}"
        + ("" if fo == ft else f"  (normalised: {fo!r} vs {ft!r})")
    )
    return "\n".join(lines)
