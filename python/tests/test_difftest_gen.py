"""The differential test's instruction generator: coverage, reproducibility, exclusions."""

from __future__ import annotations

import collections

import pytest

from cairn.difftest import thumb as T
from cairn.difftest.contract import Case, fnv1a64, normalize_fault
from cairn.difftest.gen import CaseGen
from cairn.difftest.space import CLASS_NAMES
from cairn.difftest.uc_runner import UnicornRunner

N = 10_000


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return list(CaseGen(12345).cases(N))


def test_same_seed_same_cases() -> None:
    a = [c.to_json() for c in CaseGen(7).cases(300)]
    b = [c.to_json() for c in CaseGen(7).cases(300)]
    assert a == b
    assert [c.insns for c in CaseGen(7).cases(50)] == [c.insns for c in CaseGen(7).cases(50)]
    # A case depends only on (seed, index), not on the cases before it.
    assert CaseGen(7).case(123).to_json() == a[123]
    assert [c.to_json() for c in CaseGen(8).cases(300)] != a


def test_every_encoding_class_appears(cases: list[Case]) -> None:
    seen = collections.Counter(i.cls for c in cases for i in c.insns)
    missing = [name for name in CLASS_NAMES if seen[name] == 0]
    assert not missing, f"classes never generated in {N} cases: {missing}"
    rare = {name: seen[name] for name in CLASS_NAMES if seen[name] < 20}
    assert not rare, f"classes generated fewer than 20 times: {rare}"


def test_lengths_and_layout(cases: list[Case]) -> None:
    assert {c.steps for c in cases} == set(range(1, 9))
    for c in cases:
        assert len(c.insns) == c.steps
        assert c.code_addr % 2 == 0 and c.mem_addr % 4 == 0
        assert len(c.regs) == 15 and c.regs[13] % 4 == 0
        assert c.mem_addr <= c.regs[13] <= c.mem_addr + len(c.mem)
        assert c.apsr & 0x0FFF_FFFF == 0
        assert all(0 <= r <= 0xFFFF_FFFF for r in c.regs)
        assert c.code[: c.insns[-1].addr + c.insns[-1].size - c.code_addr] == b"".join(i.raw() for i in c.insns)
    # Both PC alignments matter for ADR / LDR literal.
    assert {c.code_addr % 4 for c in cases} == {0, 2}


def _shift_class(v: int) -> str:
    low = v & 0xFF
    if v > 255:
        return ">255"
    return "0" if low == 0 else "1..31" if low < 32 else "32" if low == 32 else "33..255"


def test_register_shift_amounts_cover_edges(cases: list[Case]) -> None:
    seen: collections.Counter[tuple[str, str]] = collections.Counter()
    for c in cases:
        for i in c.insns:
            if i.note.startswith("shift_by:"):
                seen[(i.cls, _shift_class(int(i.note.split(":")[1])))] += 1
    for cls in ("dp_lsl", "dp_lsr", "dp_asr", "dp_ror"):
        for k in ("0", "1..31", "32", "33..255", ">255"):
            assert seen[(cls, k)] >= 5, f"{cls} by {k}: {seen[(cls, k)]}"


def test_immediate_shift_edges(cases: list[Case]) -> None:
    imms: dict[str, set[int]] = collections.defaultdict(set)
    for c in cases:
        for i in c.insns:
            if i.cls in ("lsl_imm", "lsr_imm", "asr_imm"):
                imms[i.cls].add((i.hws[0] >> 6) & 31)
    for cls in ("lsl_imm", "lsr_imm", "asr_imm"):
        assert {0, 1, 31} <= imms[cls] and len(imms[cls]) == 32, (cls, sorted(imms[cls]))


def test_branch_targets_cover_every_kind(cases: list[Case]) -> None:
    seen = collections.Counter(i.note for c in cases for i in c.insns if i.note.startswith("target:"))
    for kind in ("fwd", "next", "sled", "far_fwd", "far_back", "self", "unmapped", "wrap"):
        assert seen[f"target:{kind}"] > 0, seen


def test_register_lists_and_writeback_rules(cases: list[Case]) -> None:
    push_lr = pop_pc = ldm_base_in = ldm_base_out = stm_base_in = 0
    for c in cases:
        for i in c.insns:
            h = i.hws[0]
            if i.cls == "push":
                assert h & 0x1FF, "empty PUSH"
                push_lr += bool(h & 0x100)
            elif i.cls == "pop":
                assert h & 0xFF
            elif i.cls == "pop_pc":
                pop_pc += 1
            elif i.cls in ("ldm", "stm"):
                rn, lst = (h >> 8) & 7, h & 0xFF
                assert lst, "empty register list"
                if i.cls == "ldm":
                    ldm_base_in += bool(lst >> rn & 1)
                    ldm_base_out += not lst >> rn & 1
                elif lst >> rn & 1:
                    assert lst & ((1 << rn) - 1) == 0, "STM with the base in the list but not lowest"
                    stm_base_in += 1
    assert min(push_lr, pop_pc, ldm_base_in, ldm_base_out, stm_base_in) > 0


