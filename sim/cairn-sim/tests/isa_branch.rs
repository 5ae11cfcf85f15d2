//! Branches: all 14 conditions taken / not taken with their cycle costs, B and B<cond>
//! ranges, BL (LR value, 3 cycles), BX/BLX (2 cycles), interworking faults.

mod common;
use cairn_sim::machine::FaultKind;
use common::*;

/// Reference condition evaluation (ARMv6-M ARM, A6.3.1).
fn holds(cond: u32, f: u32) -> bool {
    let (n, z, c, v) = (f & N != 0, f & Z != 0, f & C != 0, f & V != 0);
    match cond {
        EQ => z,
        NE => !z,
        CS => c,
        CC => !c,
        MI => n,
        PL => !n,
        VS => v,
        VC => !v,
        HI => c && !z,
        LS => !c || z,
        GE => n == v,
        LT => n != v,
        GT => !z && n == v,
        LE => z || n != v,
        _ => unreachable!(),
    }
}

#[test]
fn all_conditions_forward() {
    for cond in 0..14 {
        let mut taken = 0;
        for f in 0..16 {
            let m = exec(&[bcond(cond, CODE, CODE + 0x20)], &[], f, 1);
            if holds(cond, f) {
                taken += 1;
                assert_eq!((m.pc, m.cycles), (CODE + 0x20, 2), "cond {cond} nzcv {f:04b} taken");
            } else {
                assert_eq!((m.pc, m.cycles), (CODE + 2, 1), "cond {cond} nzcv {f:04b} not taken");
            }
            assert_eq!(flags(&m), f);
        }
        // Each condition and its inverse split the 16 flag states.
        let expected = match cond {
            HI | LS => [4, 12][(cond == LS) as usize],
            GT | LE => [4, 12][(cond == LE) as usize],
            _ => 8,
        };
        assert_eq!(taken, expected, "cond {cond}");
    }
}

#[test]
fn all_conditions_backward() {
    let at = CODE + 0x40;
    for cond in 0..14 {
        for f in 0..16 {
            let mut m = boot(&[]);
            load(&mut m, at, &[bcond(cond, at, CODE)]);
            m.pc = at;
            m.set_apsr(apsr(f));
            step(&mut m, 1);
            let want = if holds(cond, f) { (CODE, 2) } else { (at + 2, 1) };
            assert_eq!((m.pc, m.cycles), want, "cond {cond} nzcv {f:04b}");
        }
    }
}

#[test]
fn conditional_branch_range() {
    // +254 and -256 bytes from PC+4.
    let at = CODE + 0x200;
    let mut m = boot(&[]);
    load(&mut m, at, &[bcond(EQ, at, at + 4 + 254)]);
    m.pc = at;
    m.set_apsr(apsr(Z));
    step(&mut m, 1);
    assert_eq!(m.pc, at + 258);
    let mut m = boot(&[]);
    load(&mut m, at, &[bcond(NE, at, at + 4 - 256)]);
    m.pc = at;
    step(&mut m, 1);
    assert_eq!(m.pc, at - 252);
    assert_eq!(bcond(NE, at, at + 4 - 256), 0xD180);
}

#[test]
fn conditional_loop_counts_cycles() {
    // MOVS r0,#5 ; L: SUBS r0,#1 ; BNE L ; MOVS r1,#1
    let code = [movs(0, 5), subs_imm8(0, 1), bcond(NE, CODE + 4, CODE + 2), movs(1, 1)];
    let m = exec(&code, &[], 0, 1 + 5 * 2 + 1);
    assert_eq!((m.r[0], m.r[1]), (0, 1));
    // MOVS 1 + 5*SUBS + 4 taken (2) + 1 not taken (1) + MOVS 1
    assert_eq!(m.cycles, 1 + 5 + 4 * 2 + 1 + 1);
}

#[test]
fn unconditional_branch_range_and_cycles() {
    let at = CODE + 0x1000;
    for target in [at + 4 + 2046, at + 4 - 2048, at, at + 4, at + 2] {
        let mut m = boot(&[]);
        load(&mut m, at, &[b_to(at, target)]);
        m.pc = at;
        m.set_apsr(apsr(N | Z | C | V));
        step(&mut m, 1);
        assert_eq!((m.pc, m.cycles), (target, 2), "B to 0x{target:x}");
        assert_eq!(flags(&m), N | Z | C | V);
    }
    assert_eq!(b_to(0, 0), 0xE7FE, "b . encoding");
}

#[test]
fn b_self_loop() {
    let m = exec(&[b_to(CODE, CODE)], &[], 0, 10);
    assert_eq!((m.pc, m.cycles, m.instructions), (CODE, 20, 10));
}

#[test]
fn bl_forward_and_backward() {
    let far = 0x2_0000;
    // forward: BL at CODE to far
    let mut m = boot(&bl(CODE, far));
    step(&mut m, 1);
    assert_eq!((m.pc, m.r[14], m.cycles), (far, (CODE + 4) | 1, 3));
    // backward: BL at far+2 (2 mod 4) to CODE+8
    let mut m = boot(&[]);
    load(&mut m, far + 2, &bl(far + 2, CODE + 8));
    m.pc = far + 2;
    step(&mut m, 1);
    assert_eq!((m.pc, m.r[14], m.cycles), (CODE + 8, (far + 6) | 1, 3));
    // BL to the next instruction
    let mut m = boot(&bl(CODE, CODE + 4));
    step(&mut m, 1);
    assert_eq!((m.pc, m.r[14]), (CODE + 4, (CODE + 4) | 1));
    // BL into SRAM: offset beyond 16 bits (J1/J2 bits)
    let mut m = boot(&[]);
    let src = 0x0001_0000;
    let dst = 0x0003_fff0;
    load(&mut m, src, &bl(src, dst));
    load(&mut m, dst, &bl(dst, src + 0x100));
    m.pc = src;
    step(&mut m, 2);
    assert_eq!((m.pc, m.r[14]), (src + 0x100, (dst + 4) | 1));
}

