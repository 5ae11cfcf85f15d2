//! Data-processing instructions: arithmetic and logical ops with APSR corner cases,
//! MULS, high-register ADD/MOV/CMP (SP and PC as operands), ADR and SP arithmetic,
//! extend and byte-reverse.

mod common;
use common::*;

/// One case: r0, r1 inputs, NZCV in, expected r0 and NZCV out.
type Case = (u32, u32, u32, u32, u32);

/// Run `op` (which reads r0/r1 and writes r0) over the cases; also checks r1 is untouched,
/// the cycle cost is 1 and the PC advanced by 2.
fn check_rr(name: &str, op: u16, cases: &[Case]) {
    for (i, &(a, b, fin, want, fout)) in cases.iter().enumerate() {
        let m = exec(&[op], &[(0, a), (1, b)], fin, 1);
        assert_eq!((m.r[0], flags(&m)), (want, fout), "{name} case {i}: r0=0x{a:08x} r1=0x{b:08x} nzcv_in={fin:04b}");
        assert_eq!(m.r[1], b, "{name} case {i}: r1 clobbered");
        assert_eq!(m.cycles, 1, "{name} cycles");
        assert_eq!(m.pc, CODE + 2, "{name} pc");
    }
}

#[test]
fn adds_reg_flags() {
    // ADDS r0, r0, r1
    let cases: &[Case] = &[
        (0, 0, 0, 0, Z),
        (1, 2, N | Z | C | V, 3, 0),
        (0x7fff_ffff, 1, 0, 0x8000_0000, N | V),
        (0xffff_ffff, 1, 0, 0, Z | C),
        (0x8000_0000, 0x8000_0000, 0, 0, Z | C | V),
        (0xffff_ffff, 0xffff_ffff, 0, 0xffff_fffe, N | C),
        (0x7fff_ffff, 0x7fff_ffff, 0, 0xffff_fffe, N | V),
        (0x8000_0000, 0xffff_ffff, 0, 0x7fff_ffff, C | V),
        (0x8000_0000, 0x7fff_ffff, 0, 0xffff_ffff, N),
        // carry in is ignored by ADDS
        (0xffff_fffe, 1, C, 0xffff_ffff, N),
    ];
    check_rr("ADDS", adds_reg(0, 0, 1), cases);
}

#[test]
fn adds_reg_three_operands() {
    let m = exec(&[adds_reg(2, 3, 4)], &[(3, 40), (4, 2), (2, 0xdead)], 0, 1);
    assert_eq!((m.r[2], m.r[3], m.r[4]), (42, 40, 2));
}

#[test]
fn subs_reg_flags() {
    // SUBS r0, r0, r1
    let cases: &[Case] = &[
        (0, 0, 0, 0, Z | C),
        (0, 1, C, 0xffff_ffff, N),
        (5, 3, 0, 2, C),
        (3, 5, 0, 0xffff_fffe, N),
        (0x8000_0000, 1, 0, 0x7fff_ffff, C | V),
        (0x7fff_ffff, 0xffff_ffff, 0, 0x8000_0000, N | V),
        (0xffff_ffff, 0xffff_ffff, 0, 0, Z | C),
        (0x8000_0000, 0x8000_0000, 0, 0, Z | C),
        (0, 0x8000_0000, 0, 0x8000_0000, N | V),
        (0x7fff_ffff, 0x8000_0000, 0, 0xffff_ffff, N | V),
        (0xffff_ffff, 0, 0, 0xffff_ffff, N | C),
        (0x8000_0000, 0x7fff_ffff, 0, 1, C | V),
    ];
    check_rr("SUBS", subs_reg(0, 0, 1), cases);
}

#[test]
fn cmp_reg_sets_flags_only() {
    let cases: &[(u32, u32, u32)] = &[
        (0, 0, Z | C),
        (0, 1, N),
        (0x8000_0000, 1, C | V),
        (0x7fff_ffff, 0xffff_ffff, N | V),
        (0xffff_ffff, 0xffff_ffff, Z | C),
        (0, 0x8000_0000, N | V),
        (0xffff_ffff, 0, N | C),
        (7, 3, C),
    ];
    for &(a, b, f) in cases {
        let m = exec(&[cmp_reg(0, 1)], &[(0, a), (1, b)], 0, 1);
        assert_eq!(flags(&m), f, "CMP 0x{a:08x}, 0x{b:08x}");
        assert_eq!((m.r[0], m.r[1]), (a, b));
        assert_eq!(m.cycles, 1);
    }
}

