"""What the differential-test generator draws from: encoding classes and their weights, value
distributions, address-space layout constants, and the behaviours deliberately excluded
(EXCLUDED_BEHAVIOURS), each with the reason. gen.py builds cases from these."""

from __future__ import annotations

import itertools
import random

from . import thumb as T
from .contract import FLASH_BASE, FLASH_SIZE

M32 = 0xFFFF_FFFF

EXCLUDED_BEHAVIOURS: tuple[str, ...] = (
    "CBZ/CBNZ (0xB1xx, 0xB3xx, 0xB9xx, 0xBBxx): UNDEFINED on ARMv6-M, but unicorn's Cortex-M0 executes them.",
    "IT (0xBFx1-0xBFxF): UNDEFINED on ARMv6-M, but unicorn executes IT blocks.",
    "SETEND (0xB650, 0xB658): UNDEFINED on ARMv6-M, but unicorn executes it.",
    "YIELD and WFE: NOP-like hints on a Cortex-M0+, but unicorn stops with UC_ERR_INSN_INVALID; "
    "WFI and WFE sleep on the M0+ (exec-cases has nothing to wake it).",
    "Unallocated hints (0xBF50-0xBFF0): 'execute as NOP, software must not use them'.",
    "CPS with A/F or should-be bits set: UNPREDICTABLE on ARMv6-M; only CPSIE i / CPSID i are generated.",
    "MSR APSR with bit 27 set: the Cortex-M0+ has no Q flag (bit 27 reserved), unicorn's model keeps it "
    "and MRS reads it back.",
    "MSR to registers other than APSR (PRIMASK, CONTROL, MSP, PSP), MRS PSP: change or read state the "
    "exec-cases contract does not define.",
    "MSR/MRS/DSB/DMB/ISB with non-default should-be bits or barrier options: UNPREDICTABLE/reserved.",
    "Writing a non-word-aligned value to SP (MOV SP, ADD SP, Rm): UNPREDICTABLE; QEMU clears bits 1:0.",
    "PC as destination of anything but branch-like ADD PC,Rm / MOV PC,Rm / POP {PC} / BX / BLX; "
    "ADD PC,PC, ADD PC,SP, MOV PC,PC, BX PC, BLX PC, BX/BLX SP: UNPREDICTABLE or branch to ARM state.",
    "Branches whose target has bit 0 clear (BX/BLX/POP PC to an even address): INVSTATE fault happens "
    "at the next instruction on hardware, unicorn reports it inside the branch's own step.",
    "CMP (high registers) with both registers low or with PC: UNPREDICTABLE.",
    "BX/BLX with bits 2:0 set (should-be-zero): UNPREDICTABLE.",
    "Empty register lists in PUSH/POP/LDM/STM: UNPREDICTABLE.",
    "STM with the base register in the list but not lowest: stored value UNKNOWN.",
    "Stores to flash: cairn-sim's flash is read-only to the core, unicorn maps it RAM-like.",
    "Execution from SRAM and branches back into the block (loops other than branch-to-self): "
    "would need a full model in the generator to keep memory accesses in bounds.",
    "Accesses to the system and peripheral address ranges (0x40000000.., 0xE0000000..): "
    "cairn-sim has board devices there, unicorn has nothing mapped.",
)

# ---------------------------------------------------------------- layout constants
CODE_LO = 0x0001_0000
CODE_HI = 0x0030_0000
SLED = 32  # zero bytes after the block
SLED_TARGETS = 16  # branch targets in the first 16 bytes of the sled
POOL = 64  # random literal pool after the sled
FAR_MARGIN = 16  # 8 steps * 2 bytes of zero sled
FLASH_END = FLASH_BASE + FLASH_SIZE
WINDOW_SIZES = (64, 128, 256, 1088)
WINDOW_WEIGHTS = (3, 3, 4, 1)  # 1088: SP-relative offsets up to #1020

# Unmapped on both sides (and not a board device in cairn-sim): after flash, after SRAM,
# and the empty code-region space between them.
UNMAPPED_DATA = ((0x0040_0000, 0x0100_0000), (0x1000_0000, 0x1FF0_0000), (0x2040_0000, 0x2100_0000))

SP, LR, PC = 13, 14, 15
GP_REGS = tuple(range(13)) + (LR,)  # registers usable as general operands in high-register forms

SPECIAL_VALUES = (
    0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE, 0x8000_0001, 0x7FFF_FFFE,
    0x0000_FFFF, 0x0000_8000, 0x0000_7FFF, 0x0000_00FF, 0x0000_0080, 0x0000_007F, 0xFFFF_8000,
    0xFFFF_FF80, 0x0001_0000, 0x4000_0000, 0xC000_0000,
)  # fmt: skip

# Conditional/unconditional branch offset ranges relative to (address + 4).
RANGE_BCOND = (-256, 254)
RANGE_B = (-2048, 2046)
RANGE_BL = (-(1 << 24), (1 << 24) - 2)

