//! Arithmetic helpers with exact APSR semantics (ARMv6-M ARM, A2.2).

/// AddWithCarry: returns (result, carry_out, overflow).
#[inline(always)]
pub fn add_with_carry(x: u32, y: u32, carry_in: bool) -> (u32, bool, bool) {
    let wide = x as u64 + y as u64 + carry_in as u64;
    let result = wide as u32;
    let carry = wide > 0xffff_ffff;
    let overflow = ((x ^ result) & (y ^ result)) >> 31 != 0;
    (result, carry, overflow)
}

/// LSL by a register amount (bottom byte used). Returns (result, carry).
#[inline(always)]
pub fn lsl_reg(x: u32, amount: u32, carry_in: bool) -> (u32, bool) {
    let n = amount & 0xff;
    match n {
        0 => (x, carry_in),
        1..=31 => (x << n, (x >> (32 - n)) & 1 != 0),
        32 => (0, x & 1 != 0),
        _ => (0, false),
    }
}

#[inline(always)]
pub fn lsr_reg(x: u32, amount: u32, carry_in: bool) -> (u32, bool) {
    let n = amount & 0xff;
    match n {
        0 => (x, carry_in),
        1..=31 => (x >> n, (x >> (n - 1)) & 1 != 0),
        32 => (0, x >> 31 != 0),
        _ => (0, false),
    }
}

#[inline(always)]
pub fn asr_reg(x: u32, amount: u32, carry_in: bool) -> (u32, bool) {
    let n = amount & 0xff;
    match n {
        0 => (x, carry_in),
        1..=31 => (((x as i32) >> n) as u32, (x >> (n - 1)) & 1 != 0),
        _ => (((x as i32) >> 31) as u32, x >> 31 != 0),
    }
}

#[inline(always)]
pub fn ror_reg(x: u32, amount: u32, carry_in: bool) -> (u32, bool) {
    let n = amount & 0xff;
    if n == 0 {
        return (x, carry_in);
    }
    let r = x.rotate_right(n & 31);
    (r, r >> 31 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_with_carry_corners() {
        assert_eq!(add_with_carry(0xffff_ffff, 1, false), (0, true, false));
        assert_eq!(add_with_carry(0x7fff_ffff, 1, false), (0x8000_0000, false, true));
        assert_eq!(add_with_carry(0x8000_0000, 0x8000_0000, false), (0, true, true));
        // SUBS 0 - 0: x + !0 + 1 -> carry set (no borrow)
        assert_eq!(add_with_carry(0, !0, true), (0, true, false));
        // SUBS 0 - 1: borrow -> carry clear
        assert_eq!(add_with_carry(0, !1, true), (0xffff_ffff, false, false));
        // ADCS with carry in on max values
        assert_eq!(add_with_carry(0xffff_ffff, 0xffff_ffff, true), (0xffff_ffff, true, false));
    }

    #[test]
    fn shifts_by_0_32_and_more() {
        let x = 0x8000_0001;
        assert_eq!(lsl_reg(x, 0, true), (x, true));
        assert_eq!(lsl_reg(x, 1, false), (2, true));
        assert_eq!(lsl_reg(x, 32, false), (0, true));
        assert_eq!(lsl_reg(x, 33, true), (0, false));
        assert_eq!(lsl_reg(x, 256, false), (x, false)); // only the bottom byte counts
        assert_eq!(lsl_reg(x, 257, false), (2, true));
        assert_eq!(lsr_reg(x, 0, false), (x, false));
        assert_eq!(lsr_reg(x, 1, false), (0x4000_0000, true));
        assert_eq!(lsr_reg(x, 32, false), (0, true));
        assert_eq!(lsr_reg(x, 200, true), (0, false));
        assert_eq!(asr_reg(x, 31, false), (0xffff_ffff, false));
        assert_eq!(asr_reg(x, 32, false), (0xffff_ffff, true));
        assert_eq!(asr_reg(0x4000_0000, 255, true), (0, false));
        assert_eq!(ror_reg(x, 0, false), (x, false));
        assert_eq!(ror_reg(x, 1, false), (0xC000_0000, true));
        assert_eq!(ror_reg(x, 32, false), (x, true));
        assert_eq!(ror_reg(0x7fff_ffff, 64, true), (0x7fff_ffff, false));
        assert_eq!(ror_reg(x, 0x100, true), (x, true));
    }
}
