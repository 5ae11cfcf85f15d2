//! How the GDB target runs the machine it debugs. A lone machine runs by itself; a
//! processor of a device runs only as part of the device, which advances every processor
//! and the bus in one global order. The target (target.rs) is written once over this trait.

use crate::machine::{Machine, Stop};
use std::ops::{Deref, DerefMut};

/// What a `run_to` came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ran {
    /// The debugged machine's instruction count reached the target, nothing stopped it.
    Done,
    /// It stopped short: a breakpoint, an exit, or a stop it cannot run past.
    Stopped(Stop),
    /// Not there yet (the rest of a device ran, the debugged processor maybe not at all):
    /// the caller polls the debugger's connection and asks again.
    Pending,
}

/// Runs the debugged machine, which it derefs to (registers, memory, breakpoints).
pub trait Runner: DerefMut<Target = Machine> {
    /// Run until the debugged machine's instruction count reaches `until`, or it stops.
    fn run_to(&mut self, until: u64) -> Ran;

    /// The debugger left (breakpoints are gone): run on without it to the end. `ended` is
    /// how the session saw the run end, if it did (an exit or a stop it cannot run past).
    fn run_on(&mut self, ended: Option<Stop>) -> Stop;

    /// What to tell the user about a stop the machine cannot run past, when the debugged
    /// machine alone does not explain it.
    fn explain(&self, _stop: &Stop) -> Option<String> {
        None
    }

    /// Whether the debugger may reset the machine (`monitor reset`, extended `run`).
    fn can_reset(&self) -> bool {
        true
    }
}

/// A lone machine, bounded by `--max-instructions`.
pub struct Single<'m> {
    m: &'m mut Machine,
    /// `m.instructions` value at which `--max-instructions` runs out.
    budget_end: u64,
}

impl<'m> Single<'m> {
    pub fn new(m: &'m mut Machine, max_instructions: Option<u64>) -> Single<'m> {
        let budget_end = max_instructions.map_or(u64::MAX, |n| m.instructions.saturating_add(n));
        Single { m, budget_end }
    }
}

impl Deref for Single<'_> {
    type Target = Machine;
    fn deref(&self) -> &Machine {
        self.m
    }
}

impl DerefMut for Single<'_> {
    fn deref_mut(&mut self) -> &mut Machine {
        self.m
    }
}

impl Runner for Single<'_> {
    fn run_to(&mut self, until: u64) -> Ran {
        let remaining = self.budget_end.saturating_sub(self.m.instructions);
        if remaining == 0 {
            return Ran::Stopped(Stop::Limit);
        }
        let n = until.saturating_sub(self.m.instructions);
        match self.m.run(n.min(remaining)) {
            Stop::Limit if self.m.cycles < self.m.cycle_limit && self.m.instructions < self.budget_end => Ran::Done,
            s => Ran::Stopped(s),
        }
    }

    fn run_on(&mut self, ended: Option<Stop>) -> Stop {
        if let Some(s) = ended {
            return s;
        }
        let remaining = self.budget_end.saturating_sub(self.m.instructions);
        if remaining == 0 {
            return Stop::Limit;
        }
        self.m.run(remaining)
    }
}
