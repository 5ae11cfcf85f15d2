//! Shared helpers for the ISA integration tests: a tiny Thumb (ARMv6-M) encoder and a
//! standard board layout (vector table, default handlers, code at `CODE`).
#![allow(dead_code)]

use cairn_sim::machine::FaultKind;
use cairn_sim::{BoardConfig, Machine, Stop};

// ------------------------------------------------------------------ layout

/// Where test code is placed (flash).
pub const CODE: u32 = 0x200;
/// Initial MSP from the vector table.
pub const STACK_TOP: u32 = 0x2000_8000;
/// Default handler of exception n lives at `handler(n)` and is `b .`.
pub const HANDLERS: u32 = 0x1000;
/// A scratch data area in SRAM.
pub const DATA: u32 = 0x2000_1000;

pub const HARDFAULT: u32 = 3;
pub const NMI: u32 = 2;
pub const SVCALL: u32 = 11;
pub const PENDSV: u32 = 14;
pub const SYSTICK: u32 = 15;
pub fn irq(k: u32) -> u32 {
    16 + k
}

pub fn handler(n: u32) -> u32 {
    HANDLERS + n * 0x40
}

// System registers.
pub const SYST_CSR: u32 = 0xE000_E010;
pub const SYST_RVR: u32 = 0xE000_E014;
pub const SYST_CVR: u32 = 0xE000_E018;
pub const SYST_CALIB: u32 = 0xE000_E01C;
pub const NVIC_ISER: u32 = 0xE000_E100;
pub const NVIC_ICER: u32 = 0xE000_E180;
pub const NVIC_ISPR: u32 = 0xE000_E200;
pub const NVIC_ICPR: u32 = 0xE000_E280;
pub const NVIC_IPR0: u32 = 0xE000_E400;
pub const SCB_CPUID: u32 = 0xE000_ED00;
pub const SCB_ICSR: u32 = 0xE000_ED04;
pub const SCB_VTOR: u32 = 0xE000_ED08;
pub const SCB_AIRCR: u32 = 0xE000_ED0C;
pub const SCB_SCR: u32 = 0xE000_ED10;
pub const SCB_CCR: u32 = 0xE000_ED14;
pub const SCB_SHPR2: u32 = 0xE000_ED1C;
pub const SCB_SHPR3: u32 = 0xE000_ED20;

// APSR flag bits as returned by `flags()` (NZCV in bits 3..0).
pub const N: u32 = 8;
pub const Z: u32 = 4;
pub const C: u32 = 2;
pub const V: u32 = 1;

/// APSR value with the given NZCV nibble.
pub fn apsr(nzcv: u32) -> u32 {
    nzcv << 28
}

/// NZCV of the machine as a nibble.
pub fn flags(m: &Machine) -> u32 {
    m.apsr() >> 28
}

/// mps2-an385 with 256 KiB of flash and SRAM: the full 4 MiB memories (and their
/// decode caches) make every `Machine::new` cost tens of MB of memset.
pub fn cfg() -> BoardConfig {
    let mut c = BoardConfig::mps2_an385();
    c.flash_size = 256 << 10;
    c.sram_size = 256 << 10;
    c
}

pub fn new_machine() -> Machine {
    with_config(cfg())
}

/// A machine with the standard vector table: every exception n >= 2 vectors to
/// `handler(n)` (which holds `b .`), reset vectors to `CODE`.
pub fn with_config(cfg: BoardConfig) -> Machine {
    let mut m = Machine::new(cfg);
    let mut vt = Vec::new();
    vt.extend_from_slice(&STACK_TOP.to_le_bytes());
    vt.extend_from_slice(&(CODE | 1).to_le_bytes());
    for n in 2..48u32 {
        vt.extend_from_slice(&(handler(n) | 1).to_le_bytes());
    }
    m.load_bytes(0, &vt).unwrap();
    for n in 2..48u32 {
        load(&mut m, handler(n), &[b_to(handler(n), handler(n))]);
    }
    m
}

