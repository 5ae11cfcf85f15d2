//! Loads and stores: every addressing form and size, sign extension, LDR literal
//! alignment, PUSH/POP (incl. LR/PC), LDM/STM writeback rules, and the faults:
//! unaligned access, bus errors on unmapped memory, stores to flash.

mod common;
use cairn_sim::machine::FaultKind;
use common::*;

#[test]
fn str_ldr_word_all_forms() {
    // STR r0,[r1,#124] ; LDR r2,[r1,#124] ; STR r0,[r1,r3] ; LDR r4,[r1,r3]
    let code = [str_imm(0, 1, 124), ldr_imm(2, 1, 124), str_reg(0, 1, 3), ldr_reg(4, 1, 3)];
    let m = exec(&code, &[(0, 0xcafe_f00d), (1, DATA), (3, 0x40)], N | C, 4);
    assert_eq!(m.peek32(DATA + 124), Some(0xcafe_f00d));
    assert_eq!(m.peek32(DATA + 0x40), Some(0xcafe_f00d));
    assert_eq!((m.r[2], m.r[4]), (0xcafe_f00d, 0xcafe_f00d));
    assert_eq!(flags(&m), N | C, "loads/stores keep flags");
    assert_eq!(m.cycles, 8, "2 cycles each");
}

#[test]
fn ldr_word_little_endian() {
    let mut m = boot(&[ldr_imm(0, 1, 4)]);
    m.load_bytes(DATA + 4, &[0x11, 0x22, 0x33, 0x44]).unwrap();
    m.r[1] = DATA;
    step(&mut m, 1);
    assert_eq!(m.r[0], 0x4433_2211);
}

#[test]
fn halfword_and_byte_stores() {
    // STRH r0,[r1,#62] ; STRB r0,[r1,#31] ; STRH r0,[r1,r2] ; STRB r0,[r1,r3]
    let code = [strh_imm(0, 1, 62), strb_imm(0, 1, 31), strh_reg(0, 1, 2), strb_reg(0, 1, 3)];
    let mut m = boot(&code);
    m.load_bytes(DATA, &[0xee; 128]).unwrap();
    m.r[0] = 0x1234_5678;
    m.r[1] = DATA;
    m.r[2] = 0x50;
    m.r[3] = 0x55;
    step(&mut m, 4);
    assert_eq!(m.peek32(DATA + 60), Some(0x5678_eeee));
    assert_eq!(m.peek32(DATA + 28), Some(0x78ee_eeee));
    assert_eq!(m.peek32(DATA + 0x50), Some(0xeeee_5678));
    assert_eq!(m.peek32(DATA + 0x54), Some(0xeeee_78ee));
    assert_eq!(m.cycles, 8);
}

#[test]
fn halfword_and_byte_loads_zero_and_sign_extend() {
    let code = [
        ldrh_imm(0, 7, 62), // 0x8081 zero-extended
        ldrb_imm(1, 7, 31), // 0x9f
        ldrh_reg(2, 7, 6),  // [DATA+2] = 0x7ffe
        ldrb_reg(3, 7, 6),  // [DATA+2] = 0xfe
        ldrsh_reg(4, 7, 6), // 0x7ffe positive
        ldrsb_reg(5, 7, 6), // 0xfe -> -2
    ];
    let mut m = boot(&code);
    m.load_bytes(DATA, &[0, 0, 0xfe, 0x7f]).unwrap();
    m.load_bytes(DATA + 31, &[0x9f]).unwrap();
    m.load_bytes(DATA + 62, &[0x81, 0x80]).unwrap();
    m.r[7] = DATA;
    m.r[6] = 2;
    step(&mut m, 6);
    assert_eq!(m.r[0], 0x8081);
    assert_eq!(m.r[1], 0x9f);
    assert_eq!(m.r[2], 0x7ffe);
    assert_eq!(m.r[3], 0xfe);
    assert_eq!(m.r[4], 0x7ffe);
    assert_eq!(m.r[5], 0xffff_fffe);
    assert_eq!(m.cycles, 12);
}