#[test]
fn cmn_sets_flags_only() {
    let cases: &[(u32, u32, u32)] = &[
        (0, 0, Z),
        (0x7fff_ffff, 1, N | V),
        (0xffff_ffff, 1, Z | C),
        (0x8000_0000, 0x8000_0000, Z | C | V),
        (0xffff_ffff, 0xffff_ffff, N | C),
        (0x8000_0000, 0xffff_ffff, C | V),
    ];
    for &(a, b, f) in cases {
        let m = exec(&[cmn(0, 1)], &[(0, a), (1, b)], N | Z | C | V, 1);
        assert_eq!(flags(&m), f, "CMN 0x{a:08x}, 0x{b:08x}");
        assert_eq!((m.r[0], m.r[1]), (a, b));
    }
}

#[test]
fn adcs_flags() {
    // ADCS r0, r1: r0 = r0 + r1 + C
    let cases: &[Case] = &[
        (0, 0, 0, 0, Z),
        (0, 0, C, 1, 0),
        (0xffff_ffff, 0, C, 0, Z | C),
        (0xffff_ffff, 0, 0, 0xffff_ffff, N),
        (0x7fff_ffff, 0, C, 0x8000_0000, N | V),
        (0x7fff_ffff, 0, 0, 0x7fff_ffff, 0),
        (0xffff_ffff, 0xffff_ffff, C, 0xffff_ffff, N | C),
        (0xffff_ffff, 0xffff_ffff, 0, 0xffff_fffe, N | C),
        (0x8000_0000, 0x8000_0000, 0, 0, Z | C | V),
        (0x8000_0000, 0x8000_0000, C, 1, C | V),
        (0x7fff_ffff, 0x7fff_ffff, C, 0xffff_ffff, N | V),
        (0x8000_0000, 0x7fff_ffff, C, 0, Z | C),
    ];
    check_rr("ADCS", adcs(0, 1), cases);
}

#[test]
fn sbcs_flags() {
    // SBCS r0, r1: r0 = r0 - r1 - !C
    let cases: &[Case] = &[
        (0, 0, C, 0, Z | C),
        (0, 0, 0, 0xffff_ffff, N),
        (5, 3, C, 2, C),
        (5, 3, 0, 1, C),
        (3, 3, 0, 0xffff_ffff, N),
        (0x8000_0000, 0, 0, 0x7fff_ffff, C | V),
        (0x8000_0000, 1, C, 0x7fff_ffff, C | V),
        (0x7fff_ffff, 0xffff_ffff, C, 0x8000_0000, N | V),
        (0xffff_ffff, 0xffff_ffff, 0, 0xffff_ffff, N),
        (0xffff_ffff, 0xffff_ffff, C, 0, Z | C),
        (0, 0x7fff_ffff, 0, 0x8000_0000, N),
        (0, 0x8000_0000, C, 0x8000_0000, N | V),
    ];
    check_rr("SBCS", sbcs(0, 1), cases);
}

#[test]
fn rsbs_negate_flags() {
    // RSBS r0, r1, #0: r0 = 0 - r1
    let cases: &[Case] = &[
        (0xdead, 0, 0, 0, Z | C),
        (0xdead, 1, C, 0xffff_ffff, N),
        (0xdead, 0x8000_0000, 0, 0x8000_0000, N | V),
        (0xdead, 0xffff_ffff, 0, 1, 0),
        (0xdead, 0x7fff_ffff, V, 0x8000_0001, N),
        (0xdead, 5, 0, 0xffff_fffb, N),
    ];
    check_rr("RSBS", rsbs(0, 1), cases);
}

#[test]
fn add_sub_immediate_forms() {
    // (instruction, r0, r1, expected r0, NZCV)
    let cases: &[(u16, u32, u32, u32, u32)] = &[
        (adds_imm3(0, 1, 7), 0, 0xffff_fffa, 1, C),
        (adds_imm3(0, 1, 0), 0, 0, 0, Z),
        (adds_imm3(0, 1, 1), 0, 0x7fff_ffff, 0x8000_0000, N | V),
        (subs_imm3(0, 1, 1), 0, 0, 0xffff_ffff, N),
        (subs_imm3(0, 1, 7), 0, 7, 0, Z | C),
        (subs_imm3(0, 1, 1), 0, 0x8000_0000, 0x7fff_ffff, C | V),
        (adds_imm8(0, 255), 0x7fff_ff01, 0, 0x8000_0000, N | V),
        (adds_imm8(0, 1), 0xffff_ffff, 0, 0, Z | C),
        (adds_imm8(0, 200), 100, 0, 300, 0),
        (subs_imm8(0, 255), 0x8000_00fe, 0, 0x7fff_ffff, C | V),
        (subs_imm8(0, 1), 0, 0, 0xffff_ffff, N),
        (subs_imm8(0, 255), 255, 0, 0, Z | C),
    ];
    for &(op, a, b, want, f) in cases {
        let m = exec(&[op], &[(0, a), (1, b)], 0, 1);
        assert_eq!((m.r[0], flags(&m)), (want, f), "op 0x{op:04x} r0=0x{a:08x} r1=0x{b:08x}");
        assert_eq!(m.cycles, 1);
    }
}

