"""ARMv6-M Thumb encoders, and a tiny decoder of control flow (where does the instruction
at PC go next) that the fast unicorn runner uses to single-step with `until` addresses.

Encodings follow the ARMv6-M Architecture Reference Manual (DDI 0419), section A5/A6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

M32 = 0xFFFF_FFFF

# ---------------------------------------------------------------- 16-bit encoders
# Shift (immediate), add, subtract, move, compare: 00xxxx
def shift_imm(op: int, rd: int, rm: int, imm5: int) -> int:
    """op: 0 LSLS, 1 LSRS, 2 ASRS (imm5 == 0 means #32 for LSR/ASR)."""
    return (op << 11) | (imm5 << 6) | (rm << 3) | rd


def add_sub_reg(sub: bool, rd: int, rn: int, rm: int) -> int:
    return 0x1800 | (int(sub) << 9) | (rm << 6) | (rn << 3) | rd


def add_sub_imm3(sub: bool, rd: int, rn: int, imm3: int) -> int:
    return 0x1C00 | (int(sub) << 9) | (imm3 << 6) | (rn << 3) | rd


def imm8_op(op: int, rdn: int, imm8: int) -> int:
    """op: 0 MOVS, 1 CMP, 2 ADDS, 3 SUBS."""
    return 0x2000 | (op << 11) | (rdn << 8) | imm8


DP_OPS = ("and", "eor", "lsl", "lsr", "asr", "adc", "sbc", "ror", "tst", "rsb", "cmp", "cmn", "orr", "mul", "bic", "mvn")


def dp(op: int, rdn: int, rm: int) -> int:
    """Data processing (register), 0100 00 op Rm Rdn. RSBS Rd,Rn,#0 is dp(9, Rd, Rn);
    MULS Rdm,Rn,Rdm is dp(13, Rdm, Rn)."""
    return 0x4000 | (op << 6) | (rm << 3) | rdn


def hi_op(op: int, rdn: int, rm: int) -> int:
    """Special data processing: op 0 ADD, 1 CMP, 2 MOV; registers 0..15."""
    return 0x4400 | (op << 8) | ((rdn >> 3) << 7) | (rm << 3) | (rdn & 7)


def bx(rm: int, link: bool = False) -> int:
    return 0x4700 | (int(link) << 7) | (rm << 3)


def ldr_lit(rt: int, imm8: int) -> int:
    return 0x4800 | (rt << 8) | imm8


# Load/store register offset: 0101 opB Rm Rn Rt
LS_REG_OPS = ("str", "strh", "strb", "ldrsb", "ldr", "ldrh", "ldrb", "ldrsh")


def ls_reg(opb: int, rt: int, rn: int, rm: int) -> int:
    return 0x5000 | (opb << 9) | (rm << 6) | (rn << 3) | rt


# Load/store immediate offset
LS_IMM_BASE = {"str": 0x6000, "ldr": 0x6800, "strb": 0x7000, "ldrb": 0x7800, "strh": 0x8000, "ldrh": 0x8800}


def ls_imm(op: str, rt: int, rn: int, imm5: int) -> int:
    return LS_IMM_BASE[op] | (imm5 << 6) | (rn << 3) | rt


def ls_sp(load: bool, rt: int, imm8: int) -> int:
    return (0x9800 if load else 0x9000) | (rt << 8) | imm8


def adr(rd: int, imm8: int) -> int:
    return 0xA000 | (rd << 8) | imm8


def add_rd_sp(rd: int, imm8: int) -> int:
    return 0xA800 | (rd << 8) | imm8


def sp_imm(sub: bool, imm7: int) -> int:
    return 0xB000 | (int(sub) << 7) | imm7


EXTEND_OPS = ("sxth", "sxtb", "uxth", "uxtb")


def extend(op: int, rd: int, rm: int) -> int:
    return 0xB200 | (op << 6) | (rm << 3) | rd


REV_OPS = {"rev": 0, "rev16": 1, "revsh": 3}


def rev(op: str, rd: int, rm: int) -> int:
    return 0xBA00 | (REV_OPS[op] << 6) | (rm << 3) | rd


def push(reglist: int, lr: bool) -> int:
    return 0xB400 | (int(lr) << 8) | reglist


def pop(reglist: int, pc: bool) -> int:
    return 0xBC00 | (int(pc) << 8) | reglist


CPSIE_I = 0xB662
CPSID_I = 0xB672
NOP = 0xBF00


def bkpt(imm8: int) -> int:
    return 0xBE00 | imm8


def stm(rn: int, reglist: int) -> int:
    return 0xC000 | (rn << 8) | reglist


def ldm(rn: int, reglist: int) -> int:
    return 0xC800 | (rn << 8) | reglist


def b_cond(cond: int, imm8: int) -> int:
    return 0xD000 | (cond << 8) | (imm8 & 0xFF)


def udf(imm8: int) -> int:
    return 0xDE00 | imm8


def svc(imm8: int) -> int:
    return 0xDF00 | imm8


def b_uncond(imm11: int) -> int:
    return 0xE000 | (imm11 & 0x7FF)


# ---------------------------------------------------------------- 32-bit encoders
def bl(offset: int) -> tuple[int, int]:
    """BL with a byte offset from (address of BL + 4); offset even, -2^24 <= offset < 2^24."""
    off = offset & 0x1FF_FFFF
    s = (off >> 24) & 1
    i1 = (off >> 23) & 1
    i2 = (off >> 22) & 1
    imm10 = (off >> 12) & 0x3FF
    imm11 = (off >> 1) & 0x7FF
    j1 = (1 - i1) ^ s
    j2 = (1 - i2) ^ s
    return (0xF000 | (s << 10) | imm10, 0xD000 | (j1 << 13) | (j2 << 11) | imm11)


def mrs(rd: int, sysm: int) -> tuple[int, int]:
    return (0xF3EF, 0x8000 | (rd << 8) | sysm)


def msr(sysm: int, rn: int) -> tuple[int, int]:
    return (0xF380 | rn, 0x8800 | sysm)


BARRIERS = {"dsb": (0xF3BF, 0x8F4F), "dmb": (0xF3BF, 0x8F5F), "isb": (0xF3BF, 0x8F6F)}


def udf_w(imm16: int) -> tuple[int, int]:
    return (0xF7F0 | ((imm16 >> 12) & 0xF), 0xA000 | (imm16 & 0xFFF))


# The 32-bit encodings ARMv6-M defines (mask, value), as QEMU's v6-M filter sees them.
# A word that matches none of these is UNDEFINED on ARMv6-M (and UDEF in unicorn/QEMU).
V6M_32BIT_PATTERNS: tuple[tuple[int, int], ...] = (
    (0xFFE0D000, 0xF3808000),  # MSR
    (0xFFF0D0F0, 0xF3B08040),  # DSB
    (0xFFF0D0F0, 0xF3B08050),  # DMB
    (0xFFF0D0F0, 0xF3B08060),  # ISB
    (0xFFE0D000, 0xF3E08000),  # MRS
    (0xF800D000, 0xF000D000),  # BL
)


def is_32bit(hw1: int) -> bool:
    return (hw1 >> 11) >= 0x1D


# ---------------------------------------------------------------- condition codes
def cond_passed(cond: int, apsr: int) -> bool:
    n = (apsr >> 31) & 1
    z = (apsr >> 30) & 1
    c = (apsr >> 29) & 1
    v = (apsr >> 28) & 1
    base = cond >> 1
    if base == 0:
        r = z == 1
    elif base == 1:
        r = c == 1
    elif base == 2:
        r = n == 1
    elif base == 3:
        r = v == 1
    elif base == 4:
        r = c == 1 and z == 0
    elif base == 5:
        r = n == v
    elif base == 6:
        r = n == v and z == 0
    else:
        return True
    return r if (cond & 1) == 0 else not r


def sext(value: int, bits: int) -> int:
    sign = 1 << (bits - 1)
    return (value & (sign - 1)) - (value & sign)


def bl_offset(hw1: int, hw2: int) -> int:
    s = (hw1 >> 10) & 1
    j1 = (hw2 >> 13) & 1
    j2 = (hw2 >> 11) & 1
    i1 = 1 - (j1 ^ s)
    i2 = 1 - (j2 ^ s)
    imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FF) << 12) | ((hw2 & 0x7FF) << 1)
    return sext(imm, 25)


