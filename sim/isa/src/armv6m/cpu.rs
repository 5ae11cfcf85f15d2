//! The `Cpu` trait: what a processor, a debugger or a device scheduler needs of a core,
//! whatever its instruction set — run to a budget, step, the clock, the registers as a
//! debugger names them, reset. `Core<S>` is the ARMv6-M implementation.

use super::bus::Bus;
use super::core::Core;
use super::stop::Stop;

pub trait Cpu {
    /// A register as a debugger names it.
    type Reg: Copy;
    /// Run until something stops the simulation or `max_instructions` more have executed.
    fn run(&mut self, max_instructions: u64) -> Stop;
    /// Execute one instruction (or take what is due between instructions).
    fn step(&mut self) -> Stop {
        self.run(1)
    }
    /// The core's cycle counter (its clock's cycles since power-on).
    fn cycles(&self) -> u64;
    /// Instructions retired.
    fn instructions(&self) -> u64;
    /// Read a register the way a debugger does.
    fn reg(&self, reg: Self::Reg) -> u32;
    /// Write a register the way a debugger does (through the core's debug port).
    fn set_reg(&mut self, reg: Self::Reg, value: u32);
    /// Power-on reset of the core and its devices; memories are kept.
    fn reset(&mut self);
}

/// An ARMv6-M register as a debugger sees it: the core registers and the special
/// registers of the M profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// r0..r12.
    Gpr(u8),
    Sp,
    Lr,
    Pc,
    Xpsr,
    Msp,
    Psp,
    Primask,
    Control,
}

impl<S: Bus> Cpu for Core<S> {
    type Reg = Reg;

    fn run(&mut self, max_instructions: u64) -> Stop {
        Core::run(self, max_instructions)
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }

    fn instructions(&self) -> u64 {
        self.instructions
    }

    fn reg(&self, reg: Reg) -> u32 {
        match reg {
            Reg::Gpr(i) => self.r[(i & 15) as usize],
            Reg::Sp => self.r[13],
            Reg::Lr => self.r[14],
            Reg::Pc => self.pc,
            Reg::Xpsr => self.xpsr(),
            Reg::Msp => self.msp(),
            Reg::Psp => self.psp(),
            Reg::Primask => self.primask as u32,
            Reg::Control => ((self.spsel && !self.in_handler()) as u32) << 1 | self.npriv as u32,
        }
    }

    /// As through the DCRDR: xPSR writes only change the flags; SP, MSP and PSP are word
    /// aligned; PC is halfword aligned.
    fn set_reg(&mut self, reg: Reg, v: u32) {
        match reg {
            Reg::Gpr(i) => self.r[(i & 15) as usize] = v,
            Reg::Sp => self.r[13] = v & !3,
            Reg::Lr => self.r[14] = v,
            Reg::Pc => self.pc = v & !1,
            Reg::Xpsr => self.set_apsr(v),
            Reg::Msp => self.set_msp(v),
            Reg::Psp => self.set_psp(v),
            Reg::Primask => self.primask = v & 1 != 0,
            Reg::Control => {
                self.npriv = v & 1 != 0;
                if !self.in_handler() {
                    let psp = v & 2 != 0;
                    self.select_sp(psp);
                    self.spsel = psp;
                }
            }
        }
        // Masking or selecting state may change which exception is due: re-evaluate.
        self.next_event = 0;
    }

    fn reset(&mut self) {
        Core::reset(self)
    }
}
