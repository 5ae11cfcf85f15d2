//! Shifts and rotates: LSLS/LSRS/ASRS by immediate (incl. #0 = MOVS and #32 encoded as
//! imm5 = 0) and LSLS/LSRS/ASRS/RORS by register (only the bottom byte of Rs counts),
//! with the resulting carry. V is never changed by a shift.

mod common;
use common::*;

/// Expected carry out: cleared, set, or the carry in kept.
#[derive(Clone, Copy, Debug)]
enum Co {
    C0,
    C1,
    Keep,
}
use Co::*;

/// Run `op` (r0 = shift(r1 or r0, ...)) from every interesting flag state.
fn check(name: &str, op: u16, regs: &[(usize, u32)], want: u32, nz: u32, co: Co) {
    for fin in [0, C, V, C | V, N | Z, N | Z | C | V] {
        let m = exec(&[op], regs, fin, 1);
        let c = match co {
            C0 => 0,
            C1 => C,
            Keep => fin & C,
        };
        assert_eq!((m.r[0], flags(&m)), (want, nz | c | (fin & V)), "{name} regs={regs:x?} nzcv_in={fin:04b}");
        assert_eq!(m.cycles, 1, "{name} cycles");
        assert_eq!(m.pc, CODE + 2);
    }
}

#[test]
fn lsls_immediate() {
    // (imm, x, result, NZ, carry)
    let cases: &[(u32, u32, u32, u32, Co)] = &[
        (0, 0x8000_0000, 0x8000_0000, N, Keep), // LSLS #0 is MOVS r0, r1
        (0, 0, 0, Z, Keep),
        (0, 0x1234, 0x1234, 0, Keep),
        (1, 0x8000_0001, 2, 0, C1),
        (1, 0x4000_0000, 0x8000_0000, N, C0),
        (31, 3, 0x8000_0000, N, C1),
        (31, 1, 0x8000_0000, N, C0),
        (31, 2, 0, Z, C1),
        (4, 0x1234_5678, 0x2345_6780, 0, C1),
        (4, 0x0234_5678, 0x2345_6780, 0, C0),
    ];
    for &(imm, x, want, nz, co) in cases {
        check(&format!("LSLS #{imm}"), lsls_imm(0, 1, imm), &[(0, 0xdead), (1, x)], want, nz, co);
    }
}

#[test]
fn lsrs_immediate() {
    let cases: &[(u32, u32, u32, u32, Co)] = &[
        (32, 0x8000_0000, 0, Z, C1), // imm5 = 0 encodes #32
        (32, 0x7fff_ffff, 0, Z, C0),
        (32, 0xffff_ffff, 0, Z, C1),
        (1, 3, 1, 0, C1),
        (1, 0x8000_0000, 0x4000_0000, 0, C0),
        (31, 0xC000_0000, 1, 0, C1),
        (31, 0x8000_0000, 1, 0, C0),
        (31, 0x4000_0000, 0, Z, C1),
        (8, 0x1234_5678, 0x0012_3456, 0, C0),
        (8, 0x1234_5680, 0x0012_3456, 0, C1),
    ];
    for &(imm, x, want, nz, co) in cases {
        check(&format!("LSRS #{imm}"), lsrs_imm(0, 1, imm), &[(0, 0xdead), (1, x)], want, nz, co);
    }
    assert_eq!(lsrs_imm(0, 1, 32) & 0x07c0, 0, "encoding check: #32 is imm5 = 0");
}

#[test]
fn asrs_immediate() {
    let cases: &[(u32, u32, u32, u32, Co)] = &[
        (32, 0x8000_0000, 0xffff_ffff, N, C1), // imm5 = 0 encodes #32
        (32, 0x7fff_ffff, 0, Z, C0),
        (32, 0xffff_ffff, 0xffff_ffff, N, C1),
        (1, 0x8000_0001, 0xC000_0000, N, C1),
        (1, 0x7fff_fffe, 0x3fff_ffff, 0, C0),
        (31, 0x4000_0000, 0, Z, C1),
        (31, 0x8000_0000, 0xffff_ffff, N, C0),
        (4, 0x8765_432F, 0xF876_5432, N, C1),
    ];
    for &(imm, x, want, nz, co) in cases {
        check(&format!("ASRS #{imm}"), asrs_imm(0, 1, imm), &[(0, 0xdead), (1, x)], want, nz, co);
    }
}