#[test]
fn signed_loads_negative_and_positive() {
    // LDRSH r0,[r1,r2] ; LDRSB r3,[r1,r4] ; LDRSH r5,[r1,r6] ; LDRSB r7,[r1,r6]
    let mut m = boot(&[ldrsh_reg(0, 1, 2), ldrsb_reg(3, 1, 4), ldrsh_reg(5, 1, 6), ldrsb_reg(7, 1, 6)]);
    m.load_bytes(DATA, &[0x00, 0x80, 0x7f, 0x00, 0xff, 0xff]).unwrap();
    m.r[1] = DATA;
    m.r[2] = 0; // 0x8000
    m.r[4] = 2; // 0x7f
    m.r[6] = 4; // 0xffff / 0xff
    step(&mut m, 4);
    assert_eq!(m.r[0], 0xffff_8000);
    assert_eq!(m.r[3], 0x7f);
    assert_eq!(m.r[5], 0xffff_ffff);
    assert_eq!(m.r[7], 0xffff_ffff);
}

#[test]
fn odd_byte_addresses_are_fine() {
    let mut m = boot(&[ldrb_imm(0, 1, 1), strb_imm(0, 1, 3), ldrb_reg(2, 1, 3)]);
    m.load_bytes(DATA, &[0, 0x5a, 0, 0]).unwrap();
    m.r[1] = DATA;
    m.r[3] = 3;
    step(&mut m, 3);
    assert_eq!((m.r[0], m.r[2]), (0x5a, 0x5a));
    assert_eq!(m.peek8(DATA + 3), Some(0x5a));
    assert_eq!(m.ipsr, 0);
}

#[test]
fn sp_relative_load_store() {
    // SUB sp,#16 ; STR r0,[sp,#12] ; LDR r1,[sp,#12] ; STR r0,[sp,#1020] ; LDR r2,[sp,#1020]
    let code = [sub_sp(16), str_sp(0, 12), ldr_sp(1, 12), str_sp(0, 1020), ldr_sp(2, 1020)];
    let m = exec(&code, &[(0, 0x0bad_cafe)], 0, 5);
    assert_eq!(m.peek32(STACK_TOP - 4), Some(0x0bad_cafe));
    assert_eq!(m.peek32(STACK_TOP - 16 + 1020), Some(0x0bad_cafe));
    assert_eq!((m.r[1], m.r[2]), (0x0bad_cafe, 0x0bad_cafe));
    assert_eq!(m.cycles, 1 + 4 * 2);
}

#[test]
fn ldr_literal_alignment() {
    // At CODE (0 mod 4): LDR r0,[pc,#4] reads Align(CODE+4,4)+4 = CODE+8.
    // At CODE+2 (2 mod 4): LDR r1,[pc,#4] reads Align(CODE+6,4)+4 = CODE+8 too.
    // At CODE+4: LDR r2,[pc,#4] reads CODE+12.
    let code = [ldr_lit(0, 4), ldr_lit(1, 4), ldr_lit(2, 4), nop(), 0x3344, 0x1122, 0x7788, 0x5566];
    let m = exec(&code, &[], 0, 3);
    assert_eq!(m.r[0], 0x1122_3344);
    assert_eq!(m.r[1], 0x1122_3344);
    assert_eq!(m.r[2], 0x5566_7788);
    assert_eq!(m.cycles, 6);
}

#[test]
fn ldr_literal_max_offset() {
    let mut code = vec![ldr_lit(3, 1020)];
    code.resize(2 + 1020 / 2, nop());
    code.extend_from_slice(&[0xbeef, 0xdead]); // at Align(CODE+4,4)+1020
    let m = exec(&code, &[], 0, 1);
    assert_eq!(m.r[3], 0xdead_beef);
}

// ------------------------------------------------------------------ faults

