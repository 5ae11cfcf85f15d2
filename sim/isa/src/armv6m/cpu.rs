//! The `Cpu` trait: what a processor, a debugger or a device scheduler needs of a core,
//! whatever its instruction set — run to a budget, step, the clock, the registers as a
//! debugger numbers them, reset. `Core<S>` is the ARMv6-M implementation.

use super::bus::Bus;
use super::core::Core;
use super::stop::Stop;

pub trait Cpu {
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
    /// Register `n` in the debugger's numbering (for ARMv6-M: r0..r12, sp, lr, pc, xPSR).
    fn register(&self, n: usize) -> Option<u32>;
    /// Write register `n` in the debugger's numbering; false when it does not exist.
    fn set_register(&mut self, n: usize, value: u32) -> bool;
    /// Power-on reset of the core and its devices; memories are kept.
    fn reset(&mut self);
}

/// gdb's numbering for ARMv6-M: r0..r12, sp, lr, pc, then xPSR at 16 (15 is the PC).
pub const XPSR: usize = 16;

impl<S: Bus> Cpu for Core<S> {
    fn run(&mut self, max_instructions: u64) -> Stop {
        Core::run(self, max_instructions)
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }

    fn instructions(&self) -> u64 {
        self.instructions
    }

    fn register(&self, n: usize) -> Option<u32> {
        match n {
            0..=14 => Some(self.r[n]),
            15 => Some(self.pc),
            XPSR => Some(self.xpsr()),
            _ => None,
        }
    }

    fn set_register(&mut self, n: usize, value: u32) -> bool {
        match n {
            0..=12 | 14 => self.r[n] = value,
            13 => self.r[13] = value & !3,
            15 => {
                self.pc = value & !1;
                self.next_event = 0;
            }
            XPSR => {
                self.set_apsr(value);
                self.thumb = value & (1 << 24) != 0;
            }
            _ => return false,
        }
        true
    }

    fn reset(&mut self) {
        Core::reset(self)
    }
}