#[test]
fn cmp_immediate() {
    let cases: &[(u32, u32, u32)] = &[
        (0, 0, Z | C),
        (0, 1, N),
        (255, 255, Z | C),
        (0x8000_0000, 1, C | V),
        (0x8000_0000, 0, N | C),
        (0x7fff_ffff, 255, C),
        (0xffff_ffff, 255, N | C),
    ];
    for &(a, imm, f) in cases {
        let m = exec(&[cmp_imm(3, imm)], &[(3, a)], 0, 1);
        assert_eq!(flags(&m), f, "CMP 0x{a:08x}, #{imm}");
        assert_eq!(m.r[3], a);
    }
}

#[test]
fn movs_imm_keeps_c_and_v() {
    for cv in [0, C, V, C | V] {
        let m = exec(&[movs(5, 0)], &[(5, 0x1234)], N | cv, 1);
        assert_eq!((m.r[5], flags(&m)), (0, Z | cv));
        let m = exec(&[movs(5, 0x80)], &[], Z | cv, 1);
        assert_eq!((m.r[5], flags(&m)), (0x80, cv), "0x80 is positive");
        let m = exec(&[movs(7, 255)], &[], N | Z | cv, 1);
        assert_eq!((m.r[7], flags(&m)), (255, cv));
    }
}

#[test]
fn logical_ops_set_nz_keep_c_v() {
    // (instruction, r0, r1, result, NZ)
    let cases: &[(u16, u32, u32, u32, u32)] = &[
        (ands(0, 1), 0xf0f0_f0f0, 0x0f0f_0f0f, 0, Z),
        (ands(0, 1), 0x8000_0001, 0xffff_ffff, 0x8000_0001, N),
        (ands(0, 1), 0x1234_5678, 0x0000_ffff, 0x5678, 0),
        (eors(0, 1), 0xffff_ffff, 0x7fff_ffff, 0x8000_0000, N),
        (eors(0, 1), 0x5a5a_5a5a, 0x5a5a_5a5a, 0, Z),
        (eors(0, 1), 0x0ff0_0ff0, 0x00ff_00ff, 0x0f0f_0f0f, 0),
        (orrs(0, 1), 0, 0, 0, Z),
        (orrs(0, 1), 0x8000_0000, 1, 0x8000_0001, N),
        (orrs(0, 1), 0x0f00, 0x00f0, 0x0ff0, 0),
        (bics(0, 1), 0xffff_ffff, 0x7fff_ffff, 0x8000_0000, N),
        (bics(0, 1), 0x1234, 0xffff, 0, Z),
        (bics(0, 1), 0x1234, 0x0204, 0x1030, 0),
        (mvns(0, 1), 0xdead, 0xffff_ffff, 0, Z),
        (mvns(0, 1), 0xdead, 0, 0xffff_ffff, N),
        (mvns(0, 1), 0xdead, 0x8000_0000, 0x7fff_ffff, 0),
    ];
    for cv in [0, C | V, C, V] {
        for &(op, a, b, want, nz) in cases {
            let m = exec(&[op], &[(0, a), (1, b)], cv | (if nz == 0 { N | Z } else { 0 }), 1);
            assert_eq!((m.r[0], flags(&m)), (want, nz | cv), "op 0x{op:04x} r0=0x{a:08x} r1=0x{b:08x} cv={cv:02b}");
            assert_eq!(m.r[1], b);
            assert_eq!(m.cycles, 1);
        }
    }
}