/// Run the single faulting instruction at CODE and check HardFault entry.
fn expect_fault(op: u16, regs: &[(usize, u32)], kind: FaultKind) {
    let mut m = boot(&[op, nop()]);
    for &(i, v) in regs {
        m.r[i] = v;
    }
    let before: Vec<u32> = m.r[..8].to_vec();
    step1(&mut m);
    assert_hardfault(&m, kind, CODE, CODE);
    let f = frame(&m, m.r[13]);
    assert_eq!(&f[..4], &before[..4], "stacked r0-r3 unchanged by the faulting access");
    assert_eq!(&m.r[4..8], &before[4..8]);
    assert_eq!(m.cycles, 15, "fault entry only");
}

#[test]
// Regression: a load/store that faults must not count as a retired instruction (as UDF).
fn faulting_access_does_not_retire() {
    let mut m = boot(&[ldr_imm(0, 1, 0)]);
    m.r[1] = DATA + 1;
    step1(&mut m);
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(m.instructions, 0, "like an undefined instruction, a faulting LDR does not retire");
    let mut m = boot(&[udf(0)]);
    step1(&mut m);
    assert_eq!((m.ipsr, m.instructions), (HARDFAULT, 0));
}

#[test]
fn unaligned_word_accesses_fault() {
    for off in 1..4 {
        let a = DATA + off;
        expect_fault(ldr_imm(0, 1, 0), &[(1, a)], FaultKind::Unaligned(a));
        expect_fault(str_imm(0, 1, 4), &[(1, a)], FaultKind::Unaligned(a + 4));
        expect_fault(ldr_reg(0, 1, 2), &[(1, DATA), (2, off)], FaultKind::Unaligned(a));
        expect_fault(str_reg(0, 1, 2), &[(1, DATA), (2, off)], FaultKind::Unaligned(a));
    }
}

#[test]
fn unaligned_halfword_accesses_fault() {
    let a = DATA + 1;
    expect_fault(ldrh_imm(0, 1, 2), &[(1, a)], FaultKind::Unaligned(a + 2));
    expect_fault(strh_imm(0, 1, 0), &[(1, a)], FaultKind::Unaligned(a));
    expect_fault(ldrh_reg(0, 1, 2), &[(1, DATA), (2, 3)], FaultKind::Unaligned(DATA + 3));
    expect_fault(strh_reg(0, 1, 2), &[(1, DATA), (2, 3)], FaultKind::Unaligned(DATA + 3));
    expect_fault(ldrsh_reg(0, 1, 2), &[(1, DATA), (2, 1)], FaultKind::Unaligned(DATA + 1));
}

#[test]
fn unmapped_addresses_bus_fault() {
    for a in [0x6000_0000u32, 0x1000_0000, 0x3000_0000, 0x4002_0000, 0xA000_0000] {
        expect_fault(ldr_imm(0, 1, 0), &[(1, a)], FaultKind::BusError(a));
        expect_fault(ldrb_imm(0, 1, 0), &[(1, a)], FaultKind::BusError(a));
        expect_fault(strh_imm(0, 1, 0), &[(1, a)], FaultKind::BusError(a));
    }
    // Just past the end of SRAM and flash.
    let sram_end = 0x2000_0000 + cfg().sram_size;
    expect_fault(ldr_imm(0, 1, 0), &[(1, sram_end)], FaultKind::BusError(sram_end));
    let flash_end = cfg().flash_size;
    expect_fault(ldr_imm(0, 1, 0), &[(1, flash_end)], FaultKind::BusError(flash_end));
}

#[test]
fn stores_to_flash_bus_fault() {
    expect_fault(str_imm(0, 1, 0), &[(1, 0x100)], FaultKind::BusError(0x100));
    expect_fault(strh_imm(0, 1, 2), &[(1, 0x100)], FaultKind::BusError(0x102));
    expect_fault(strb_imm(0, 1, 3), &[(1, 0x100)], FaultKind::BusError(0x103));
    // a store to the vector table leaves it unchanged
    let mut m = boot(&[str_imm(0, 1, 0)]);
    m.r[1] = 0;
    step(&mut m, 1);
    assert_eq!(m.peek32(0), Some(STACK_TOP));
}

