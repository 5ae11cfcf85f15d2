//! Static cycle cost of a flash instruction: what `exec` charges when nothing varies
//! (no taken conditional branch, no exception entered or returned from, no fault, no
//! flash data read beyond a literal-pool load). Energy accounting counts executions only
//! and multiplies by this; whatever varied is added to `Meter::extra` (see `mod.rs`).
//!
//! This mirrors the cycle charges of the core (crate cairn-isa, `armv6m/exec.rs`). A mismatch cannot go unnoticed: the
//! run loop settles every block's last instruction exactly, and the tests compare a
//! single-stepped run (every instruction settled exactly) with a normal one.

use crate::cpu::op::{Kind, Op};
use crate::machine::Machine;

impl Machine {
    /// Static cycles of the flash instruction at `pc` as it executes now: breakpoints
    /// resolve to the instruction under them, and an instruction never decoded costs 0.
    pub fn static_cycles_at(&self, pc: u32) -> u64 {
        self.executed_op_at(pc).map_or(0, |op| self.static_cycles(op))
    }

    /// The flash instruction at `pc` as it executes (the one under a breakpoint).
    pub fn executed_op_at(&self, pc: u32) -> Option<Op> {
        let off = pc.wrapping_sub(self.flash_base) as usize;
        let op = *self.flash_ops.get(off >> 1)?;
        match op.kind() {
            Kind::DebugBreak | Kind::Undecoded => self.decode_at(pc),
            _ => Some(op),
        }
    }

    /// Static cycles of `op` fetched from flash (fetch wait states included).
    pub fn static_cycles(&self, op: Op) -> u64 {
        use Kind::*;
        let ws = self.config.flash_wait_states as u64;
        let count = |list: u32| list.count_ones() as u64;
        let core = match op.kind() {
            Mul => self.config.mul_cycles as u64,
            AddHi | MovHi => {
                if op.a() == 15 {
                    2
                } else {
                    1
                }
            }
            Bx | Blx | B | Wfi | Wfe => 2,
            LdrLit => 2 + if self.flash_offset(op.imm(), 4).is_some() { ws } else { 0 },
            LdrReg | LdrImm | LdrSp | LdrhReg | LdrhImm | LdrshReg | LdrbReg | LdrbImm | LdrsbReg | StrReg | StrImm
            | StrSp | StrhReg | StrhImm | StrbReg | StrbImm => 2,
            Push | Stm | Ldm => 1 + count(op.imm()),
            Pop => {
                if op.imm() & (1 << 15) != 0 {
                    3 + count(op.imm())
                } else {
                    1 + count(op.imm())
                }
            }
            BCond => 1,
            Bl | Barrier | Mrs | Msr => 3,
            Bkpt => (op.imm() == 0xAB) as u64,
            Svc | DebugBreak | Undecoded | Undefined => 0,
            LslImm | LsrImm | AsrImm | AddReg | SubReg | AddImm3 | SubImm3 | MovImm | CmpImm | AddImm8 | SubImm8
            | And | Eor | LslReg | LsrReg | AsrReg | Adc | Sbc | Ror | Tst | Rsb | CmpReg | Cmn | Orr | Bic | Mvn
            | CmpHi | Adr | AddRdSp | AddSp | SubSp | Sxth | Sxtb | Uxth | Uxtb | Rev | Rev16 | Revsh | Nop | Sev
            | Cpsie | Cpsid => 1,
        };
        core + ws
    }
}