pub fn load(m: &mut Machine, addr: u32, code: &[u16]) {
    let bytes: Vec<u8> = code.iter().flat_map(|h| h.to_le_bytes()).collect();
    m.load_bytes(addr, &bytes).unwrap();
}

pub fn load_words(m: &mut Machine, addr: u32, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.load_bytes(addr, &bytes).unwrap();
}

/// Set the vector of exception n.
pub fn set_vector(m: &mut Machine, n: u32, target: u32) {
    load_words(m, 4 * n, &[target]);
}

/// Standard machine with `code` at `CODE`, reset.
pub fn boot(code: &[u16]) -> Machine {
    boot_cfg(cfg(), code)
}

pub fn boot_cfg(cfg: BoardConfig, code: &[u16]) -> Machine {
    let mut m = with_config(cfg);
    load(&mut m, CODE, code);
    m.reset();
    m
}

/// Run exactly n instructions and insist the run ended on the instruction limit.
pub fn step(m: &mut Machine, n: u64) {
    let s = m.run(n);
    assert_eq!(s, Stop::Limit, "run stopped early at pc=0x{:08x}", m.pc);
}

/// Execute exactly one instruction, or take exactly one fault, and stop before anything
/// else runs. (`run(1)` counts *retired* instructions, so after a faulting instruction that
/// does not retire it would go on into the handler.) Uses a one-cycle time limit.
pub fn step1(m: &mut Machine) {
    let saved = m.cycle_limit;
    m.cycle_limit = m.cycles + 1;
    let s = m.run(1);
    m.cycle_limit = saved;
    assert_eq!(s, Stop::Limit, "stopped early at pc=0x{:08x}", m.pc);
}

/// Boot `code`, preset registers and flags, run `n` instructions.
pub fn exec(code: &[u16], regs: &[(usize, u32)], nzcv: u32, n: u64) -> Machine {
    let mut m = boot(code);
    for &(i, v) in regs {
        m.r[i] = v;
    }
    m.set_apsr(apsr(nzcv));
    step(&mut m, n);
    m
}

/// Assert that the core just entered HardFault because of `kind` raised by the
/// instruction at `pc`, and that the stacked return address is `stacked_pc`.
pub fn assert_hardfault(m: &Machine, kind: FaultKind, pc: u32, stacked_pc: u32) {
    assert_eq!(m.last_fault, Some((kind, pc)), "last_fault");
    assert_eq!(m.ipsr, HARDFAULT, "ipsr");
    assert_eq!(m.pc, handler(HARDFAULT), "pc at HardFault handler");
    assert_eq!(m.peek32(m.r[13] + 24), Some(stacked_pc), "stacked PC");
}

/// The 8-word exception frame at `sp`: r0, r1, r2, r3, r12, lr, pc, xpsr.
pub fn frame(m: &Machine, sp: u32) -> [u32; 8] {
    let mut f = [0; 8];
    for (i, w) in f.iter_mut().enumerate() {
        *w = m.peek32(sp + 4 * i as u32).expect("frame in memory");
    }
    f
}

/// Step one instruction at a time until `pred` holds (at most `max` steps).
pub fn step_until(m: &mut Machine, max: u64, pred: impl Fn(&Machine) -> bool) {
    for _ in 0..max {
        if pred(m) {
            return;
        }
        step(m, 1);
    }
    assert!(pred(m), "condition not reached in {max} steps (pc=0x{:08x}, cycles={})", m.pc, m.cycles);
}

// ------------------------------------------------------------------ builder

/// Accumulates halfwords starting at `base`, so branch targets can be computed.
pub struct Asm {
    pub base: u32,
    pub hw: Vec<u16>,
}