#[test]
fn loads_from_flash_and_apb_hole() {
    // LDR from flash (vector table) works; the unimplemented part of the APB window reads 0.
    let m = exec(&[ldr_imm(0, 1, 0), ldr_imm(2, 3, 0)], &[(1, 0), (3, 0x4001_0000), (2, 0xffff)], 0, 2);
    assert_eq!(m.r[0], STACK_TOP);
    assert_eq!(m.r[2], 0);
    assert_eq!(m.ipsr, 0);
}

// ------------------------------------------------------------------ PUSH / POP

#[test]
fn push_pop_low_registers_and_lr() {
    // PUSH {r0,r2,r7,lr} ; POP {r1,r3,r4,r5}
    let code = [push(0b1000_0101, true), pop(0b0011_1010, false)];
    let regs = [(0, 0xa0), (2, 0xa2), (7, 0xa7), (14, 0xae), (1, 1), (3, 3), (4, 4), (5, 5)];
    let mut m = exec(&code, &regs, 0, 1);
    assert_eq!(m.r[13], STACK_TOP - 16);
    assert_eq!(m.peek32(STACK_TOP - 16), Some(0xa0), "lowest register at lowest address");
    assert_eq!(m.peek32(STACK_TOP - 12), Some(0xa2));
    assert_eq!(m.peek32(STACK_TOP - 8), Some(0xa7));
    assert_eq!(m.peek32(STACK_TOP - 4), Some(0xae));
    assert_eq!(m.cycles, 1 + 4);
    step(&mut m, 1);
    assert_eq!((m.r[1], m.r[3], m.r[4], m.r[5]), (0xa0, 0xa2, 0xa7, 0xae));
    assert_eq!(m.r[13], STACK_TOP);
    assert_eq!(m.cycles, 5 + 1 + 4);
}

#[test]
fn push_single_and_all() {
    let m = exec(&[push(0xff, true)], &[(0, 10), (7, 17), (14, 0x1234)], 0, 1);
    assert_eq!(m.r[13], STACK_TOP - 36);
    assert_eq!(m.peek32(STACK_TOP - 36), Some(10));
    assert_eq!(m.peek32(STACK_TOP - 8), Some(17));
    assert_eq!(m.peek32(STACK_TOP - 4), Some(0x1234));
    assert_eq!(m.cycles, 10);
    let m = exec(&[push(0, true)], &[(14, 0x4321)], 0, 1);
    assert_eq!(m.r[13], STACK_TOP - 4);
    assert_eq!(m.peek32(STACK_TOP - 4), Some(0x4321));
    assert_eq!(m.cycles, 2);
}

#[test]
fn pop_pc_returns_in_3_plus_n() {
    // BL func ; MOVS r7,#7 ; ... func: PUSH {r4,lr} ; MOVS r4,#1 ; POP {r4,pc}
    let func = CODE + 0x40;
    let mut a = Asm::new(CODE);
    a.w(bl(CODE, func)).i(movs(7, 7));
    let mut m = boot(&a.hw);
    load(&mut m, func, &[push(0b1_0000, true), movs(4, 1), pop(0b1_0000, true)]);
    m.r[4] = 0x44;
    step(&mut m, 1);
    assert_eq!(m.r[14], (CODE + 4) | 1);
    step(&mut m, 3);
    assert_eq!(m.pc, CODE + 4);
    assert_eq!(m.r[4], 0x44, "r4 restored");
    assert_eq!(m.r[13], STACK_TOP);
    // BL 3 + PUSH 1+2 + MOVS 1 + POP {r4,pc} 3+2 (N counts the PC)
    assert_eq!(m.cycles, 3 + 3 + 1 + 5);
    step(&mut m, 1);
    assert_eq!(m.r[7], 7);
}

#[test]
fn pop_pc_only() {
    let mut m = boot(&[pop(0, true)]);
    m.r[13] = DATA;
    load_words(&mut m, DATA, &[CODE + 0x21]);
    step(&mut m, 1);
    assert_eq!((m.pc, m.r[13], m.cycles), (CODE + 0x20, DATA + 4, 4));
}