#[test]
fn tst_sets_nz_only_and_writes_nothing() {
    for cv in [0, C | V] {
        let m = exec(&[tst(0, 1)], &[(0, 0x8000_0000), (1, 0x8000_0001)], cv | Z, 1);
        assert_eq!(flags(&m), N | cv);
        assert_eq!((m.r[0], m.r[1]), (0x8000_0000, 0x8000_0001));
        let m = exec(&[tst(0, 1)], &[(0, 1), (1, 2)], cv | N, 1);
        assert_eq!(flags(&m), Z | cv);
        let m = exec(&[tst(0, 1)], &[(0, 3), (1, 2)], cv | N | Z, 1);
        assert_eq!(flags(&m), cv);
    }
}

#[test]
fn muls_result_flags_keep_c_v() {
    let cases: &[(u32, u32, u32, u32)] = &[
        (0x10000, 0x10000, 0, Z),
        (0xffff_ffff, 0xffff_ffff, 1, 0),
        (0x7fff_ffff, 2, 0xffff_fffe, N),
        (3, 0xffff_fffe, 0xffff_fffa, N),
        (0x1234_5678, 0x9abc_def0, 0x1234_5678u32.wrapping_mul(0x9abc_def0), 0),
        (6, 7, 42, 0),
    ];
    for cv in [0, C | V, V] {
        for &(a, b, want, nz) in cases {
            // MULS r0, r1, r0
            let m = exec(&[muls(0, 1)], &[(0, a), (1, b)], cv, 1);
            assert_eq!((m.r[0], flags(&m)), (want, nz | cv), "MULS 0x{a:08x} * 0x{b:08x}");
            assert_eq!(m.r[1], b);
            assert_eq!(m.cycles, 1);
        }
    }
}

#[test]
fn muls_small_multiplier_takes_32_cycles() {
    let mut c = cfg();
    c.mul_cycles = 32;
    let mut m = boot_cfg(c, &[muls(2, 3), movs(0, 1)]);
    m.r[2] = 9;
    m.r[3] = 11;
    step(&mut m, 1);
    assert_eq!((m.r[2], m.cycles), (99, 32));
    step(&mut m, 1);
    assert_eq!(m.cycles, 33);
}

#[test]
fn muls_result_register_is_rdm() {
    // MULS r4, r5, r4 with r4 != r5: r5 unchanged.
    let m = exec(&[muls(4, 5)], &[(4, 0x101), (5, 0x10)], 0, 1);
    assert_eq!((m.r[4], m.r[5]), (0x1010, 0x10));
}

// ------------------------------------------------------------------ high registers

#[test]
fn add_high_registers_does_not_touch_flags() {
    // ADD r8, r1 ; ADD r1, r9 ; ADD r12, r12
    let code = [add_hi(8, 1), add_hi(1, 9), add_hi(12, 12)];
    let m = exec(&code, &[(8, 0xffff_ffff), (1, 2), (9, 0x100), (12, 0x4000_0000)], Z | V, 3);
    assert_eq!(m.r[8], 1);
    assert_eq!(m.r[1], 0x102);
    assert_eq!(m.r[12], 0x8000_0000);
    assert_eq!(flags(&m), Z | V, "flags unchanged");
    assert_eq!(m.cycles, 3);
}

#[test]
fn mov_high_registers_does_not_touch_flags() {
    // MOV r9, r0 ; MOV r2, r9 ; MOV r14, r2 ; MOV r3, r4 (low-low form of MOV)
    let code = [mov_hi(9, 0), mov_hi(2, 9), mov_hi(14, 2), mov_hi(3, 4)];
    let m = exec(&code, &[(0, 0x8000_0000), (4, 0)], C, 4);
    assert_eq!((m.r[9], m.r[2], m.r[14], m.r[3]), (0x8000_0000, 0x8000_0000, 0x8000_0000, 0));
    assert_eq!(flags(&m), C, "MOV (high) never sets flags");
    assert_eq!(m.cycles, 4);
}

#[test]
fn pc_reads_as_instruction_address_plus_4() {
    // At CODE (0 mod 4) and CODE+2 (2 mod 4): MOV r0, pc ; MOV r1, pc ; ADD r2, pc
    let m = exec(&[mov_hi(0, 15), mov_hi(1, 15), add_hi(2, 15)], &[(2, 0x1000)], 0, 3);
    assert_eq!(m.r[0], CODE + 4);
    assert_eq!(m.r[1], CODE + 2 + 4, "not word-aligned for MOV");
    assert_eq!(m.r[2], 0x1000 + CODE + 4 + 4);
    assert_eq!(m.cycles, 3);
}