impl Asm {
    pub fn new(base: u32) -> Asm {
        Asm { base, hw: Vec::new() }
    }
    pub fn here(&self) -> u32 {
        self.base + 2 * self.hw.len() as u32
    }
    pub fn i(&mut self, h: u16) -> &mut Asm {
        self.hw.push(h);
        self
    }
    pub fn w(&mut self, h: [u16; 2]) -> &mut Asm {
        self.hw.extend_from_slice(&h);
        self
    }
    pub fn all(&mut self, hs: &[u16]) -> &mut Asm {
        self.hw.extend_from_slice(hs);
        self
    }
    pub fn load(&self, m: &mut Machine) {
        load(m, self.base, &self.hw);
    }
}

// ------------------------------------------------------------------ encoder

fn lo(r: u32) -> u16 {
    assert!(r < 8, "low register expected, got r{r}");
    r as u16
}

pub fn lsls_imm(rd: u32, rm: u32, imm: u32) -> u16 {
    assert!(imm < 32);
    ((imm as u16) << 6) | (lo(rm) << 3) | lo(rd)
}
/// LSRS by 1..=32 (32 is encoded as imm5 = 0).
pub fn lsrs_imm(rd: u32, rm: u32, imm: u32) -> u16 {
    assert!((1..=32).contains(&imm));
    0x0800 | (((imm & 31) as u16) << 6) | (lo(rm) << 3) | lo(rd)
}
/// ASRS by 1..=32 (32 is encoded as imm5 = 0).
pub fn asrs_imm(rd: u32, rm: u32, imm: u32) -> u16 {
    assert!((1..=32).contains(&imm));
    0x1000 | (((imm & 31) as u16) << 6) | (lo(rm) << 3) | lo(rd)
}
pub fn adds_reg(rd: u32, rn: u32, rm: u32) -> u16 {
    0x1800 | (lo(rm) << 6) | (lo(rn) << 3) | lo(rd)
}
pub fn subs_reg(rd: u32, rn: u32, rm: u32) -> u16 {
    0x1A00 | (lo(rm) << 6) | (lo(rn) << 3) | lo(rd)
}
pub fn adds_imm3(rd: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm < 8);
    0x1C00 | ((imm as u16) << 6) | (lo(rn) << 3) | lo(rd)
}
pub fn subs_imm3(rd: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm < 8);
    0x1E00 | ((imm as u16) << 6) | (lo(rn) << 3) | lo(rd)
}
pub fn movs(rd: u32, imm: u32) -> u16 {
    assert!(imm < 256);
    0x2000 | (lo(rd) << 8) | imm as u16
}
pub fn cmp_imm(rn: u32, imm: u32) -> u16 {
    assert!(imm < 256);
    0x2800 | (lo(rn) << 8) | imm as u16
}
pub fn adds_imm8(rdn: u32, imm: u32) -> u16 {
    assert!(imm < 256);
    0x3000 | (lo(rdn) << 8) | imm as u16
}
pub fn subs_imm8(rdn: u32, imm: u32) -> u16 {
    assert!(imm < 256);
    0x3800 | (lo(rdn) << 8) | imm as u16
}

fn dp(opc: u16, rdn: u32, rm: u32) -> u16 {
    0x4000 | (opc << 6) | (lo(rm) << 3) | lo(rdn)
}
pub fn ands(rdn: u32, rm: u32) -> u16 {
    dp(0, rdn, rm)
}
pub fn eors(rdn: u32, rm: u32) -> u16 {
    dp(1, rdn, rm)
}
pub fn lsls_reg(rdn: u32, rm: u32) -> u16 {
    dp(2, rdn, rm)
}
pub fn lsrs_reg(rdn: u32, rm: u32) -> u16 {
    dp(3, rdn, rm)
}
pub fn asrs_reg(rdn: u32, rm: u32) -> u16 {
    dp(4, rdn, rm)
}
pub fn adcs(rdn: u32, rm: u32) -> u16 {
    dp(5, rdn, rm)
}
pub fn sbcs(rdn: u32, rm: u32) -> u16 {
    dp(6, rdn, rm)
}
pub fn rors(rdn: u32, rm: u32) -> u16 {
    dp(7, rdn, rm)
}
pub fn tst(rn: u32, rm: u32) -> u16 {
    dp(8, rn, rm)
}
/// RSBS rd, rn, #0 (NEGS).
pub fn rsbs(rd: u32, rn: u32) -> u16 {
    dp(9, rd, rn)
}
pub fn cmp_reg(rn: u32, rm: u32) -> u16 {
    dp(10, rn, rm)
}
pub fn cmn(rn: u32, rm: u32) -> u16 {
    dp(11, rn, rm)
}
pub fn orrs(rdn: u32, rm: u32) -> u16 {
    dp(12, rdn, rm)
}
/// MULS rdm, rn, rdm.
pub fn muls(rdm: u32, rn: u32) -> u16 {
    dp(13, rdm, rn)
}
pub fn bics(rdn: u32, rm: u32) -> u16 {
    dp(14, rdn, rm)
}
pub fn mvns(rd: u32, rm: u32) -> u16 {
    dp(15, rd, rm)
}

