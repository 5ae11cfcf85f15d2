//! The main-stack guard of a processor: where the limit comes from (the ELF's
//! `__stack_limit`, or a scenario's `[stack] limit`), what the processor tells the watch
//! (`crate::stack`) when MSP may have reached a new low, what an overflow does (a warning,
//! or a stop at the instruction), and its part of the stats. The core reports SP writes
//! only while the watch is on (`Observer::watches_stack`), so a run without a limit runs
//! the loop that has no code for them.

use crate::machine::{Machine, Stop};
use crate::stack::{StackCheck, StackWatch};

/// The ELF symbol that names the lowest address the main stack may use.
pub const LIMIT_SYMBOL: &str = "__stack_limit";

/// Where a scenario puts the limit: an address, or a symbol of the ELF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StackLimit {
    Address(u32),
    Symbol(String),
}

/// The scenario's `[stack]` table.
#[derive(Clone, Debug, Default)]
pub struct StackOptions {
    pub limit: Option<StackLimit>,
    pub check: Option<StackCheck>,
}

impl Machine {
    /// Start watching the main stack (after the reset that starts the run: its top is the
    /// MSP the reset loaded).
    pub fn watch_stack(&mut self, limit: u32, limit_name: &str, check: StackCheck) {
        let top = self.msp();
        self.stack = StackWatch::new(limit, limit_name, top, check);
        self.next_event = 0;
    }

    /// MSP may be a new low (the run loop's watch was crossed), or the stack in use may have
    /// changed: tell the watch, and act on a first overflow.
    #[cold]
    #[inline(never)]
    pub fn stack_moved(&mut self, pc: u32) {
        let (msp, main) = (self.msp(), !self.uses_psp());
        if !self.0.sys.stack.note(msp, main, pc) {
            return;
        }
        match self.stack.check {
            StackCheck::Fault => {
                self.stop = Some(Stop::StackOverflow { pc, msp });
                self.next_event = 0;
            }
            _ => {
                let who = self.processor_name.as_ref().map(|n| format!("{n}: ")).unwrap_or_default();
                crate::console::diagnostic(format_args!(
                    "cairn-sim: warning: {who}{}",
                    overflow_message(self, pc, msp)
                ));
            }
        }
    }
}

/// `main stack overflow: MSP 0x… below __stack_limit 0x… at pc 0x… (symbol+offset)`.
pub fn overflow_message(m: &Machine, pc: u32, msp: u32) -> String {
    format!(
        "main stack overflow: MSP 0x{msp:08x} below {} 0x{:08x} at pc 0x{pc:08x} ({})",
        m.stack.limit_name,
        m.stack.limit,
        m.symbols.describe(pc)
    )
}

/// The stats' `stack` object, when the main stack is watched.
pub fn stack_json(m: &Machine) -> Option<serde_json::Value> {
    let w = &m.stack;
    w.watching.then(|| {
        serde_json::json!({
            "limit": w.limit,
            "top": w.top,
            "low_water": w.low_water,
            "peak_bytes": w.peak_bytes(),
            "overflowed": w.overflowed(),
            "check": w.check.name(),
        })
    })
}