# MRS SYSm values with defined, contract-determined results: APSR, IAPSR, EAPSR, XPSR, IPSR,
# EPSR, IEPSR, MSP, PRIMASK, CONTROL. (PSP is excluded: its value is not in the contract.)
MRS_SYSM = (0, 1, 2, 3, 5, 6, 7, 8, 16, 20)

# Unallocated 16-bit encodings that are UNDEFINED on ARMv6-M and fault in unicorn too (checked
# by stepping all 16-bit encodings on unicorn's Cortex-M0). EXCLUDED: the other UNDEFINED
# ones, CBZ/CBNZ (0xB1xx, 0xB3xx, 0xB9xx, 0xBBxx), IT (0xBFx1-0xBFxF) and SETEND
# (0xB650/0xB658), which unicorn executes; CPS with A or should-be bits (0xB664-0xB66F,
# 0xB674-0xB67F), UNPREDICTABLE rather than UNDEFINED.
UNDEF16_RANGES = ((0xB600, 0xB64F), (0xB680, 0xB6FF), (0xB700, 0xB7FF), (0xB800, 0xB8FF), (0xBA80, 0xBABF))


def shift_amount(rng: random.Random) -> int:
    """A register value for register-specified shifts: the amount is its bottom byte, so
    favour 0, 1..31, 32, 33..255 and values above 255 (upper bits must be ignored)."""
    r = rng.random()
    if r < 0.12:
        return 0
    if r < 0.45:
        return rng.randint(1, 31)
    if r < 0.60:
        return 32
    if r < 0.80:
        return rng.randint(33, 255)
    low = rng.choice((0, rng.randint(1, 31), 32, rng.randint(33, 255)))
    return (rng.randrange(1, 1 << 24) << 8) | low


def interesting(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.40:
        return rng.choice(SPECIAL_VALUES)
    if r < 0.55:
        return rng.randrange(256)
    if r < 0.65:
        return (-rng.randrange(1, 257)) & M32
    if r < 0.75:
        return shift_amount(rng)
    return rng.getrandbits(32)


# ---------------------------------------------------------------- classes
# name -> (size in bytes, weight). Weights make fault-producing classes rare so that most
# sequences run to the end.
CLASSES: dict[str, tuple[int, int]] = {
    "lsl_imm": (2, 10), "lsr_imm": (2, 10), "asr_imm": (2, 10),
    "add_reg": (2, 8), "sub_reg": (2, 8), "add_imm3": (2, 6), "sub_imm3": (2, 6),
    "mov_imm8": (2, 6), "cmp_imm8": (2, 6), "add_imm8": (2, 6), "sub_imm8": (2, 6),
    **{f"dp_{op}": (2, 8) for op in T.DP_OPS},
    "hi_add": (2, 8), "hi_cmp": (2, 6), "hi_mov": (2, 8),
    "add_sp_reg": (2, 3), "mov_sp_reg": (2, 3),
    "add_pc_reg": (2, 4), "mov_pc_reg": (2, 4), "bx": (2, 6), "blx": (2, 6),
    "ldr_lit": (2, 8), "adr": (2, 5), "add_rd_sp": (2, 5), "add_sp_imm": (2, 5), "sub_sp_imm": (2, 5),
    **{f"{op}_reg": (2, 7) for op in T.LS_REG_OPS},
    **{f"{op}_imm": (2, 7) for op in T.LS_IMM_BASE},
    "str_sp": (2, 7), "ldr_sp": (2, 7),
    **{op: (2, 5) for op in T.EXTEND_OPS},
    "rev": (2, 5), "rev16": (2, 5), "revsh": (2, 5),
    "push": (2, 8), "pop": (2, 8), "pop_pc": (2, 4),
    "ldm": (2, 8), "stm": (2, 8),
    "cps": (2, 2), "nop": (2, 2),
    "b_cond": (2, 14), "b": (2, 8), "bl": (4, 8),
    "mrs": (4, 3), "msr": (4, 3), "barrier": (4, 2),
    # Fault-producing classes.
    "udf": (2, 1), "svc": (2, 1), "bkpt": (2, 1), "undef16": (2, 1), "udf_w": (4, 1), "undef32": (4, 1),
}  # fmt: skip

CLASS_NAMES = tuple(CLASSES)
_CUM_WEIGHTS = tuple(itertools.accumulate(CLASSES[c][1] for c in CLASS_NAMES))


def pick_class(rng: random.Random) -> str:
    """A class name drawn with the CLASSES weights."""
    x = rng.random() * _CUM_WEIGHTS[-1]
    lo, hi = 0, len(_CUM_WEIGHTS) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _CUM_WEIGHTS[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return CLASS_NAMES[lo]

BRANCH_CLASSES = frozenset({"b_cond", "b", "bl", "bx", "blx", "add_pc_reg", "mov_pc_reg", "pop_pc"})
MEM_FAULT_P_UNALIGNED = 0.02
MEM_FAULT_P_UNMAPPED = 0.015