fn hi(op: u16, rdn: u32, rm: u32) -> u16 {
    assert!(rdn < 16 && rm < 16);
    0x4400 | (op << 8) | (((rdn as u16) >> 3) << 7) | ((rm as u16) << 3) | (rdn as u16 & 7)
}
/// ADD rdn, rm (any registers, flags unchanged).
pub fn add_hi(rdn: u32, rm: u32) -> u16 {
    hi(0, rdn, rm)
}
pub fn cmp_hi(rn: u32, rm: u32) -> u16 {
    hi(1, rn, rm)
}
/// MOV rd, rm (any registers, flags unchanged).
pub fn mov_hi(rd: u32, rm: u32) -> u16 {
    hi(2, rd, rm)
}
pub fn bx(rm: u32) -> u16 {
    0x4700 | ((rm as u16) << 3)
}
pub fn blx(rm: u32) -> u16 {
    0x4780 | ((rm as u16) << 3)
}

/// LDR rt, [pc, #imm] (imm in bytes, multiple of 4).
pub fn ldr_lit(rt: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 1020);
    0x4800 | (lo(rt) << 8) | (imm / 4) as u16
}

fn ldst_reg(opb: u16, rt: u32, rn: u32, rm: u32) -> u16 {
    0x5000 | (opb << 9) | (lo(rm) << 6) | (lo(rn) << 3) | lo(rt)
}
pub fn str_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(0, rt, rn, rm)
}
pub fn strh_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(1, rt, rn, rm)
}
pub fn strb_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(2, rt, rn, rm)
}
pub fn ldrsb_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(3, rt, rn, rm)
}
pub fn ldr_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(4, rt, rn, rm)
}
pub fn ldrh_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(5, rt, rn, rm)
}
pub fn ldrb_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(6, rt, rn, rm)
}
pub fn ldrsh_reg(rt: u32, rn: u32, rm: u32) -> u16 {
    ldst_reg(7, rt, rn, rm)
}