#[test]
fn pop_pc_even_address_is_invstate() {
    let mut m = boot(&[pop(0b1, true), nop()]);
    m.r[13] = DATA;
    load_words(&mut m, DATA, &[0x1234, CODE + 0x40]);
    step(&mut m, 1);
    // The branch happens (r0 and SP written), then the fault: stacked PC is the target.
    assert_eq!(m.last_fault, Some((FaultKind::InvalidState, CODE + 0x40)));
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(m.pc, handler(HARDFAULT));
    assert_eq!(m.r[13], DATA + 8 - 32, "frame pushed below the popped SP");
    let f = frame(&m, m.r[13]);
    assert_eq!(f[0], 0x1234);
    assert_eq!(f[6], CODE + 0x40);
}

// ------------------------------------------------------------------ LDM / STM

#[test]
fn stm_writes_ascending_and_writes_back() {
    // STM r0!, {r1,r2,r7}
    let m = exec(&[stm(0, 0b1000_0110)], &[(0, DATA), (1, 11), (2, 22), (7, 77)], 0, 1);
    assert_eq!(m.peek32(DATA), Some(11));
    assert_eq!(m.peek32(DATA + 4), Some(22));
    assert_eq!(m.peek32(DATA + 8), Some(77));
    assert_eq!(m.r[0], DATA + 12);
    assert_eq!(m.cycles, 1 + 3);
}

#[test]
fn stm_base_lowest_in_list_stores_original_base() {
    // STM r1!, {r1,r2}: r1 is the lowest register, its original value is stored.
    let m = exec(&[stm(1, 0b110)], &[(1, DATA), (2, 22)], 0, 1);
    assert_eq!(m.peek32(DATA), Some(DATA));
    assert_eq!(m.peek32(DATA + 4), Some(22));
    assert_eq!(m.r[1], DATA + 8);
}

#[test]
fn ldm_base_not_in_list_writes_back() {
    // LDM r0!, {r1,r3,r6}
    let mut m = boot(&[ldm(0, 0b0100_1010)]);
    load_words(&mut m, DATA, &[0x11, 0x33, 0x66, 0x99]);
    m.r[0] = DATA;
    step(&mut m, 1);
    assert_eq!((m.r[1], m.r[3], m.r[6]), (0x11, 0x33, 0x66));
    assert_eq!(m.r[0], DATA + 12);
    assert_eq!(m.cycles, 4);
}

#[test]
fn ldm_base_in_list_no_writeback() {
    // LDM r1, {r0,r1,r2}: r1 gets the loaded value, not the written-back address.
    let mut m = boot(&[ldm(1, 0b111)]);
    load_words(&mut m, DATA, &[0xa, 0xb, 0xc]);
    m.r[1] = DATA;
    step(&mut m, 1);
    assert_eq!((m.r[0], m.r[1], m.r[2]), (0xa, 0xb, 0xc));
    assert_eq!(m.cycles, 4);
    // base alone in the list
    let mut m = boot(&[ldm(5, 0b10_0000)]);
    load_words(&mut m, DATA, &[0x5555]);
    m.r[5] = DATA;
    step(&mut m, 1);
    assert_eq!(m.r[5], 0x5555);
    assert_eq!(m.cycles, 2);
}

#[test]
fn ldm_stm_all_eight() {
    let mut m = boot(&[stm(0, 0xff), ldm(0, 0xfe)]);
    for i in 0..8 {
        m.r[i] = 0x100 + i as u32;
    }
    m.r[0] = DATA;
    step(&mut m, 1);
    assert_eq!(m.r[0], DATA + 32);
    assert_eq!(m.peek32(DATA), Some(DATA));
    assert_eq!(m.peek32(DATA + 28), Some(0x107));
    assert_eq!(m.cycles, 9);
    for i in 1..8 {
        m.r[i] = 0;
    }
    m.r[0] = DATA;
    step(&mut m, 1);
    assert_eq!(m.r[0], DATA + 28);
    assert_eq!(m.r[1], DATA, "first word stored was the original base");
    assert_eq!(m.r[2], 0x101);
    assert_eq!(m.r[7], 0x106);
    assert_eq!(m.cycles, 9 + 8);
}

