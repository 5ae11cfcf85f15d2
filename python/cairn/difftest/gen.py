"""Seeded generator of random ARMv6-M Thumb instruction sequences for the differential test.

Every case is reproducible from (seed, index) alone: `CaseGen(seed).case(index)`.

How a case is made safe to run on two emulators without a full ISA model in the generator:

* Control flow only goes forward (or to far-away zero-filled flash), so every instruction of
  the block executes at most once (a branch to itself may repeat only itself). Zero-filled
  flash decodes as `movs r0, r0`, a harmless instruction, so landing there is well defined.
  Layout of `code`: [block][32-byte zero sled][pad to 4][64-byte literal pool]; branch
  targets are block instruction boundaries after the branch, the first 16 bytes of the sled,
  zero flash beyond the pool or at least 16 bytes below the block (so at most 8 steps never
  run back into it), the branch itself, or (rarely) an unmapped address.
* Registers are tracked as FREE (initial value not yet relied on), PINNED (initial value
  relied on, not yet written) or DIRTY (maybe written). Addresses and branch targets are
  only formed from FREE registers (whose initial value is then chosen) or PINNED ones.
  SP is tracked as an interval of possible values that must stay inside the mem window.
* Memory bytes that may have been stored to are tracked, so a POP {PC} only pops a word
  whose initial content the generator chose.

Behaviours that are excluded because unicorn (QEMU's Cortex-M0 model) and a real Cortex-M0+
differ, or because ARMv6-M leaves them UNPREDICTABLE, are listed in EXCLUDED_BEHAVIOURS and
marked with "EXCLUDED:" at the place where generation avoids them. Nothing is excluded at
comparison time.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from . import thumb as T
from .contract import SRAM_BASE, SRAM_SIZE, Case, Insn
from .space import (
    LR,
    PC,
    SP,
    BRANCH_CLASSES,
    CLASSES,
    CODE_HI,
    CODE_LO,
    FAR_MARGIN,
    FLASH_END,
    GP_REGS,
    MEM_FAULT_P_UNALIGNED,
    MEM_FAULT_P_UNMAPPED,
    MRS_SYSM,
    POOL,
    RANGE_B,
    RANGE_BCOND,
    RANGE_BL,
    SLED,
    SLED_TARGETS,
    SPECIAL_VALUES,
    UNDEF16_RANGES,
    UNMAPPED_DATA,
    WINDOW_SIZES,
    WINDOW_WEIGHTS,
    pick_class,
    interesting,
    shift_amount,
)

M32 = 0xFFFF_FFFF
FREE, PINNED, DIRTY = 0, 1, 2  # register tracking states, see the module doc


class CaseGen:
    """Reproducible stream of cases: case(index) depends only on (seed, index)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def case(self, index: int) -> Case:
        rng = random.Random((self.seed & 0xFFFF_FFFF_FFFF) * 0x1_0000_0000 + index)
        return _Builder(rng, self.seed, index).build()

    def cases(self, n: int, start: int = 0) -> Iterator[Case]:
        for i in range(start, start + n):
            yield self.case(i)


