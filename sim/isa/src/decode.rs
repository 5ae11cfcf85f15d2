//! ARMv6-M Thumb decoder: turns one or two halfwords at a known address into an `Op`.
//! PC-relative targets are resolved here, so the execute loop never recomputes them.

use super::op::{Kind, Op};

/// True when `hw` is the first halfword of a 32-bit Thumb instruction.
pub fn is_32bit(hw: u16) -> bool {
    (hw >> 11) >= 0b11101
}

fn op(kind: Kind, a: u32, b: u32, c: u32, imm: u32) -> Op {
    Op::new(kind, a as u8, b as u8, c as u8, imm)
}

const UNDEFINED: Op = Op::new(Kind::Undefined, 0, 0, 0, 0);

/// Decode the instruction at `pc` whose first halfword is `hw` and whose following
/// halfword (used only for 32-bit encodings) is `hw2`.
pub fn decode(pc: u32, hw: u16, hw2: u16) -> Op {
    let h = hw as u32;
    let rd = h & 7;
    let rm3 = (h >> 3) & 7;
    let r8 = (h >> 8) & 7;
    let imm8 = h & 0xff;
    let imm5 = (h >> 6) & 31;
    match h >> 11 {
        0b00000 => op(Kind::LslImm, rd, rm3, 0, imm5),
        0b00001 => op(Kind::LsrImm, rd, rm3, 0, if imm5 == 0 { 32 } else { imm5 }),
        0b00010 => op(Kind::AsrImm, rd, rm3, 0, if imm5 == 0 { 32 } else { imm5 }),
        0b00011 => {
            let x = (h >> 6) & 7;
            match (h >> 9) & 3 {
                0 => op(Kind::AddReg, rd, rm3, x, 0),
                1 => op(Kind::SubReg, rd, rm3, x, 0),
                2 => op(Kind::AddImm3, rd, rm3, 0, x),
                _ => op(Kind::SubImm3, rd, rm3, 0, x),
            }
        }
        0b00100 => op(Kind::MovImm, r8, 0, 0, imm8),
        0b00101 => op(Kind::CmpImm, r8, 0, 0, imm8),
        0b00110 => op(Kind::AddImm8, r8, 0, 0, imm8),
        0b00111 => op(Kind::SubImm8, r8, 0, 0, imm8),
        0b01000 => decode_dp_special(h),
        0b01001 => op(Kind::LdrLit, r8, 0, 0, ((pc + 4) & !3).wrapping_add(imm8 * 4)),
        0b01010 | 0b01011 => {
            let kind = match (h >> 9) & 7 {
                0 => Kind::StrReg,
                1 => Kind::StrhReg,
                2 => Kind::StrbReg,
                3 => Kind::LdrsbReg,
                4 => Kind::LdrReg,
                5 => Kind::LdrhReg,
                6 => Kind::LdrbReg,
                _ => Kind::LdrshReg,
            };
            op(kind, rd, rm3, (h >> 6) & 7, 0)
        }
        0b01100 => op(Kind::StrImm, rd, rm3, 0, imm5 * 4),
        0b01101 => op(Kind::LdrImm, rd, rm3, 0, imm5 * 4),
        0b01110 => op(Kind::StrbImm, rd, rm3, 0, imm5),
        0b01111 => op(Kind::LdrbImm, rd, rm3, 0, imm5),
        0b10000 => op(Kind::StrhImm, rd, rm3, 0, imm5 * 2),
        0b10001 => op(Kind::LdrhImm, rd, rm3, 0, imm5 * 2),
        0b10010 => op(Kind::StrSp, r8, 0, 0, imm8 * 4),
        0b10011 => op(Kind::LdrSp, r8, 0, 0, imm8 * 4),
        0b10100 => op(Kind::Adr, r8, 0, 0, ((pc + 4) & !3).wrapping_add(imm8 * 4)),
        0b10101 => op(Kind::AddRdSp, r8, 0, 0, imm8 * 4),
        0b10110 | 0b10111 => decode_misc(h),
        0b11000 | 0b11001 => {
            let list = h & 0xff;
            if list == 0 {
                // An empty register list is UNPREDICTABLE; fault rather than guess.
                return UNDEFINED;
            }
            let kind = if h & 0x0800 == 0 { Kind::Stm } else { Kind::Ldm };
            op(kind, r8, 0, 0, list)
        }
        0b11010 | 0b11011 => {
            let cond = (h >> 8) & 15;
            match cond {
                0b1110 => UNDEFINED, // UDF
                0b1111 => op(Kind::Svc, 0, 0, 0, imm8),
                _ => {
                    let off = ((imm8 as i8) as i32) << 1;
                    op(Kind::BCond, cond, 0, 0, pc.wrapping_add(4).wrapping_add(off as u32))
                }
            }
        }
        0b11100 => {
            let off = (((h & 0x7ff) << 21) as i32) >> 20;
            op(Kind::B, 0, 0, 0, pc.wrapping_add(4).wrapping_add(off as u32))
        }
        _ => decode_32(pc, h, hw2 as u32),
    }
}

