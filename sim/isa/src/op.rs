//! Predecoded instruction form. One `Op` per halfword address; 8 bytes so the
//! decode cache stays small and the execute loop reads it with one load.

/// What an instruction does. Operand meaning per kind is documented on each variant
/// (`a`, `b`, `c` are register numbers or small fields, `imm` a 32-bit immediate or address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Not decoded yet: decode lazily on first execution.
    Undecoded,
    /// UNDEFINED / unsupported encoding: HardFault.
    Undefined,
    // --- shifts by immediate: a=rd, b=rm, imm=shift amount (LSR/ASR: 1..=32) ---
    LslImm,
    LsrImm,
    AsrImm,
    // --- add/sub: a=rd, b=rn, c=rm or imm=imm3 ---
    AddReg,
    SubReg,
    AddImm3,
    SubImm3,
    // --- 8-bit immediate forms: a=rdn, imm=imm8 ---
    MovImm,
    CmpImm,
    AddImm8,
    SubImm8,
    // --- data processing register: a=rdn, b=rm ---
    And,
    Eor,
    LslReg,
    LsrReg,
    AsrReg,
    Adc,
    Sbc,
    Ror,
    Tst,
    Rsb,
    CmpReg,
    Cmn,
    Orr,
    Mul,
    Bic,
    Mvn,
    // --- high registers: a=rd/rn (0..=15), b=rm (0..=15) ---
    AddHi,
    CmpHi,
    MovHi,
    /// b=rm
    Bx,
    /// b=rm
    Blx,
    // --- loads/stores, register offset: a=rt, b=rn, c=rm ---
    StrReg,
    StrhReg,
    StrbReg,
    LdrsbReg,
    LdrReg,
    LdrhReg,
    LdrbReg,
    LdrshReg,
    // --- loads/stores, immediate offset (bytes): a=rt, b=rn, imm=offset ---
    StrImm,
    LdrImm,
    StrbImm,
    LdrbImm,
    StrhImm,
    LdrhImm,
    /// a=rt, imm=offset from SP
    StrSp,
    /// a=rt, imm=offset from SP
    LdrSp,
    /// a=rt, imm=absolute literal address
    LdrLit,
    /// a=rd, imm=absolute address
    Adr,
    /// a=rd, imm=offset (rd = SP + imm)
    AddRdSp,
    /// imm=bytes
    AddSp,
    /// imm=bytes
    SubSp,
    // --- extend / reverse: a=rd, b=rm ---
    Sxth,
    Sxtb,
    Uxth,
    Uxtb,
    Rev,
    Rev16,
    Revsh,
    /// imm=register list, bit 14 = LR
    Push,
    /// imm=register list, bit 15 = PC
    Pop,
    /// a=rn, imm=list
    Stm,
    /// a=rn, imm=list
    Ldm,
    /// a=condition, imm=absolute target
    BCond,
    /// imm=absolute target
    B,
    /// imm=absolute target (32-bit instruction)
    Bl,
    /// imm=imm8
    Svc,
    /// imm=imm8
    Bkpt,
    Cpsie,
    Cpsid,
    Nop,
    Wfe,
    Wfi,
    Sev,
    /// a=rd, imm=SYSm (32-bit)
    Mrs,
    /// a=rn, imm=SYSm (32-bit)
    Msr,
    /// 32-bit barrier (DSB, DMB, ISB): same timing and no architectural effect here.
    Barrier,
    /// Debugger breakpoint planted in the decode cache (never produced by `decode`).
    DebugBreak,
}

/// A decoded instruction packed into one u64 (kind | a << 8 | b << 16 | c << 24 | imm << 32),
/// so the execute loop fetches it with a single load.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Op(u64);

impl Op {
    pub const UNDECODED: Op = Op::new(Kind::Undecoded, 0, 0, 0, 0);

    pub const fn new(kind: Kind, a: u8, b: u8, c: u8, imm: u32) -> Op {
        Op(kind as u64 | (a as u64) << 8 | (b as u64) << 16 | (c as u64) << 24 | (imm as u64) << 32)
    }

    /// A vector of `n` undecoded ops from zeroed memory (calloc: pages are only touched
    /// when used, so a 4 MiB flash costs nothing until its code runs).
    pub fn undecoded_vec(n: usize) -> Vec<Op> {
        const { assert!(Op::UNDECODED.0 == 0) };
        let mut raw = std::mem::ManuallyDrop::new(vec![0u64; n]);
        // SAFETY: Op is repr(transparent) over u64 (same size and alignment), the all-zero
        // u64 is Op::UNDECODED, and the allocation is handed over whole (ptr, len, cap).
        unsafe { Vec::from_raw_parts(raw.as_mut_ptr() as *mut Op, raw.len(), raw.capacity()) }
    }

    #[inline(always)]
    pub fn kind(self) -> Kind {
        // SAFETY: the low byte is always written from a `Kind` by `Op::new`, and `Kind`
        // is `repr(u8)`, so it holds a valid discriminant.
        unsafe { std::mem::transmute::<u8, Kind>(self.0 as u8) }
    }

    #[inline(always)]
    pub fn a(self) -> u8 {
        (self.0 >> 8) as u8
    }

    #[inline(always)]
    pub fn b(self) -> u8 {
        (self.0 >> 16) as u8
    }

    #[inline(always)]
    pub fn c(self) -> u8 {
        (self.0 >> 24) as u8
    }

    #[inline(always)]
    pub fn imm(self) -> u32 {
        (self.0 >> 32) as u32
    }
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}(a={}, b={}, c={}, imm=0x{:x})", self.kind(), self.a(), self.b(), self.c(), self.imm())
    }
}

const _: () = assert!(std::mem::size_of::<Op>() == 8);