def test_no_excluded_encodings(cases: list[Case]) -> None:
    for c in cases:
        for i in c.insns:
            h = i.hws[0]
            where = f"seed 12345 case {c.index} {i.cls} {h:04x}"
            assert not (0xB100 <= h <= 0xB1FF or 0xB300 <= h <= 0xB3FF), where  # CBZ
            assert not (0xB900 <= h <= 0xB9FF or 0xBB00 <= h <= 0xBBFF), where  # CBNZ
            assert not (h & 0xFF00 == 0xBF00 and h != T.NOP), where  # IT, hints other than NOP
            assert h not in (0xB650, 0xB658), where  # SETEND
            if h & 0xFFE0 == 0xB660:
                assert h in (T.CPSIE_I, T.CPSID_I), where
            if h & 0xFF00 == 0x4500:  # CMP high
                n, m = (h >> 4 & 8) | (h & 7), (h >> 3) & 15
                assert (n >= 8 or m >= 8) and 15 not in (n, m), where
            if h & 0xFF00 == 0x4700:  # BX/BLX
                assert h & 7 == 0 and (h >> 3) & 15 not in (13, 15), where
            if h & 0xFF00 == 0x4400:  # ADD high
                d, m = (h >> 4 & 8) | (h & 7), (h >> 3) & 15
                assert not (d == 15 and m in (13, 15)), where
            if i.cls == "msr":
                assert c.regs[i.hws[0] & 15] & (1 << 27) == 0, where


def test_fnv1a64_vectors() -> None:
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert fnv1a64(b"foobar") == 0x85944171F73967E8


def test_bl_encoding_round_trip() -> None:
    import random

    rng = random.Random(3)
    for off in [0, 2, -2, (1 << 24) - 2, -(1 << 24), (1 << 22), -(1 << 22) - 2] + [
        2 * rng.randrange(-(1 << 23), 1 << 23) for _ in range(2000)
    ]:
        hw1, hw2 = T.bl(off)
        assert T.bl_offset(hw1, hw2) == off
        assert (hw1 & 0xF800, hw2 & 0xD000) == (0xF000, 0xD000)


def test_cond_passed_matches_definition() -> None:
    for apsr in range(16):
        n, z, c, v = (apsr >> 3) & 1, (apsr >> 2) & 1, (apsr >> 1) & 1, apsr & 1
        want = [z, not z, c, not c, n, not n, v, not v, c and not z, not c or z, n == v, n != v,
                not z and n == v, z or n != v]  # fmt: skip
        assert [T.cond_passed(cond, apsr << 28) for cond in range(14)] == [bool(w) for w in want]


def test_conditional_branches_go_both_ways(cases: list[Case]) -> None:
    """Run on unicorn: every condition code is seen both taken and not taken."""
    runner = UnicornRunner()
    taken: collections.Counter[tuple[int, bool]] = collections.Counter()
    for c in cases[:4000]:
        res = runner.run(c)
        prev = c.code_addr
        for row in res.states:
            off = prev - c.code_addr
            if 0 <= off < len(c.code) - 2:
                h = int.from_bytes(c.code[off : off + 2], "little")
                if h & 0xF000 == 0xD000 and (h >> 8) & 15 < 14:
                    taken[((h >> 8) & 15, row[15] != prev + 2)] += 1
            prev = row[15]
    missing = [(cond, t) for cond in range(14) for t in (False, True) if taken[(cond, t)] == 0]
    assert not missing, f"condition codes never (taken?) {missing}"


def test_normalize_fault() -> None:
    assert normalize_fault(None) is None
    assert normalize_fault("undefined instruction") == "undefined"
    assert normalize_fault("unaligned access at 0x20000001") == "unaligned"
    assert normalize_fault("bus error at 0x00400000") == "bus"
    assert normalize_fault("instruction fetch from non-executable address 0xff000000") == "bus"
    assert normalize_fault("system instruction Svc") == "svc"
    assert normalize_fault("system instruction Bkpt") == "bkpt"
    assert normalize_fault("BKPT with no debugger attached") == "bkpt"
    assert normalize_fault("SVC executed where it cannot be taken") == "svc"
    assert normalize_fault("lockup: undefined instruction") == "undefined"
    assert normalize_fault("branch to ARM state (bit 0 of target clear)") == "invstate"
    assert normalize_fault("bus") == "bus"
    assert (normalize_fault("something else") or "").startswith("other:")
