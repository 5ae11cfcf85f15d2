//! A debugger on one processor of a device (`run --device D.toml --gdb PORT
//! --gdb-processor NAME`): the GDB target runs that processor through `Device::drive`, so
//! every run or step of it advances the whole device in its usual global order, and the
//! other processors and the bus do what they would do with no debugger.

use super::runner::{Ran, Runner};
use crate::console::TimedLine;
use crate::device::cosim::{Debug, Device, Ending, Halt, State};
use crate::machine::{FaultKind, Machine, Stop};
use crate::time::PS_PER_S;
use std::ops::{Deref, DerefMut};

/// New windows run between two polls of the debugger's connection: a processor asleep
/// for long (waiting for a frame) must not make Ctrl-C wait for it.
const WINDOWS_PER_POLL: u64 = 256;

pub struct DeviceRunner<'a> {
    d: &'a mut Device,
    processor: usize,
    emit: &'a mut dyn FnMut(usize, &TimedLine),
}

impl<'a> DeviceRunner<'a> {
    pub fn new(d: &'a mut Device, processor: usize, emit: &'a mut dyn FnMut(usize, &TimedLine)) -> DeviceRunner<'a> {
        DeviceRunner { d, processor, emit }
    }

    /// What the device's end is for the debugged processor.
    fn stop_of(&self, ending: &Ending) -> Stop {
        let p = &self.d.procs[self.processor];
        match ending {
            Ending::Limit => Stop::Limit,
            Ending::Lockup(i) => match &self.d.procs[*i].end {
                Some(s @ (Stop::Lockup { .. } | Stop::StackOverflow { .. })) => s.clone(),
                // A BKPT with no debugger faults before it gets here; kept total anyway.
                _ => Stop::Lockup { kind: FaultKind::Breakpoint, pc: self.d.procs[*i].m.pc, ipsr: 0 },
            },
            Ending::Quiescent => match (p.exit, p.state) {
                (Some(code), _) => Stop::Exit(code),
                (None, State::Off) => Stop::PowerOff,
                (None, _) => Stop::SleepForever,
            },
        }
    }
}

impl Deref for DeviceRunner<'_> {
    type Target = Machine;
    fn deref(&self) -> &Machine {
        &self.d.procs[self.processor].m
    }
}

impl DerefMut for DeviceRunner<'_> {
    fn deref_mut(&mut self) -> &mut Machine {
        &mut self.d.procs[self.processor].m
    }
}

impl Runner for DeviceRunner<'_> {
    fn run_to(&mut self, until: u64) -> Ran {
        let debug = Debug { processor: self.processor, until };
        match self.d.drive(self.emit, Some(debug), WINDOWS_PER_POLL) {
            Halt::Budget => Ran::Done,
            Halt::Pending => Ran::Pending,
            Halt::Debug(s) => Ran::Stopped(s),
            Halt::Ended(e) => Ran::Stopped(self.stop_of(&e)),
        }
    }

    fn run_on(&mut self, ended: Option<Stop>) -> Stop {
        // The debugged processor's end is not the device's: the others run on.
        loop {
            if let Halt::Ended(e) = self.d.drive(self.emit, None, u64::MAX) {
                return ended.unwrap_or_else(|| self.stop_of(&e));
            }
        }
    }

    fn explain(&self, stop: &Stop) -> Option<String> {
        let name = &self.d.procs[self.processor].name;
        let secs = self.d.now as f64 / PS_PER_S as f64;
        Some(match stop {
            Stop::Limit => format!("the device reached its limit at {secs:.6} s of simulated time"),
            Stop::Lockup { kind, pc, .. } => {
                let i = self.d.procs.iter().position(|p| p.end.as_ref() == Some(stop)).unwrap_or(self.processor);
                let p = &self.d.procs[i];
                format!(
                    "{}: core locked up: {kind} at pc 0x{pc:08x} ({}); the device ended",
                    p.name,
                    p.m.symbols.describe(*pc)
                )
            }
            Stop::PowerOff => format!("the device ended at {secs:.6} s with {name} powered off"),
            Stop::StackOverflow { pc, msp } => {
                let i = self.d.procs.iter().position(|p| p.end.as_ref() == Some(stop)).unwrap_or(self.processor);
                let p = &self.d.procs[i];
                let what = crate::stack_guard::overflow_message(&p.m, *pc, *msp);
                format!("{}: {what}; the device ended", p.name)
            }
            _ => format!("the device ended at {secs:.6} s with {name} asleep and nothing that could wake it"),
        })
    }

    fn can_reset(&self) -> bool {
        false
    }
}