#[test]
fn sp_as_operand_of_add_mov_cmp() {
    // ADD r1, sp ; MOV r2, sp ; ADD sp, r3 ; MOV r8, sp ; CMP r8, sp ; CMP r9, sp
    let code = [add_hi(1, 13), mov_hi(2, 13), add_hi(13, 3), mov_hi(8, 13), cmp_hi(8, 13), cmp_hi(9, 13)];
    let m = exec(&code, &[(1, 0x10), (3, 0x40), (9, 0x1000)], 0, 5);
    assert_eq!(m.r[1], STACK_TOP + 0x10);
    assert_eq!(m.r[2], STACK_TOP);
    assert_eq!(m.r[13], STACK_TOP + 0x40);
    assert_eq!(m.r[8], STACK_TOP + 0x40);
    assert_eq!(flags(&m), Z | C, "CMP r8, sp equal");
    let mut m = m;
    step(&mut m, 1);
    assert_eq!(flags(&m), N, "0x1000 - 0x20008040 borrows, negative");
    assert_eq!(m.cycles, 6);
}

#[test]
fn writes_to_sp_clear_low_bits() {
    let m = exec(&[mov_hi(13, 0)], &[(0, 0x2000_1237)], 0, 1);
    assert_eq!(m.r[13], 0x2000_1234);
    let m = exec(&[add_hi(13, 0)], &[(0, 3)], 0, 1);
    assert_eq!(m.r[13], STACK_TOP);
}

#[test]
fn cmp_high_flags() {
    // CMP r8, r0 / CMP r0, r8 / CMP r10, r11 with full flag corners.
    type HiCase = (u16, [(usize, u32); 2], u32);
    let cases: &[HiCase] = &[
        (cmp_hi(8, 0), [(8, 0x8000_0000), (0, 1)], C | V),
        (cmp_hi(0, 8), [(0, 0), (8, 1)], N),
        (cmp_hi(10, 11), [(10, 0x7fff_ffff), (11, 0xffff_ffff)], N | V),
        (cmp_hi(10, 11), [(10, 5), (11, 5)], Z | C),
        (cmp_hi(14, 1), [(14, 0xffff_ffff), (1, 0)], N | C),
    ];
    for (op, regs, f) in cases {
        let m = exec(&[*op], regs, 0, 1);
        assert_eq!(flags(&m), *f, "op 0x{op:04x}");
        assert_eq!(m.r[regs[0].0], regs[0].1);
        assert_eq!(m.cycles, 1);
    }
}

#[test]
fn mov_pc_and_add_pc_branch_in_two_cycles() {
    // MOV pc, r0 to CODE+0x20 (bit 0 set, ignored: no interworking check)
    let mut code = vec![mov_hi(15, 0)];
    code.resize(0x10, nop());
    code.push(movs(1, 1)); // CODE+0x20
    let m = exec(&code, &[(0, CODE + 0x21)], 0, 2);
    assert_eq!(m.r[1], 1);
    assert_eq!(m.cycles, 3);

    // MOV pc, r0 with bit 0 clear does not fault (BranchWritePC)
    let mut m = exec(&code, &[(0, CODE + 0x20)], 0, 1);
    assert_eq!((m.pc, m.cycles, m.ipsr), (CODE + 0x20, 2, 0));
    step(&mut m, 1);
    assert_eq!(m.r[1], 1);

    // ADD pc, r0: target = CODE + 4 + r0
    let mut code2 = vec![add_hi(15, 0)];
    code2.resize(0x10, nop());
    code2.push(movs(1, 7));
    let m = exec(&code2, &[(0, 0x1c)], 0, 1);
    assert_eq!((m.pc, m.cycles), (CODE + 0x20, 2));
}

#[test]
fn add_pc_at_halfword_offset() {
    // NOP ; ADD pc, r0 at CODE+2 -> CODE+6+r0
    let mut code = vec![nop(), add_hi(15, 0)];
    code.resize(16, nop());
    code.push(movs(5, 5)); // CODE+32
    let m = exec(&code, &[(0, 32 - 6)], 0, 3);
    assert_eq!(m.r[5], 5);
    assert_eq!(m.cycles, 1 + 2 + 1);
}

// ------------------------------------------------------------------ address generation

#[test]
fn adr_aligns_pc() {
    // ADR at CODE (0 mod 4) and at CODE+2 (2 mod 4) both yield Align(PC+4,4)+imm.
    let m = exec(&[adr(0, 8), adr(1, 8), adr(2, 0), adr(3, 1020)], &[], N | Z | C | V, 4);
    assert_eq!(m.r[0], CODE + 4 + 8);
    assert_eq!(m.r[1], CODE + 4 + 8, "ADR at 2 mod 4 rounds PC down");
    assert_eq!(m.r[2], CODE + 8);
    assert_eq!(m.r[3], CODE + 8 + 1020, "ADR at CODE+6");
    assert_eq!(flags(&m), N | Z | C | V);
    assert_eq!(m.cycles, 4);
}