#[test]
fn bl_encodings() {
    assert_eq!(bl(0x1000, 0x1104), [0xF000, 0xF880]);
    assert_eq!(bl(0x1000, 0x1000), [0xF7FF, 0xFFFE]);
}

#[test]
fn bl_keeps_flags_and_other_registers() {
    let mut m = boot(&bl(CODE, CODE + 0x100));
    m.set_apsr(apsr(N | V));
    m.r[0] = 0x55;
    step(&mut m, 1);
    assert_eq!(flags(&m), N | V);
    assert_eq!(m.r[0], 0x55);
    assert_eq!(m.r[13], STACK_TOP);
}

#[test]
fn bx_lr_returns() {
    // BL f ; MOVS r0,#1 ... f: BX lr
    let f = CODE + 0x80;
    let mut m = boot(&[bl(CODE, f)[0], bl(CODE, f)[1], movs(0, 1)]);
    load(&mut m, f, &[bx(14)]);
    step(&mut m, 2);
    assert_eq!((m.pc, m.cycles), (CODE + 4, 3 + 2));
    step(&mut m, 1);
    assert_eq!(m.r[0], 1);
}

#[test]
fn bx_to_sram_and_back() {
    let mut m = boot(&[bx(1), movs(5, 5)]);
    let s = 0x2000_0100;
    load(&mut m, s, &[movs(4, 4), bx(14)]);
    m.r[1] = s | 1;
    m.r[14] = (CODE + 2) | 1;
    step(&mut m, 4);
    assert_eq!((m.r[4], m.r[5]), (4, 5));
    assert_eq!(m.cycles, 2 + 1 + 2 + 1);
}

#[test]
fn bx_high_register_and_pc() {
    // BX r9
    let m = exec(&[bx(9)], &[(9, (CODE + 0x41) | 1)], 0, 1);
    assert_eq!((m.pc, m.cycles), (CODE + 0x40, 2));
}

#[test]
fn blx_sets_lr_and_branches() {
    let m = exec(&[nop(), blx(3)], &[(3, (CODE + 0x31) | 1)], 0, 2);
    assert_eq!((m.pc, m.r[14]), (CODE + 0x30, (CODE + 4) | 1));
    assert_eq!(m.cycles, 1 + 2);
    // BLX lr: the target is read before LR is written.
    let m = exec(&[blx(14)], &[(14, (CODE + 0x51) | 1)], 0, 1);
    assert_eq!((m.pc, m.r[14]), (CODE + 0x50, (CODE + 2) | 1));
}

#[test]
fn bx_even_address_is_invstate() {
    let target = CODE + 0x40;
    let mut m = boot(&[bx(2)]);
    m.r[2] = target;
    step(&mut m, 1);
    assert_hardfault(&m, FaultKind::InvalidState, target, target);
    assert_eq!(m.cycles, 2 + 15, "BX cost, then exception entry");
}

#[test]
// Regression: the INVSTATE frame must show EPSR.T = 0 in the stacked xPSR.
fn invstate_frame_has_t_bit_clear() {
    let mut m = boot(&[bx(2)]);
    m.r[2] = CODE + 0x40;
    m.set_apsr(apsr(Z));
    step(&mut m, 1);
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(frame(&m, m.r[13])[7], apsr(Z), "xPSR: flags, T=0, IPSR=0");
}

#[test]
fn blx_even_address_is_invstate_after_writing_lr() {
    let target = CODE + 0x40;
    let mut m = boot(&[blx(2)]);
    m.r[2] = target;
    step(&mut m, 1);
    assert_hardfault(&m, FaultKind::InvalidState, target, target);
    assert_eq!(frame(&m, m.r[13])[5], (CODE + 2) | 1, "stacked LR is the BLX return address");
}

#[test]
fn branch_to_non_executable_memory_faults() {
    for a in [0x6000_0000u32, 0x4000_0000, 0xE000_E000, 0x1000_0000] {
        let mut m = boot(&[bx(0)]);
        m.r[0] = a | 1;
        step1(&mut m);
        assert_eq!((m.pc, m.ipsr, m.cycles), (a, 0, 2), "the branch itself completes");
        step1(&mut m);
        assert_hardfault(&m, FaultKind::NoExecute(a), a, a);
        assert_eq!(m.cycles, 2 + 15);
    }
}

#[test]
fn bx_exc_return_value_in_thread_mode_is_an_ordinary_branch() {
    // In Thread mode 0xFFFFFFF9 is just an address: the fetch from it faults.
    let mut m = boot(&[bx(0)]);
    m.r[0] = 0xFFFF_FFF9;
    step1(&mut m);
    step1(&mut m);
    assert_hardfault(&m, FaultKind::NoExecute(0xFFFF_FFF8), 0xFFFF_FFF8, 0xFFFF_FFF8);
}