class _Builder:
    def __init__(self, rng: random.Random, seed: int, index: int) -> None:
        self.rng = rng
        self.seed = seed
        self.index = index

    # ------------------------------------------------------------ set-up
    def build(self) -> Case:
        rng = self.rng
        n = rng.randint(1, 8)
        size = rng.choices(WINDOW_SIZES, WINDOW_WEIGHTS)[0]
        self.w0 = SRAM_BASE + 0x1000 + 4 * rng.randrange((SRAM_SIZE - 0x2000 - size) // 4)
        self.w1 = self.w0 + size
        self.mem = bytearray(rng.randbytes(size))
        self.dirty = bytearray(size)  # 1 = a store may have written this byte
        self.mem_pinned: dict[int, int] = {}  # word offset -> value relied on
        sp0 = self.w0 + 4 * rng.randint(0, size // 4)
        self.regs = [interesting(rng) for _ in range(13)] + [sp0, interesting(rng)]
        self.state = [FREE] * 15
        self.state[SP] = PINNED
        self.sp_lo = self.sp_hi = sp0
        self.sp_valid = True
        self.definite = True  # no branch so far: every instruction so far has executed
        self.apsr = rng.randrange(16) << 28

        classes = [pick_class(rng) for _ in range(n)]
        self.code_addr = 2 * rng.randrange(CODE_LO // 2, CODE_HI // 2)
        self.addrs: list[int] = []
        a = self.code_addr
        for c in classes:
            self.addrs.append(a)
            a += CLASSES[c][0]
        self.block_end = a
        self.pool_start = (self.block_end + SLED + 3) & ~3
        self.pool_end = self.pool_start + POOL

        insns: list[Insn] = []
        for i, cls in enumerate(classes):
            self.i = i
            self.a = self.addrs[i]
            self.note = ""
            hws = self._gen(cls)
            if hws is None:  # constraints could not be met: a filler of the same size
                self.note = ""
                cls, hws = self._filler(CLASSES[cls][0])
            insns.append(Insn(self.a, hws, cls, self.note))
            if cls in BRANCH_CLASSES:
                self.definite = False

        code = bytearray(b"".join(ins.raw() for ins in insns))
        code += bytes(self.pool_start - self.block_end)
        code += rng.randbytes(POOL)
        for off, val in self.mem_pinned.items():
            self.mem[off : off + 4] = val.to_bytes(4, "little")
        return Case(
            code_addr=self.code_addr,
            code=bytes(code),
            mem_addr=self.w0,
            mem=bytes(self.mem),
            regs=list(self.regs),
            apsr=self.apsr,
            steps=n,
            seed=self.seed,
            index=self.index,
            insns=insns,
        )

    def _gen(self, cls: str) -> tuple[int, ...] | None:
        g = _GENERATORS.get(cls)
        if g is not None:
            return g(self)
        if cls.startswith("dp_"):
            return self._g_dp(T.DP_OPS.index(cls[3:]))
        if cls.endswith("_reg") and cls[:-4] in T.LS_REG_OPS:
            return self._g_ls_reg(T.LS_REG_OPS.index(cls[:-4]))
        if cls.endswith("_imm") and cls[:-4] in T.LS_IMM_BASE:
            return self._g_ls_imm(cls[:-4])
        if cls in T.EXTEND_OPS:
            return (T.extend(T.EXTEND_OPS.index(cls), self._dst(), self._low()),)
        if cls in T.REV_OPS:
            return (T.rev(cls, self._dst(), self._low()),)
        raise AssertionError(f"no generator for class {cls}")

    def _filler(self, size: int) -> tuple[str, tuple[int, ...]]:
        if size == 4:
            return "barrier", T.BARRIERS["dmb"]
        op = self.rng.choice((0, 1, 12, 14, 15))  # ANDS EORS ORRS BICS MVNS
        return f"dp_{T.DP_OPS[op]}", (T.dp(op, self._dst(), self._low()),)

    # ------------------------------------------------------------ registers
    def _low(self) -> int:
        return self.rng.randrange(8)

    def _dst(self, r: int | None = None) -> int:
        """A destination register (random low register unless given); marks it DIRTY."""
        if r is None:
            r = self.rng.randrange(8)
        self._write(r)
        return r

    def _write(self, r: int) -> None:
        if r < 15 and r != SP:
            self.state[r] = DIRTY

    def _known(self, r: int) -> bool:
        return self.state[r] != DIRTY

    def _pin(self, r: int, value: int) -> bool:
        """Rely on register r holding `value` at this point. Possible if r is FREE (its initial
        value becomes `value`) or already PINNED to that value."""
        value &= M32
        if self.state[r] == FREE:
            self.regs[r] = value
            self.state[r] = PINNED
            return True
        return self.state[r] == PINNED and self.regs[r] == value

    def _free_regs(self, regs: tuple[int, ...] | range) -> list[int]:
        out = [r for r in regs if self.state[r] == FREE]
        self.rng.shuffle(out)
        return out

    def _known_regs(self, regs: tuple[int, ...] | range) -> list[int]:
        out = [r for r in regs if self.state[r] != DIRTY]
        self.rng.shuffle(out)
        return out

    # ------------------------------------------------------------ memory window
    def _rand_addr(self, size: int, align: int) -> int:
        return self.w0 + align * self.rng.randint(0, (self.w1 - self.w0 - size) // align)

    def _in_window(self, addr: int, size: int) -> bool:
        return self.w0 <= addr and addr + size <= self.w1

    def _transfer_reg(self, ft: tuple[int, str] | None, store: bool, target: int, size: int) -> int:
        """Pick the data register of a load/store of `size` bytes at `target` and record its
        effect (bytes a store may write, or the register a load overwrites)."""
        if ft:
            self.note = ft[1]
        rt = self._low()
        if store:
            self._stored(target, target + size)
        else:
            self._write(rt)
        return rt

    def _stored(self, lo: int, hi: int) -> None:
        """A store may write bytes [lo, hi)."""
        lo = max(lo, self.w0)
        hi = min(hi, self.w1)
        for off in range(lo - self.w0, hi - self.w0):
            self.dirty[off] = 1

    def _fault_target(self, size: int, align: int) -> tuple[int, str] | None:
        """Occasionally an address that must fault: unaligned, or unmapped."""
        r = self.rng.random()
        if align > 1 and r < MEM_FAULT_P_UNALIGNED:
            return self._rand_addr(size + align, align) + self.rng.randrange(1, align), "fault:unaligned"
        if r > 1 - MEM_FAULT_P_UNMAPPED:
            lo, hi = self.rng.choice(UNMAPPED_DATA)
            return lo + align * self.rng.randrange((hi - lo) // align), "fault:unmapped"
        return None

    # ------------------------------------------------------------ branch targets
    def _target(self, size: int, rng_off: tuple[int, int] | None, allow_self: bool = True) -> int:
        """Pick a safe branch target for the instruction at self.a. rng_off is the encodable
        offset range relative to a+4 (None: any address, for register branches)."""
        rng = self.rng
        a = self.a
        base = a + 4
        lo_t = 0 if rng_off is None else max(0, base + rng_off[0])
        hi_t = (1 << 32) - 2 if rng_off is None else base + rng_off[1]
        cands: list[tuple[str, int, Callable[[], int]]] = []

        def add(name: str, weight: int, lo: int, hi: int) -> None:
            lo = max(lo, lo_t)
            hi = min(hi, hi_t)
            if lo <= hi:
                cands.append((name, weight, lambda: _pick_even(rng, lo, hi)))

        later = self.addrs[self.i + 1 :]
        if later:
            cands.append(("fwd", 25, lambda: rng.choice(later)))
        add("next", 10, a + size, a + size)
        add("sled", 15, self.block_end, self.block_end + SLED_TARGETS)
        add("far_fwd", 15, self.pool_end, FLASH_END - 64)
        add("far_back", 15, 0, self.code_addr - FAR_MARGIN)
        if allow_self:
            add("self", 4, a, a)
        add("unmapped", 3, FLASH_END, 0x0100_0000)
        if rng_off is not None and rng_off[0] < -(1 << 20):
            # BL: negative offsets that wrap below address 0 (to 0xFFxxxxxx, unmapped/XN):
            # exercises the S/J1/J2 sign bits.
            lo_w = (base + rng_off[0]) & M32
            cands.append(("wrap", 3, lambda: _pick_even(rng, lo_w, 0xFFFF_FFF0)))
        if not cands:  # unreachable: "next" is always encodable
            return a + size
        total = sum(w for _, w, _ in cands)
        x = rng.random() * total
        for name, w, f in cands:
            x -= w
            if x < 0:
                break
        self.note = f"target:{name}"
        if name in ("far_fwd", "far_back") and rng.random() < 0.25:
            # Extremes of the encodable range.
            t = max(lo_t, 0) if name == "far_back" else min(hi_t, FLASH_END - 64)
            return t & ~1
        return f() & ~1

    # ------------------------------------------------------------ generators per class
    def _g_shift_imm(self, op: int) -> tuple[int, ...]:
        r = self.rng.random()
        imm5 = 0 if r < 0.2 else 1 if r < 0.3 else 31 if r < 0.4 else self.rng.randrange(32)
        rm = self._low()
        return (T.shift_imm(op, self._dst(), rm, imm5),)

    def _g_add_sub_reg(self, sub: bool) -> tuple[int, ...]:
        rn, rm = self._low(), self._low()
        return (T.add_sub_reg(sub, self._dst(), rn, rm),)

    def _g_add_sub_imm3(self, sub: bool) -> tuple[int, ...]:
        rn = self._low()
        return (T.add_sub_imm3(sub, self._dst(), rn, self.rng.randrange(8)),)

    def _g_imm8(self, op: int) -> tuple[int, ...]:
        r = self.rng.random()
        imm = 0 if r < 0.1 else 255 if r < 0.2 else 1 if r < 0.25 else self.rng.randrange(256)
        rdn = self._low()
        if op != 1:
            self._write(rdn)
        return (T.imm8_op(op, rdn, imm),)

    def _g_dp(self, op: int) -> tuple[int, ...]:
        rdn, rm = self._low(), self._low()
        if op in (2, 3, 4, 7):  # register shifts: favour edge amounts (Rm's bottom byte)
            if self.state[rm] == FREE:
                self._pin(rm, shift_amount(self.rng))
            if self.state[rm] == PINNED:
                self.note = f"shift_by:{self.regs[rm]}"
        if op not in (8, 10, 11):  # TST CMP CMN write nothing
            self._write(rdn)
        return (T.dp(op, rdn, rm),)

    def _g_hi_add(self) -> tuple[int, ...]:
        # ADD Rdn, Rm with Rdn in r0-r12/LR; Rm may be SP ("ADD Rd, SP, Rd") or PC (reads
        # address+4). SP/PC destinations are the add_sp_reg/add_pc_reg classes.
        rdn = self.rng.choice(GP_REGS)
        rm = self.rng.randrange(16)
        self._write(rdn)
        return (T.hi_op(0, rdn, rm),)

    def _g_hi_cmp(self) -> tuple[int, ...]:
        # EXCLUDED: both registers low, or either PC: UNPREDICTABLE.
        while True:
            rn, rm = self.rng.randrange(15), self.rng.randrange(15)
            if rn >= 8 or rm >= 8:
                return (T.hi_op(1, rn, rm),)

    def _g_hi_mov(self) -> tuple[int, ...]:
        rd = self.rng.choice(GP_REGS)
        rm = self.rng.randrange(16)
        self._write(rd)
        return (T.hi_op(2, rd, rm),)

    def _sp_change(self, lo: int, hi: int) -> None:
        """SP becomes some value in [lo, hi] if this instruction executes."""
        if self.definite:
            self.sp_lo, self.sp_hi = lo, hi
            self.sp_valid = self.w0 <= lo and hi <= self.w1 and lo % 4 == 0
        elif self.sp_valid and self.w0 <= lo and hi <= self.w1:
            self.sp_lo, self.sp_hi = min(self.sp_lo, lo), max(self.sp_hi, hi)
        else:
            self.sp_valid = False

    def _sp_delta(self, d: int) -> None:
        if self.sp_valid:
            self._sp_change(self.sp_lo + d, self.sp_hi + d)
        # else: stays unknown

    def _g_add_sp_reg(self) -> tuple[int, ...] | None:
        # ADD SP, Rm. EXCLUDED: a non-word-aligned Rm (SP would become unaligned: UNPREDICTABLE).
        if self.rng.random() < 0.05:  # ADD SP, SP: SP leaves the window
            self.sp_valid = False
            return (T.hi_op(0, SP, SP),)
        for rm in self._known_regs(GP_REGS):
            if self.state[rm] == FREE:
                if self.sp_valid and self.rng.random() < 0.9:
                    d = 4 * self.rng.randint((self.w0 - self.sp_lo) // 4, (self.w1 - self.sp_hi) // 4)
                else:
                    d = self.rng.getrandbits(32) & ~3
                self._pin(rm, d)
            elif self.regs[rm] & 3:
                continue
            d = self.regs[rm]
            d = d - (1 << 32) if d & 0x8000_0000 else d
            self._sp_delta(d)
            return (T.hi_op(0, SP, rm),)
        return None

    def _g_mov_sp_reg(self) -> tuple[int, ...] | None:
        # MOV SP, Rm. EXCLUDED: non-word-aligned values (UNPREDICTABLE).
        for rm in self._known_regs(GP_REGS):
            if self.state[rm] == FREE:
                v = self._rand_addr(0, 4) if self.rng.random() < 0.9 else self.rng.getrandbits(32) & ~3
                self._pin(rm, v)
            elif self.regs[rm] & 3:
                continue
            v = self.regs[rm]
            self._sp_change(v, v)
            return (T.hi_op(2, SP, rm),)
        return None

    def _g_add_pc_reg(self) -> tuple[int, ...] | None:
        # ADD PC, Rm: PC = (a + 4 + Rm) with bit 0 cleared. EXCLUDED: Rm = PC or SP.
        t = self._target(2, None)
        v = (t - (self.a + 4) + self.rng.randrange(2)) & M32
        for rm in self._free_regs(GP_REGS):
            self._pin(rm, v)
            return (T.hi_op(0, PC, rm),)
        return None

    def _g_mov_pc_reg(self) -> tuple[int, ...] | None:
        # MOV PC, Rm: PC = Rm with bit 0 cleared (no interworking). EXCLUDED: Rm = PC or SP.
        t = self._target(2, None)
        v = t | self.rng.randrange(2)
        for rm in self._free_regs(GP_REGS):
            self._pin(rm, v)
            return (T.hi_op(2, PC, rm),)
        return None

    def _g_bx(self, link: bool) -> tuple[int, ...] | None:
        # BX/BLX Rm with Rm = target | 1. EXCLUDED: even targets (INVSTATE), Rm = PC/SP.
        t = self._target(2, None)
        regs = self._free_regs(GP_REGS)
        pinned = [r for r in GP_REGS if self.state[r] == PINNED and self.regs[r] == t | 1]
        for rm in pinned + regs:
            self._pin(rm, t | 1)
            if link:
                self._write(LR)
            return (T.bx(rm, link),)
        return None

    def _g_ldr_lit(self) -> tuple[int, ...]:
        base = (self.a + 4) & ~3
        if self.rng.random() < 0.7:
            first = (self.pool_start - base) // 4
            imm = first + self.rng.randrange(POOL // 4)
        else:
            imm = self.rng.randrange(256)
        return (T.ldr_lit(self._dst(), imm),)

    def _g_adr(self) -> tuple[int, ...]:
        return (T.adr(self._dst(), self.rng.randrange(256)),)

    def _g_add_rd_sp(self) -> tuple[int, ...]:
        return (T.add_rd_sp(self._dst(), self.rng.randrange(256)),)

    def _g_sp_imm(self, sub: bool) -> tuple[int, ...]:
        if not self.sp_valid:
            imm = self.rng.randrange(128)
        elif sub:
            imm = self.rng.randint(0, min(127, (self.sp_lo - self.w0) // 4))
        else:
            imm = self.rng.randint(0, min(127, (self.w1 - self.sp_hi) // 4))
        self._sp_delta(-4 * imm if sub else 4 * imm)
        return (T.sp_imm(sub, imm),)

    _LS_REG_SIZE = (4, 2, 1, 1, 4, 2, 1, 2)  # str strh strb ldrsb ldr ldrh ldrb ldrsh

    def _g_ls_reg(self, opb: int) -> tuple[int, ...] | None:
        size = self._LS_REG_SIZE[opb]
        store = opb < 3
        ft = self._fault_target(size, size)
        target = ft[0] if ft else self._rand_addr(size, size)
        rn, rm = self._low(), self._low()
        sn, sm = self.state[rn], self.state[rm]
        if rn == rm:
            if target % 2 or not self._pin(rn, target // 2):
                return None
        elif sn == FREE and sm == FREE:
            self._pin(rm, interesting(self.rng) if self.rng.random() < 0.6 else self.rng.randrange(-64, 64))
            self._pin(rn, target - self.regs[rm])
        elif sn == FREE and sm == PINNED:
            self._pin(rn, target - self.regs[rm])
        elif sn == PINNED and sm == FREE:
            self._pin(rm, target - self.regs[rn])
        elif sn == PINNED and sm == PINNED and ft is None:
            target = (self.regs[rn] + self.regs[rm]) & M32
            if not self._in_window(target, size) or target % size:
                return None
        else:
            return None
        rt = self._transfer_reg(ft, store, target, size)
        return (T.ls_reg(opb, rt, rn, rm),)

    def _g_ls_imm(self, op: str) -> tuple[int, ...] | None:
        size = 4 if op in ("str", "ldr") else 2 if op in ("strh", "ldrh") else 1
        store = op.startswith("st")
        ft = self._fault_target(size, size)
        for rn in self._known_regs(range(8)):
            if self.state[rn] == FREE:
                imm5 = self.rng.randrange(32)
                target = ft[0] if ft else self._rand_addr(size, size)
                self._pin(rn, target - imm5 * size)
                break
            if ft:
                continue
            v = self.regs[rn]
            imms = [i for i in range(32) if self._in_window(v + i * size, size) and (v + i * size) % size == 0]
            if imms:
                imm5 = self.rng.choice(imms)
                target = v + imm5 * size
                break
        else:
            return None
        rt = self._transfer_reg(ft, store, target, size)
        return (T.ls_imm(op, rt, rn, imm5),)

    def _g_ls_sp(self, load: bool) -> tuple[int, ...] | None:
        if not self.sp_valid:
            return None
        room = (self.w1 - 4 - self.sp_hi) // 4
        if room < 0:
            return None
        r = self.rng.random()
        imm = min(room, 255) if r < 0.15 else self.rng.randint(0, min(room, 255))
        rt = self._low()
        if load:
            self._write(rt)
        else:
            self._stored(self.sp_lo + 4 * imm, self.sp_hi + 4 * imm + 4)
        return (T.ls_sp(load, rt, imm),)

    def _reglist(self, lo: int = 1) -> int:
        r = self.rng.random()
        if r < 0.1:
            return 0xFF
        if r < 0.3:
            return 1 << self.rng.randrange(8)
        return self.rng.randrange(lo, 256)

    def _g_push(self) -> tuple[int, ...] | None:
        if not self.sp_valid:
            return None
        with_lr = self.rng.random() < 0.4
        lst = self._reglist(0 if with_lr else 1)  # EXCLUDED: empty list (UNPREDICTABLE)
        n = bin(lst).count("1") + with_lr
        if self.sp_lo - 4 * n < self.w0:
            return None
        self._stored(self.sp_lo - 4 * n, self.sp_hi)
        self._sp_delta(-4 * n)
        return (T.push(lst, with_lr),)

    def _g_pop(self) -> tuple[int, ...] | None:
        if not self.sp_valid:
            return None
        lst = self._reglist()
        n = bin(lst).count("1")
        if self.sp_hi + 4 * n > self.w1:
            return None
        for r in range(8):
            if lst >> r & 1:
                self._write(r)
        self._sp_delta(4 * n)
        return (T.pop(lst, False),)

    def _g_pop_pc(self) -> tuple[int, ...] | None:
        # POP {..., PC}: the popped word must be a target the generator chose, with bit 0 set
        # (EXCLUDED: even values, INVSTATE). Needs an exactly known SP and an unstored word.
        if not self.sp_valid or self.sp_lo != self.sp_hi:
            return None
        lst = self._reglist(0)
        n = bin(lst).count("1")
        sp = self.sp_lo
        if sp + 4 * (n + 1) > self.w1:
            return None
        off = sp + 4 * n - self.w0
        if any(self.dirty[off : off + 4]):
            return None
        t = self._target(2, None, allow_self=False)
        if self.mem_pinned.get(off, t | 1) != t | 1:
            return None
        self.mem_pinned[off] = t | 1
        for r in range(8):
            if lst >> r & 1:
                self._write(r)
        self._sp_delta(4 * (n + 1))
        return (T.pop(lst, True),)

    def _g_ldm_stm(self, load: bool) -> tuple[int, ...] | None:
        lst = self._reglist()  # EXCLUDED: empty list
        for rn in self._known_regs(range(8)):
            if not load and lst >> rn & 1 and lst & ((1 << rn) - 1):
                # EXCLUDED: STM with the base in the list but not lowest (UNKNOWN value stored).
                lst &= ~(1 << rn)
                if not lst:
                    lst = 1 << rn
            n = bin(lst).count("1")
            if self.state[rn] == FREE:
                ft = self._fault_target(4 * n, 4)
                v = ft[0] if ft else self._rand_addr(4 * n, 4)
                if ft:
                    self.note = ft[1]
                self._pin(rn, v)
            else:
                v = self.regs[rn]
                if v % 4 or not self._in_window(v, 4 * n):
                    continue
            if load:
                for r in range(8):
                    if lst >> r & 1:
                        self._write(r)
            else:
                self._stored(v, v + 4 * n)
            self._write(rn)  # written back, or loaded
            return (T.ldm(rn, lst) if load else T.stm(rn, lst),)
        return None

    def _g_b_cond(self) -> tuple[int, ...]:
        # cond 14 (0xDExx) is UDF and 15 (0xDFxx) SVC: generated by their own classes.
        t = self._target(2, RANGE_BCOND)
        return (T.b_cond(self.rng.randrange(14), (t - self.a - 4) >> 1),)

    def _g_b(self) -> tuple[int, ...]:
        t = self._target(2, RANGE_B)
        return (T.b_uncond((t - self.a - 4) >> 1),)

    def _g_bl(self) -> tuple[int, ...]:
        t = self._target(4, RANGE_BL)
        off = t - self.a - 4
        if off >= 1 << 31:
            off -= 1 << 32
        self._write(LR)
        return T.bl(off)

    def _g_mrs(self) -> tuple[int, ...]:
        rd = self.rng.choice(GP_REGS)  # EXCLUDED: Rd = SP/PC (UNPREDICTABLE)
        self._write(rd)
        return T.mrs(rd, self.rng.choice(MRS_SYSM))

    def _g_msr(self) -> tuple[int, ...] | None:
        # MSR APSR, Rn. EXCLUDED: values with bit 27 set (no Q flag on ARMv6-M; unicorn keeps it).
        for rn in self._known_regs(GP_REGS):
            if self.state[rn] == FREE:
                self._pin(rn, interesting(self.rng) & ~(1 << 27))
            elif self.regs[rn] & (1 << 27):
                continue
            return T.msr(0, rn)
        return None

    def _g_undef32(self) -> tuple[int, ...]:
        # 32-bit encodings outside ARMv6-M's BL/MSR/MRS/DSB/DMB/ISB: UNDEFINED.
        while True:
            hw1 = self.rng.randint(0xE800, 0xFFFF)
            hw2 = self.rng.getrandbits(16)
            word = hw1 << 16 | hw2
            if not any(word & m == v for m, v in T.V6M_32BIT_PATTERNS):
                return (hw1, hw2)

    def _g_undef16(self) -> tuple[int, ...]:
        lo, hi = self.rng.choice(UNDEF16_RANGES)
        return (self.rng.randint(lo, hi),)


def _pick_even(rng: random.Random, lo: int, hi: int) -> int:
    lo = (lo + 1) & ~1
    return lo + 2 * rng.randint(0, max(0, (hi - lo) // 2))


_G = _Builder
_GENERATORS: dict[str, Callable[[_Builder], tuple[int, ...] | None]] = {
    "lsl_imm": lambda b: b._g_shift_imm(0),
    "lsr_imm": lambda b: b._g_shift_imm(1),
    "asr_imm": lambda b: b._g_shift_imm(2),
    "add_reg": lambda b: b._g_add_sub_reg(False),
    "sub_reg": lambda b: b._g_add_sub_reg(True),
    "add_imm3": lambda b: b._g_add_sub_imm3(False),
    "sub_imm3": lambda b: b._g_add_sub_imm3(True),
    "mov_imm8": lambda b: b._g_imm8(0),
    "cmp_imm8": lambda b: b._g_imm8(1),
    "add_imm8": lambda b: b._g_imm8(2),
    "sub_imm8": lambda b: b._g_imm8(3),
    "hi_add": _G._g_hi_add,
    "hi_cmp": _G._g_hi_cmp,
    "hi_mov": _G._g_hi_mov,
    "add_sp_reg": _G._g_add_sp_reg,
    "mov_sp_reg": _G._g_mov_sp_reg,
    "add_pc_reg": _G._g_add_pc_reg,
    "mov_pc_reg": _G._g_mov_pc_reg,
    "bx": lambda b: b._g_bx(False),
    "blx": lambda b: b._g_bx(True),
    "ldr_lit": _G._g_ldr_lit,
    "adr": _G._g_adr,
    "add_rd_sp": _G._g_add_rd_sp,
    "add_sp_imm": lambda b: b._g_sp_imm(False),
    "sub_sp_imm": lambda b: b._g_sp_imm(True),
    "str_sp": lambda b: b._g_ls_sp(False),
    "ldr_sp": lambda b: b._g_ls_sp(True),
    "push": _G._g_push,
    "pop": _G._g_pop,
    "pop_pc": _G._g_pop_pc,
    "ldm": lambda b: b._g_ldm_stm(True),
    "stm": lambda b: b._g_ldm_stm(False),
    # EXCLUDED: CPS with A/F/should-be bits; only CPSIE i / CPSID i.
    "cps": lambda b: (b.rng.choice((T.CPSIE_I, T.CPSID_I)),),
    # EXCLUDED: YIELD/WFE/WFI/SEV and unallocated hints; only NOP.
    "nop": lambda b: (T.NOP,),
    "b_cond": _G._g_b_cond,
    "b": _G._g_b,
    "bl": _G._g_bl,
    "mrs": _G._g_mrs,
    "msr": _G._g_msr,
    "barrier": lambda b: T.BARRIERS[b.rng.choice(("dsb", "dmb", "isb"))],
    "udf": lambda b: (T.udf(b.rng.randrange(256)),),
    "svc": lambda b: (T.svc(b.rng.randrange(256)),),
    "bkpt": lambda b: (T.bkpt(b.rng.randrange(256)),),
    "undef16": _G._g_undef16,
    "udf_w": lambda b: T.udf_w(b.rng.getrandbits(16)),
    "undef32": _G._g_undef32,
}