fn decode_dp_special(h: u32) -> Op {
    let rdn = h & 7;
    let rm = (h >> 3) & 7;
    if h & 0x0400 == 0 {
        let kind = match (h >> 6) & 15 {
            0 => Kind::And,
            1 => Kind::Eor,
            2 => Kind::LslReg,
            3 => Kind::LsrReg,
            4 => Kind::AsrReg,
            5 => Kind::Adc,
            6 => Kind::Sbc,
            7 => Kind::Ror,
            8 => Kind::Tst,
            9 => Kind::Rsb,
            10 => Kind::CmpReg,
            11 => Kind::Cmn,
            12 => Kind::Orr,
            13 => Kind::Mul,
            14 => Kind::Bic,
            _ => Kind::Mvn,
        };
        return op(kind, rdn, rm, 0, 0);
    }
    let rd = (h & 7) | ((h >> 4) & 8);
    let rm = (h >> 3) & 15;
    match (h >> 8) & 3 {
        0 => op(Kind::AddHi, rd, rm, 0, 0),
        1 => {
            // CMP (high) with both registers low or naming PC is UNPREDICTABLE in ARMv6-M.
            if (rd < 8 && rm < 8) || rd == 15 || rm == 15 {
                return UNDEFINED;
            }
            op(Kind::CmpHi, rd, rm, 0, 0)
        }
        2 => op(Kind::MovHi, rd, rm, 0, 0),
        _ => {
            if h & 7 != 0 {
                return UNDEFINED;
            }
            if h & 0x80 != 0 {
                if rm == 15 {
                    return UNDEFINED;
                }
                op(Kind::Blx, 0, rm, 0, 0)
            } else {
                op(Kind::Bx, 0, rm, 0, 0)
            }
        }
    }
}

fn decode_misc(h: u32) -> Op {
    let rd = h & 7;
    let rm = (h >> 3) & 7;
    match (h >> 8) & 15 {
        0b0000 => {
            let imm = (h & 0x7f) * 4;
            if h & 0x80 == 0 {
                op(Kind::AddSp, 0, 0, 0, imm)
            } else {
                op(Kind::SubSp, 0, 0, 0, imm)
            }
        }
        0b0010 => {
            let kind = match (h >> 6) & 3 {
                0 => Kind::Sxth,
                1 => Kind::Sxtb,
                2 => Kind::Uxth,
                _ => Kind::Uxtb,
            };
            op(kind, rd, rm, 0, 0)
        }
        0b0100 | 0b0101 => {
            let list = (h & 0xff) | ((h & 0x100) << 6);
            if list == 0 {
                return UNDEFINED;
            }
            op(Kind::Push, 0, 0, 0, list)
        }
        0b0110 => match h {
            0xB662 => op(Kind::Cpsie, 0, 0, 0, 0),
            0xB672 => op(Kind::Cpsid, 0, 0, 0, 0),
            _ => UNDEFINED,
        },
        0b1010 => match (h >> 6) & 3 {
            0 => op(Kind::Rev, rd, rm, 0, 0),
            1 => op(Kind::Rev16, rd, rm, 0, 0),
            3 => op(Kind::Revsh, rd, rm, 0, 0),
            _ => UNDEFINED,
        },
        0b1100 | 0b1101 => {
            let list = (h & 0xff) | ((h & 0x100) << 7);
            if list == 0 {
                return UNDEFINED;
            }
            op(Kind::Pop, 0, 0, 0, list)
        }
        0b1110 => op(Kind::Bkpt, 0, 0, 0, h & 0xff),
        0b1111 => {
            if h & 15 != 0 {
                return UNDEFINED; // IT does not exist in ARMv6-M
            }
            match (h >> 4) & 15 {
                2 => op(Kind::Wfe, 0, 0, 0, 0),
                3 => op(Kind::Wfi, 0, 0, 0, 0),
                4 => op(Kind::Sev, 0, 0, 0, 0),
                // NOP, YIELD and unallocated hints execute as NOP.
                _ => op(Kind::Nop, 0, 0, 0, 0),
            }
        }
        _ => UNDEFINED,
    }
}