#[test]
fn sp_arithmetic() {
    // ADD r0, sp, #1020 ; SUB sp, #508 ; ADD r1, sp, #0 ; ADD sp, #12 ; ADD r2, sp, #4
    let code = [add_rd_sp(0, 1020), sub_sp(508), add_rd_sp(1, 0), add_sp(12), add_rd_sp(2, 4)];
    let m = exec(&code, &[], Z, 5);
    assert_eq!(m.r[0], STACK_TOP + 1020);
    assert_eq!(m.r[1], STACK_TOP - 508);
    assert_eq!(m.r[13], STACK_TOP - 496);
    assert_eq!(m.r[2], STACK_TOP - 492);
    assert_eq!(flags(&m), Z);
    assert_eq!(m.cycles, 5);
}

// ------------------------------------------------------------------ extend and reverse

#[test]
fn extend_and_reverse() {
    // (instruction, input, output)
    let cases: &[(u16, u32, u32)] = &[
        (sxtb(0, 1), 0x1234_5680, 0xffff_ff80),
        (sxtb(0, 1), 0xffff_ff7f, 0x0000_007f),
        (sxth(0, 1), 0x1234_8000, 0xffff_8000),
        (sxth(0, 1), 0xffff_7fff, 0x0000_7fff),
        (uxtb(0, 1), 0xffff_ff80, 0x80),
        (uxth(0, 1), 0xffff_8001, 0x8001),
        (rev(0, 1), 0x1122_3344, 0x4433_2211),
        (rev16(0, 1), 0x1122_3344, 0x2211_4433),
        (revsh(0, 1), 0x1122_3380, 0xffff_8033),
        (revsh(0, 1), 0xffff_7f00, 0x0000_007f),
        (revsh(0, 1), 0x0000_0080, 0xffff_8000),
    ];
    for &(op, x, want) in cases {
        for f in [0, N | Z | C | V] {
            let m = exec(&[op], &[(0, 0xdead_beef), (1, x)], f, 1);
            assert_eq!(m.r[0], want, "op 0x{op:04x} on 0x{x:08x}");
            assert_eq!(m.r[1], x);
            assert_eq!(flags(&m), f, "flags untouched");
            assert_eq!(m.cycles, 1);
        }
    }
    // in place
    let m = exec(&[rev(3, 3)], &[(3, 0xaabb_ccdd)], 0, 1);
    assert_eq!(m.r[3], 0xddcc_bbaa);
}

#[test]
fn data_processing_sequence_cycles() {
    // 20 data-processing instructions, each 1 cycle; final values checked.
    let code = [
        movs(0, 10),
        movs(1, 3),
        adds_reg(2, 0, 1),  // 13
        subs_reg(3, 0, 1),  // 7
        adds_imm3(4, 3, 5), // 12
        subs_imm3(5, 4, 2), // 10
        adds_imm8(5, 100),  // 110
        subs_imm8(5, 10),   // 100
        ands(5, 4),         // 100 & 12 = 4
        orrs(5, 1),         // 7
        eors(5, 0),         // 13
        bics(5, 1),         // 12
        mvns(6, 5),         // !12
        rsbs(7, 1),         // -3
        muls(7, 1),         // -9
        lsls_imm(6, 1, 4),  // 48
        lsrs_imm(6, 6, 2),  // 12
        asrs_imm(7, 7, 1),  // -5
        adcs(6, 1),         // 12 + 3 + C(1) = 16
        sbcs(6, 1),         // 16 - 3 - !C(1) = 12
    ];
    let m = exec(&code, &[], 0, code.len() as u64);
    assert_eq!(m.cycles, code.len() as u64);
    assert_eq!(m.r[2], 13);
    assert_eq!(m.r[3], 7);
    assert_eq!(m.r[4], 12);
    assert_eq!(m.r[5], 12);
    assert_eq!(m.r[7], (-5i32) as u32);
    // ASRS -9 >> 1 = -5, carry = bit0 of -9 = 1; ADCS 12 + 3 + 1 = 16 (no carry out);
    // SBCS 16 - 3 - 1 = 12 (no borrow -> C=1)
    assert_eq!(m.r[6], 12);
    assert_eq!(flags(&m), C);
}