#[test]
fn ldm_unaligned_base_faults_without_writes() {
    let mut m = boot(&[ldm(0, 0b110)]);
    m.r[0] = DATA + 2;
    m.r[1] = 1;
    m.r[2] = 2;
    step1(&mut m);
    assert_hardfault(&m, FaultKind::Unaligned(DATA + 2), CODE, CODE);
    let f = frame(&m, m.r[13]);
    assert_eq!((f[0], f[1], f[2]), (DATA + 2, 1, 2), "no writeback, no loads");
}

#[test]
fn ldm_bus_error_midway_changes_nothing() {
    // LDM r0!, {r1,r2} with the second word unmapped (just past SRAM).
    let end = 0x2000_0000 + cfg().sram_size;
    let mut m = boot(&[ldm(0, 0b110)]);
    m.r[0] = end - 4;
    m.r[1] = 0x11;
    m.r[2] = 0x22;
    step1(&mut m);
    assert_hardfault(&m, FaultKind::BusError(end), CODE, CODE);
    let f = frame(&m, m.r[13]);
    assert_eq!((f[0], f[1], f[2]), (end - 4, 0x11, 0x22));
}

// ------------------------------------------------------------------ SRAM code

#[test]
fn self_modifying_code_in_sram() {
    // Code in SRAM: MOVS r0,#1 ; STRH r1,[r2] (overwrites the next instr) ; <MOVS r0,#2>
    let base = 0x2000_0400;
    let mut m = new_machine();
    load(&mut m, base, &[movs(0, 1), strh_imm(1, 2, 0), movs(0, 2), b_to(base + 6, base + 6)]);
    load_words(&mut m, 4, &[base | 1]);
    m.reset();
    m.r[1] = movs(0, 3) as u32;
    m.r[2] = base + 4;
    step(&mut m, 3);
    assert_eq!(m.r[0], 3, "the patched instruction executes");
    assert_eq!(m.cycles, 1 + 2 + 1);
}

#[test]
fn patching_already_decoded_sram_code() {
    // L: MOVS r0,#1 ; ADDS r3,#1 ; STRH r1,[r2] (patches L) ; B L
    let base = 0x2000_0400;
    let mut m = new_machine();
    load(&mut m, base, &[movs(0, 1), adds_imm8(3, 1), strh_imm(1, 2, 0), b_to(base + 6, base)]);
    load_words(&mut m, 4, &[base | 1]);
    m.reset();
    m.r[1] = movs(0, 9) as u32;
    m.r[2] = base;
    step(&mut m, 4);
    assert_eq!(m.r[0], 1);
    step(&mut m, 1);
    assert_eq!(m.r[0], 9, "decoded op at L was invalidated by the store");
    assert_eq!(m.r[3], 1);
}

#[test]
fn patching_second_half_of_bl_in_sram() {
    // A BL whose second halfword is rewritten after it has executed once.
    let base = 0x2000_04FE; // BL straddles the 256-byte page boundary at 0x2000_0500
    let t1 = 0x2000_0600;
    let t2 = 0x2000_0700;
    let mut m = new_machine();
    let bl1 = bl(base, t1);
    let bl2 = bl(base, t2);
    assert_eq!(bl1[0], bl2[0], "same first halfword");
    load(&mut m, base, &bl1);
    load(&mut m, t1, &[strh_imm(1, 2, 0), mov_hi(15, 3)]); // patch, jump back to base
    load(&mut m, t2, &[movs(0, 2)]);
    load_words(&mut m, 4, &[base | 1]);
    m.reset();
    m.r[1] = bl2[1] as u32;
    m.r[2] = base + 2;
    m.r[3] = base;
    step(&mut m, 3);
    assert_eq!(m.pc, base);
    step(&mut m, 1);
    assert_eq!(m.pc, t2, "re-decoded after the patch");
}