fn decode_32(pc: u32, h1: u32, h2: u32) -> Op {
    if h1 & 0xF800 != 0xF000 || h2 & 0x8000 == 0 {
        return UNDEFINED;
    }
    if h2 & 0xD000 == 0xD000 {
        // BL
        let s = (h1 >> 10) & 1;
        let j1 = (h2 >> 13) & 1;
        let j2 = (h2 >> 11) & 1;
        let i1 = !(j1 ^ s) & 1;
        let i2 = !(j2 ^ s) & 1;
        let imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((h1 & 0x3ff) << 12) | ((h2 & 0x7ff) << 1);
        let off = ((imm << 7) as i32) >> 7;
        return op(Kind::Bl, 0, 0, 0, pc.wrapping_add(4).wrapping_add(off as u32));
    }
    if h2 & 0xD000 != 0x8000 {
        return UNDEFINED;
    }
    if h1 & 0xFFF0 == 0xF380 && h2 & 0xFF00 == 0x8800 {
        let rn = h1 & 15;
        if rn == 13 || rn == 15 {
            return UNDEFINED;
        }
        return op(Kind::Msr, rn, 0, 0, h2 & 0xff);
    }
    if h1 == 0xF3EF && h2 & 0xF000 == 0x8000 {
        let rd = (h2 >> 8) & 15;
        if rd == 13 || rd == 15 {
            return UNDEFINED;
        }
        return op(Kind::Mrs, rd, 0, 0, h2 & 0xff);
    }
    if h1 == 0xF3BF && h2 & 0xFF00 == 0x8F00 {
        return match (h2 >> 4) & 15 {
            4..=6 => op(Kind::Barrier, 0, 0, 0, 0),
            _ => UNDEFINED,
        };
    }
    UNDEFINED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bl_forward_and_backward() {
        // bl +0x100 at 0x1000: target 0x1104
        let op = decode(0x1000, 0xF000, 0xF880);
        assert_eq!(op.kind(), Kind::Bl);
        assert_eq!(op.imm(), 0x1104);
        // bl -4 at 0x1000: encoding F7FF FFFE -> target 0x1000
        let op = decode(0x1000, 0xF7FF, 0xFFFE);
        assert_eq!(op.imm(), 0x1000);
    }

    #[test]
    fn branch_offsets() {
        assert_eq!(decode(0x200, 0xE7FE, 0).imm(), 0x200); // b .
        assert_eq!(decode(0x200, 0xD0FE, 0).imm(), 0x200); // beq .
        assert_eq!(decode(0x200, 0xD0FE, 0).a(), 0);
        assert_eq!(decode(0x200, 0xDE00, 0).kind(), Kind::Undefined); // udf
        assert_eq!(decode(0x200, 0xDF05, 0).kind(), Kind::Svc);
    }

    #[test]
    fn literal_address_is_word_aligned() {
        assert_eq!(decode(0x102, 0x4801, 0).imm(), 0x108); // ldr r0,[pc,#4] at 0x102
        assert_eq!(decode(0x100, 0x4801, 0).imm(), 0x108);
    }

    #[test]
    fn system_32bit() {
        assert_eq!(decode(0, 0xF3EF, 0x8008).kind(), Kind::Mrs); // mrs r0, msp
        assert_eq!(decode(0, 0xF380, 0x8810).kind(), Kind::Msr); // msr primask, r0
        assert_eq!(decode(0, 0xF3BF, 0x8F4F).kind(), Kind::Barrier); // dsb
        assert_eq!(decode(0, 0xF3BF, 0x8F6F).kind(), Kind::Barrier); // isb
        assert_eq!(decode(0, 0xF7F0, 0xA000).kind(), Kind::Undefined); // udf.w
        assert_eq!(decode(0, 0xE800, 0x0000).kind(), Kind::Undefined); // Thumb-2 only
    }

    #[test]
    fn hints_and_cps() {
        assert_eq!(decode(0, 0xBF00, 0).kind(), Kind::Nop);
        assert_eq!(decode(0, 0xBF30, 0).kind(), Kind::Wfi);
        assert_eq!(decode(0, 0xBF20, 0).kind(), Kind::Wfe);
        assert_eq!(decode(0, 0xBF40, 0).kind(), Kind::Sev);
        assert_eq!(decode(0, 0xBF08, 0).kind(), Kind::Undefined); // IT
        assert_eq!(decode(0, 0xB672, 0).kind(), Kind::Cpsid);
        assert_eq!(decode(0, 0xB662, 0).kind(), Kind::Cpsie);
        assert_eq!(decode(0, 0xB100, 0).kind(), Kind::Undefined); // CBZ is Thumb-2
    }
}