fn ldst_imm(base: u16, rt: u32, rn: u32, imm5: u32) -> u16 {
    assert!(imm5 < 32);
    base | ((imm5 as u16) << 6) | (lo(rn) << 3) | lo(rt)
}
/// STR rt, [rn, #imm] (imm in bytes).
pub fn str_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4));
    ldst_imm(0x6000, rt, rn, imm / 4)
}
pub fn ldr_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4));
    ldst_imm(0x6800, rt, rn, imm / 4)
}
pub fn strb_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    ldst_imm(0x7000, rt, rn, imm)
}
pub fn ldrb_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    ldst_imm(0x7800, rt, rn, imm)
}
pub fn strh_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(2));
    ldst_imm(0x8000, rt, rn, imm / 2)
}
pub fn ldrh_imm(rt: u32, rn: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(2));
    ldst_imm(0x8800, rt, rn, imm / 2)
}
pub fn str_sp(rt: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 1020);
    0x9000 | (lo(rt) << 8) | (imm / 4) as u16
}
pub fn ldr_sp(rt: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 1020);
    0x9800 | (lo(rt) << 8) | (imm / 4) as u16
}
/// ADR rd, #imm: rd = Align(PC + 4, 4) + imm.
pub fn adr(rd: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 1020);
    0xA000 | (lo(rd) << 8) | (imm / 4) as u16
}
/// ADD rd, sp, #imm.
pub fn add_rd_sp(rd: u32, imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 1020);
    0xA800 | (lo(rd) << 8) | (imm / 4) as u16
}
pub fn add_sp(imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 508);
    0xB000 | (imm / 4) as u16
}
pub fn sub_sp(imm: u32) -> u16 {
    assert!(imm.is_multiple_of(4) && imm <= 508);
    0xB080 | (imm / 4) as u16
}
pub fn sxth(rd: u32, rm: u32) -> u16 {
    0xB200 | (lo(rm) << 3) | lo(rd)
}
pub fn sxtb(rd: u32, rm: u32) -> u16 {
    0xB240 | (lo(rm) << 3) | lo(rd)
}
pub fn uxth(rd: u32, rm: u32) -> u16 {
    0xB280 | (lo(rm) << 3) | lo(rd)
}
pub fn uxtb(rd: u32, rm: u32) -> u16 {
    0xB2C0 | (lo(rm) << 3) | lo(rd)
}
pub fn rev(rd: u32, rm: u32) -> u16 {
    0xBA00 | (lo(rm) << 3) | lo(rd)
}
pub fn rev16(rd: u32, rm: u32) -> u16 {
    0xBA40 | (lo(rm) << 3) | lo(rd)
}
pub fn revsh(rd: u32, rm: u32) -> u16 {
    0xBAC0 | (lo(rm) << 3) | lo(rd)
}
/// PUSH {low regs in `list`, lr if `lr`}.
pub fn push(list: u8, lr: bool) -> u16 {
    0xB400 | ((lr as u16) << 8) | list as u16
}
/// POP {low regs in `list`, pc if `pc`}.
pub fn pop(list: u8, pc: bool) -> u16 {
    0xBC00 | ((pc as u16) << 8) | list as u16
}
pub fn stm(rn: u32, list: u8) -> u16 {
    0xC000 | (lo(rn) << 8) | list as u16
}
pub fn ldm(rn: u32, list: u8) -> u16 {
    0xC800 | (lo(rn) << 8) | list as u16
}

pub const EQ: u32 = 0;
pub const NE: u32 = 1;
pub const CS: u32 = 2;
pub const CC: u32 = 3;
pub const MI: u32 = 4;
pub const PL: u32 = 5;
pub const VS: u32 = 6;
pub const VC: u32 = 7;
pub const HI: u32 = 8;
pub const LS: u32 = 9;
pub const GE: u32 = 10;
pub const LT: u32 = 11;
pub const GT: u32 = 12;
pub const LE: u32 = 13;

/// B<cond> from the instruction at `from` to `to`.
pub fn bcond(cond: u32, from: u32, to: u32) -> u16 {
    assert!(cond < 14);
    let off = to.wrapping_sub(from.wrapping_add(4)) as i32;
    assert!(off % 2 == 0 && (-256..=254).contains(&off), "bcond offset {off}");
    0xD000 | ((cond as u16) << 8) | ((off >> 1) as u16 & 0xff)
}
/// B from `from` to `to`.
pub fn b_to(from: u32, to: u32) -> u16 {
    let off = to.wrapping_sub(from.wrapping_add(4)) as i32;
    assert!(off % 2 == 0 && (-2048..=2046).contains(&off), "b offset {off}");
    0xE000 | ((off >> 1) as u16 & 0x7ff)
}
/// BL from `from` to `to`.
pub fn bl(from: u32, to: u32) -> [u16; 2] {
    let off = to.wrapping_sub(from.wrapping_add(4)) as i32;
    assert!(off % 2 == 0 && (-(1 << 24)..(1 << 24)).contains(&off));
    let imm = (off as u32) >> 1;
    let s = (imm >> 23) & 1;
    let i1 = (imm >> 22) & 1;
    let i2 = (imm >> 21) & 1;
    let j1 = (!(i1 ^ s)) & 1;
    let j2 = (!(i2 ^ s)) & 1;
    let h1 = 0xF000 | (s << 10) | ((imm >> 11) & 0x3ff);
    let h2 = 0xD000 | (j1 << 13) | (j2 << 11) | (imm & 0x7ff);
    [h1 as u16, h2 as u16]
}
pub fn svc(imm: u32) -> u16 {
    0xDF00 | imm as u16
}
pub fn udf(imm: u32) -> u16 {
    0xDE00 | imm as u16
}
pub fn bkpt(imm: u32) -> u16 {
    0xBE00 | imm as u16
}
pub fn cpsie() -> u16 {
    0xB662
}
pub fn cpsid() -> u16 {
    0xB672
}
pub fn nop() -> u16 {
    0xBF00
}
pub fn yield_() -> u16 {
    0xBF10
}
pub fn wfe() -> u16 {
    0xBF20
}
pub fn wfi() -> u16 {
    0xBF30
}
pub fn sev() -> u16 {
    0xBF40
}