#[test]
fn shift_immediate_in_place() {
    // LSLS r3, r3, #3 ; LSRS r4, r4, #32 ; ASRS r5, r5, #32
    let m = exec(
        &[lsls_imm(3, 3, 3), lsrs_imm(4, 4, 32), asrs_imm(5, 5, 32)],
        &[(3, 0x2000_0001), (4, 0x8000_0000), (5, 0x8000_0000)],
        0,
        3,
    );
    assert_eq!((m.r[3], m.r[4], m.r[5]), (8, 0, 0xffff_ffff));
    assert_eq!(flags(&m), N | C);
}

/// Register shifts of r0 by r1: (amount, x, result, NZ, carry).
type RegCase = (u32, u32, u32, u32, Co);

fn check_reg(name: &str, op: u16, cases: &[RegCase]) {
    for &(n, x, want, nz, co) in cases {
        check(&format!("{name} by {n:#x}"), op, &[(0, x), (1, n)], want, nz, co);
    }
}

const X: u32 = 0x8000_0001;

#[test]
fn lsls_register() {
    check_reg(
        "LSLS",
        lsls_reg(0, 1),
        &[
            (0, X, X, N, Keep),
            (1, X, 2, 0, C1),
            (31, X, 0x8000_0000, N, C0),
            (31, 2, 0, Z, C1),
            (32, X, 0, Z, C1),
            (32, 2, 0, Z, C0),
            (33, X, 0, Z, C0),
            (33, 0xffff_ffff, 0, Z, C0),
            (255, 0xffff_ffff, 0, Z, C0),
            (256, X, X, N, Keep),
            (0xffff_ff01, X, 2, 0, C1),
            (0x120, X, 0, Z, C1), // bottom byte 0x20 = 32
            (0, 0, 0, Z, Keep),
        ],
    );
}

#[test]
fn lsrs_register() {
    check_reg(
        "LSRS",
        lsrs_reg(0, 1),
        &[
            (0, X, X, N, Keep),
            (1, X, 0x4000_0000, 0, C1),
            (31, X, 1, 0, C0),
            (31, 0x4000_0000, 0, Z, C1),
            (32, X, 0, Z, C1),
            (32, 0x7fff_ffff, 0, Z, C0),
            (33, X, 0, Z, C0),
            (255, 0xffff_ffff, 0, Z, C0),
            (256, X, X, N, Keep),
            (0x8000_0001, X, 0x4000_0000, 0, C1), // bottom byte 1
        ],
    );
}

#[test]
fn asrs_register() {
    check_reg(
        "ASRS",
        asrs_reg(0, 1),
        &[
            (0, X, X, N, Keep),
            (1, X, 0xC000_0000, N, C1),
            (31, X, 0xffff_ffff, N, C0),
            (32, X, 0xffff_ffff, N, C1),
            (33, X, 0xffff_ffff, N, C1),
            (255, X, 0xffff_ffff, N, C1),
            (256, X, X, N, Keep),
            (31, 0x4000_0001, 0, Z, C1),
            (32, 0x4000_0001, 0, Z, C0),
            (33, 0x7fff_ffff, 0, Z, C0),
            (255, 0x4000_0001, 0, Z, C0),
            (0x0000_0301, 0x4000_0002, 0x2000_0001, 0, C0), // bottom byte 1
        ],
    );
}

#[test]
fn rors_register() {
    check_reg(
        "RORS",
        rors(0, 1),
        &[
            (0, X, X, N, Keep),
            (1, X, 0xC000_0000, N, C1),
            (31, X, 3, 0, C0),
            (32, X, X, N, C1), // ROR by 32: value unchanged, C = bit 31
            (32, 2, 2, 0, C0),
            (33, X, 0xC000_0000, N, C1),
            (255, X, 3, 0, C0), // 255 mod 32 = 31
            (256, X, X, N, Keep),
            (64, 0x7fff_ffff, 0x7fff_ffff, 0, C0),
            (5, 0, 0, Z, C0),
            (4, 0x1234_5678, 0x8123_4567, N, C1),
            (0x104, 0x1234_5678, 0x8123_4567, N, C1),
        ],
    );
}

#[test]
fn shift_register_rs_untouched_and_rd_in_place() {
    // LSLS r2, r3 with r3 = 0x101 (shift by 1)
    let m = exec(&[lsls_reg(2, 3)], &[(2, 0x40), (3, 0x101)], 0, 1);
    assert_eq!((m.r[2], m.r[3]), (0x80, 0x101));
    // RORS r4, r4: amount is the original value's bottom byte (4)
    let m = exec(&[rors(4, 4)], &[(4, 0x0000_0104)], 0, 1);
    assert_eq!(m.r[4], 0x4000_0010);
    assert_eq!(flags(&m), 0);
}