def next_pc(pc: int, hw1: int, hw2: int, regs: Sequence[int], apsr: int, read32: Callable[[int], int]) -> int:
    """Address of the instruction that executes after the one at `pc`, assuming it does not
    fault. `regs` are r0..r12, sp, lr (current values); `read32` reads a word of memory.

    Only control flow needs decoding: everything else goes to pc + size.
    """
    top = hw1 >> 11
    if top >= 0x1D:  # 32-bit
        if (hw1 & 0xF800) == 0xF000 and (hw2 & 0xD000) == 0xD000:  # BL
            return (pc + 4 + bl_offset(hw1, hw2)) & M32
        return (pc + 4) & M32
    if (hw1 & 0xF000) == 0xD000:
        cond = (hw1 >> 8) & 0xF
        if cond < 14 and cond_passed(cond, apsr):
            return (pc + 4 + 2 * sext(hw1 & 0xFF, 8)) & M32
        return (pc + 2) & M32
    if (hw1 & 0xF800) == 0xE000:  # B
        return (pc + 4 + 2 * sext(hw1 & 0x7FF, 11)) & M32
    if (hw1 & 0xFF00) == 0x4700:  # BX / BLX
        rm = (hw1 >> 3) & 0xF
        return (pc + 4 if rm == 15 else regs[rm]) & 0xFFFF_FFFE
    if (hw1 & 0xFC00) == 0x4400 and ((hw1 >> 8) & 3) != 1:  # ADD/MOV high, CMP excluded
        rd = ((hw1 >> 4) & 8) | (hw1 & 7)
        if rd == 15:
            rm = (hw1 >> 3) & 0xF
            vm = pc + 4 if rm == 15 else regs[rm]
            if (hw1 >> 8) & 3 == 0:  # ADD PC, Rm
                return (pc + 4 + vm) & 0xFFFF_FFFE
            return vm & 0xFFFF_FFFE  # MOV PC, Rm
    if (hw1 & 0xFF00) == 0xBD00:  # POP {..., PC}
        n = bin(hw1 & 0xFF).count("1")
        return read32((regs[13] + 4 * n) & M32) & 0xFFFF_FFFE
    return (pc + 2) & M32