pub const SYSM_APSR: u32 = 0;
pub const SYSM_IAPSR: u32 = 1;
pub const SYSM_EAPSR: u32 = 2;
pub const SYSM_XPSR: u32 = 3;
pub const SYSM_IPSR: u32 = 5;
pub const SYSM_EPSR: u32 = 6;
pub const SYSM_IEPSR: u32 = 7;
pub const SYSM_MSP: u32 = 8;
pub const SYSM_PSP: u32 = 9;
pub const SYSM_PRIMASK: u32 = 16;
pub const SYSM_CONTROL: u32 = 20;

pub fn mrs(rd: u32, sysm: u32) -> [u16; 2] {
    [0xF3EF, 0x8000 | ((rd as u16) << 8) | sysm as u16]
}
/// MSR <sysm>, rn (APSR forms use mask nzcvq).
pub fn msr(sysm: u32, rn: u32) -> [u16; 2] {
    [0xF380 | rn as u16, 0x8800 | sysm as u16]
}
pub fn dsb() -> [u16; 2] {
    [0xF3BF, 0x8F4F]
}
pub fn dmb() -> [u16; 2] {
    [0xF3BF, 0x8F5F]
}
pub fn isb() -> [u16; 2] {
    [0xF3BF, 0x8F6F]
}

/// `n` NOPs.
pub fn nops(n: usize) -> Vec<u16> {
    vec![nop(); n]
}

/// An energy profile (format 2) in which every cycle, asleep or not, costs the same:
/// `ua_per_mhz` at `voltage_v`, one range, no wait states, no wake-up cost.
pub fn flat_profile_toml(voltage_v: f64, ua_per_mhz: f64) -> String {
    let classes: String = ["alu", "mul", "load", "store", "branch", "multi", "system", "sleep", "exception"]
        .iter()
        .map(|c| format!("{c} = 1.0\n"))
        .collect();
    format!(
        "version = 2\nname = \"flat\"\npart = \"test part\"\n\
         [supply]\nvoltage_v = {voltage_v:?}\nsource = \"test\"\n\
         [classes]\n{classes}overhead_fj = 0\nsource = \"test\"\n\
         [sleep]\nwakeup_us = 0.0\nwakeup_ua = 0.0\nsource = \"test\"\n\
         [deep_sleep]\nua_per_mhz = {ua_per_mhz:?}\nstatic_ua = 0.0\nwakeup_us = 0.0\nwakeup_ua = 0.0\nsource = \"test\"\n\
         [[range]]\nid = 1\nzero_wait_max_hz = 100000000\nwait_states_above = 0\nsource = \"test\"\n\
         [range.run]\nua_per_mhz = {ua_per_mhz:?}\nsource = \"test\"\n\
         [range.sleep]\nua_per_mhz = {ua_per_mhz:?}\nstatic_ua = 0.0\nsource = \"test\"\n"
    )
}
