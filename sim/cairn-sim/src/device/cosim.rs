//! The device scheduler: N processors advanced in one global order of simulated time
//! (picoseconds), with the bus between them. Conservative and exact:
//!
//! - Everything one processor does to another goes through the bus, and whatever the bus
//!   decides for a slot arrives at least the bus's lookahead (header time + controller
//!   latency) after the slot starts. A frame can only start in its sender's slot, at or
//!   after the sender could have queued it.
//! - So from the global time `t`, no processor can be affected before
//!   `horizon = min over possible senders (their first slot ≥ when they could send) + lookahead`.
//!   Every processor runs to the horizon on its own; then the bus decides the slots that
//!   start before it, from the requests stamped with their exact times; what it decides
//!   arrives at or after the horizon and is delivered at its exact cycle.
//! - A processor sees a delivery at its first instruction boundary at or after the arrival,
//!   as it sees its own devices' events, so where the horizons fall changes nothing: the
//!   result is the same for any `quantum` (a cap on the window, for testing that claim).
//! - A processor asleep with nothing due before the horizon is not run at all, and a
//!   powered-off one neither: they cost no host time.

use super::bus::{Bus, Output};
use super::faults::{FaultRule, ModuleTrigger};
use crate::console::TimedLine;
use crate::machine::{Machine, Stop};
use crate::periph::bus_ctrl::Delivery;
use crate::time::{cycle_to_ps, ps_to_cycle};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Running,
    Asleep,
    Off,
    /// Exited (its status), or stopped for good.
    Done,
}

pub struct Processor {
    pub name: String,
    pub m: Machine,
    pub state: State,
    pub exit: Option<i32>,
    /// How the processor ended, when not by exiting: a lockup or a limit.
    pub end: Option<Stop>,
    /// A power-on from the bus, at this time (ps), while off.
    power_on_at: Option<u64>,
    /// Module fault actions at a time: (ps, rule index), sorted.
    timed_faults: Vec<(u64, usize)>,
    pub powered_on: u64,
    pub powered_off: u64,
    pub resets: u64,
    /// Periods powered off, in its cycles (from, to), for the trace and the waveform.
    pub off_periods: Vec<(u64, u64)>,
    off_since: Option<u64>,
}

impl Processor {
    /// A processor that starts off is off from cycle 0: give it its trace before.
    pub fn new(name: String, m: Machine, on: bool) -> Processor {
        let mut p = Processor {
            name,
            m,
            state: if on { State::Running } else { State::Off },
            exit: None,
            end: None,
            power_on_at: None,
            timed_faults: Vec::new(),
            powered_on: 0,
            powered_off: 0,
            resets: 0,
            off_periods: Vec::new(),
            off_since: None,
        };
        if !on {
            p.went_off();
        }
        p
    }

    /// It stopped at its current cycle, powered off.
    fn went_off(&mut self) {
        let c = self.m.cycles;
        self.off_since = Some(c);
        if let Some(t) = self.m.trace.as_mut() {
            t.power_off(c);
        }
        // Its exception lines mean nothing while it is off.
        if let Some(tl) = self.m.io.timeline.as_mut() {
            tl.note_exceptions(c, 0, 0);
        }
    }

    /// It powers off at its current cycle (by itself, a power frame or a fault).
    fn power_off(&mut self) {
        self.state = State::Off;
        self.powered_off += 1;
        self.went_off();
    }

    /// Off until cycle `c`: its clock moves on, counted as time off.
    fn off_until(&mut self, c: u64) {
        if self.m.cycles < c {
            self.m.off_cycles += c - self.m.cycles;
            self.m.cycles = c;
        }
    }

    /// It was reset at its current cycle: by a power-on (`on`) or by a fault.
    fn was_reset(&mut self, on: bool) {
        let c = self.m.cycles;
        if on {
            if let Some(from) = self.off_since.take() {
                self.off_periods.push((from, c));
            }
        }
        if let Some(t) = self.m.trace.as_mut() {
            if on {
                t.power_on(c);
            } else {
                t.reset(c);
            }
        }
        // The reset cleared them without the core noticing a change.
        let (pending, active) = (self.m.exc.pending, self.m.exc.active);
        if let Some(tl) = self.m.io.timeline.as_mut() {
            tl.note_exceptions(c, pending, active);
        }
    }

    /// The cycle its outputs end at, when the device ended at `end` ps: an exited
    /// processor's own end, an off one's the device's.
    pub fn end_cycle(&self, end: u64) -> u64 {
        match self.state {
            State::Off => self.cycle_at(end).max(self.m.cycles),
            _ => self.m.cycles,
        }
    }

    pub fn ps(&self, cycle: u64) -> u64 {
        cycle_to_ps(cycle, self.m.config.clock_hz)
    }

    /// The first cycle at or after `ps`.
    fn cycle_at(&self, ps: u64) -> u64 {
        ps_to_cycle(ps, self.m.config.clock_hz)
    }

    /// Let an asleep processor sleep on to cycle `c` (nothing is due before it).
    fn sleep_to(&mut self, c: u64) {
        if self.m.cycles >= c {
            return;
        }
        let saved = (self.m.cycle_limit, self.m.pause_cycle);
        self.m.cycle_limit = c;
        self.m.pause_cycle = u64::MAX;
        self.m.run(u64::MAX);
        (self.m.cycle_limit, self.m.pause_cycle) = saved;
        self.m.stop = None;
    }

    /// When an asleep processor wakes by itself (ps), if ever.
    fn wake_ps(&self) -> Option<u64> {
        let c = self.m.next_device_event().min(self.m.cycle_limit);
        (c != u64::MAX).then(|| self.ps(c))
    }

    /// The earliest time at which it could queue a frame or act, from `t`.
    fn ready_at(&self, t: u64) -> Option<u64> {
        let own = match self.state {
            State::Running => Some(t),
            State::Asleep => self.wake_ps().map(|w| w.max(t)),
            State::Off => self.power_on_at.map(|a| a.max(t)),
            State::Done => None,
        };
        let fault = self.timed_faults.first().map(|f| f.0.max(t));
        match (own, fault) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// One fault injected, for the stats and the trace.
#[derive(Clone, Debug)]
pub struct FaultEvent {
    pub at_ps: u64,
    pub rule: usize,
    pub action: &'static str,
    pub processor: usize,
}

pub struct Device {
    pub name: String,
    pub procs: Vec<Processor>,
    pub bus: Bus,
    pub rules: Vec<FaultRule>,
    pub faults: Vec<FaultEvent>,
    /// Global time reached (ps).
    pub now: u64,
    /// Cap on a window (ps): only for showing that the result does not depend on it.
    pub quantum: Option<u64>,
    pub limit_ps: Option<u64>,
    pub max_instructions: u64,
    /// Console lines in simulated-time order, handed to `emit` as they become final.
    pending_lines: Vec<(u64, usize, TimedLine)>,
    pub windows: u64,
    /// The window being run, when a debugger stopped the run inside it: its end and the
    /// processor to go on with (those before it have reached the end already).
    window: Option<(u64, usize)>,
    /// How the device ended, once it has: later calls of `drive` only report it.
    ended: Option<Ending>,
}

/// A debugger's hold on one processor: `drive` hands control back when that processor
/// stops for it, or once its instruction count reaches `until`.
#[derive(Clone, Copy, Debug)]
pub struct Debug {
    pub processor: usize,
    pub until: u64,
}

/// Why `drive` returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    Ended(Ending),
    /// The debugged processor hit a breakpoint (or a BKPT) or exited (`Stop::Exit`).
    Debug(Stop),
    /// The debugged processor's instruction count reached `Debug::until`.
    Budget,
    /// The window allowance ran out first; call again to go on.
    Pending,
}

/// How a window's run ended early.
enum Cut {
    Ending(Ending),
    /// Processor `.0` stopped for the debugger.
    Halt(usize, Halt),
}

/// Why the device run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every processor exited, or is asleep or off with nothing that could wake it.
    Quiescent,
    /// `--max-time` or `--max-instructions`.
    Limit,
    /// A processor locked up (its index).
    Lockup(usize),
}

impl Device {
    pub fn new(name: String, procs: Vec<Processor>, bus: Bus, rules: Vec<FaultRule>) -> Device {
        let mut d = Device {
            name,
            procs,
            bus,
            rules,
            faults: Vec::new(),
            now: 0,
            quantum: None,
            limit_ps: None,
            max_instructions: u64::MAX,
            pending_lines: Vec::new(),
            windows: 0,
            window: None,
            ended: None,
        };
        for (i, r) in d.rules.iter().enumerate() {
            match *r {
                FaultRule::PowerOff(p, ModuleTrigger::At(ps)) | FaultRule::Reset(p, ModuleTrigger::At(ps)) => {
                    d.procs[p].timed_faults.push((ps, i))
                }
                FaultRule::PowerOff(p, ModuleTrigger::TraceWord { word, mask, count })
                | FaultRule::Reset(p, ModuleTrigger::TraceWord { word, mask, count }) => {
                    d.procs[p].m.trace_triggers.push((word & mask, mask, count, i))
                }
                _ => {}
            }
        }
        for p in &mut d.procs {
            p.timed_faults.sort();
        }
        d
    }

    /// Run until the device ends; `emit` gets every console line, in simulated-time order.
    pub fn run(&mut self, emit: &mut dyn FnMut(usize, &TimedLine)) -> Ending {
        loop {
            if let Halt::Ended(e) = self.drive(emit, None, u64::MAX) {
                return e;
            }
        }
    }

    /// Run windows until the device ends, at most `max_windows` new ones, or (`debug`) until
    /// the debugged processor stops for its debugger or has run its instructions. A stop
    /// inside a window keeps the window: the next call goes on from the stopped processor,
    /// so the global order, and everything the device outputs, is that of an uncut run.
    pub fn drive(&mut self, emit: &mut dyn FnMut(usize, &TimedLine), debug: Option<Debug>, max_windows: u64) -> Halt {
        if let Some(e) = &self.ended {
            return Halt::Ended(e.clone());
        }
        let lookahead = self.bus.params.lookahead();
        let mut started = 0u64;
        loop {
            let (horizon, from) = match self.window.take() {
                Some(w) => w,
                None => {
                    if started >= max_windows {
                        return Halt::Pending;
                    }
                    let horizon = self.horizon(lookahead);
                    if horizon == u64::MAX {
                        return self.finish(Ending::Quiescent, emit);
                    }
                    self.windows += 1;
                    started += 1;
                    (horizon, 0)
                }
            };
            match self.run_window(horizon, from, debug) {
                Ok(()) => {}
                Err(Cut::Halt(i, h)) => {
                    self.window = Some((horizon, i));
                    return h;
                }
                Err(Cut::Ending(e)) => {
                    self.now = horizon;
                    return self.finish(e, emit);
                }
            }
            let arrivals = self.bus.advance(horizon);
            for (at, p, out) in arrivals {
                debug_assert!(at >= horizon, "a bus arrival inside the window just run");
                self.deliver(at, p, out);
            }
            self.now = horizon;
            self.flush_lines(horizon, emit);
            if self.limit_ps.is_some_and(|l| horizon >= l) {
                return self.finish(Ending::Limit, emit);
            }
        }
    }

    fn finish(&mut self, ending: Ending, emit: &mut dyn FnMut(usize, &TimedLine)) -> Halt {
        // The device's time is where its last event happened (or the limit), not where
        // the scheduler's last window happened to end.
        if ending == Ending::Limit {
            let limit = self.limit_ps.unwrap_or(self.now);
            for p in &mut self.procs {
                if p.state == State::Asleep {
                    let c = p.cycle_at(limit);
                    p.sleep_to(c);
                }
            }
            self.now = limit;
        } else {
            let last_frame = self.bus.log.last().map_or(0, |r| r.arrival_ps);
            self.now = self.procs.iter().map(|p| p.ps(p.m.cycles)).max().unwrap_or(0).max(last_frame);
            // Processors asleep or off at the end are so until then: their statistics cover
            // the device's whole time.
            let end = self.now;
            for p in &mut self.procs {
                let c = p.cycle_at(end);
                match p.state {
                    State::Asleep => p.sleep_to(c),
                    State::Off => p.off_until(c),
                    _ => {}
                }
            }
        }
        let end = self.now;
        for p in &mut self.procs {
            if let Some(t) = p.m.console.timed() {
                t.finish();
            }
            if let Some(from) = p.off_since.take() {
                let to = p.end_cycle(end);
                p.off_periods.push((from, to));
            }
        }
        self.bus.settle();
        self.flush_lines(u64::MAX, emit);
        self.ended = Some(ending.clone());
        Halt::Ended(ending)
    }

    /// The end of the next window: see the module's comment.
    fn horizon(&self, lookahead: u64) -> u64 {
        let t = self.now;
        let mut h = u64::MAX;
        // Frames queued count only while something can still move them: a processor that
        // can act, or a frame that can go now. Otherwise (say every processor exited and a
        // frame waits for room in an exited one's FIFO) nothing will ever happen again.
        let alive = self.procs.iter().any(|p| p.ready_at(t).is_some());
        let queued_count = alive || self.bus.can_progress();
        for (i, p) in self.procs.iter().enumerate() {
            let ready = if queued_count && self.bus.has_queued(i) { Some(t) } else { p.ready_at(t) };
            if let Some(r) = ready {
                h = h.min(match self.bus.params.next_slot_of(i, r) {
                    Some(s) => s.saturating_add(lookahead),
                    // It owns no slot, so sends nothing; it still runs, a round at a time.
                    None => r.saturating_add(self.bus.params.slot_ps * self.bus.params.order.len() as u64),
                });
            }
        }
        if h == u64::MAX {
            return h;
        }
        if let Some(q) = self.quantum {
            h = h.min(t + q);
        }
        if let Some(l) = self.limit_ps {
            h = h.min(l.max(t + 1));
        }
        h.max(t + 1)
    }

    /// Run every processor that has something to do to `horizon`, from processor `from` on.
    fn run_window(&mut self, horizon: u64, from: usize, debug: Option<Debug>) -> Result<(), Cut> {
        for i in from..self.procs.len() {
            let debugged = debug.filter(|d| d.processor == i);
            loop {
                let p = &mut self.procs[i];
                if p.state == State::Off {
                    match p.power_on_at {
                        Some(a) if a < horizon => self.power_on(i, a),
                        _ => {}
                    }
                }
                let p = &mut self.procs[i];
                // A fault due inside the window cuts the processor's run at its time.
                let fault = p.timed_faults.first().copied().filter(|f| f.0 < horizon);
                let until = fault.map_or(horizon, |f| f.0);
                let runs = match p.state {
                    State::Running => true,
                    State::Asleep => p.wake_ps().is_some_and(|w| w < until),
                    _ => false,
                };
                // Set when the debugged processor stops for its debugger. The rest of this
                // pass still happens (its requests, faults), so that going on later from the
                // top of the loop is the same as not having stopped.
                let mut halt = None;
                if runs {
                    p.m.pause_cycle = p.cycle_at(until);
                    let mut budget = self.max_instructions.saturating_sub(p.m.instructions);
                    if let Some(d) = debugged {
                        let left = d.until.saturating_sub(p.m.instructions);
                        if left == 0 {
                            return Err(Cut::Halt(i, Halt::Budget));
                        }
                        budget = budget.min(left);
                    }
                    let stop = p.m.run(budget);
                    match (debugged, stop) {
                        (Some(_), Stop::Breakpoint) => halt = Some(Halt::Debug(Stop::Breakpoint)),
                        (Some(d), Stop::Limit)
                            if p.m.instructions >= d.until && p.m.instructions < self.max_instructions =>
                        {
                            halt = Some(Halt::Budget)
                        }
                        (d, stop) => {
                            if let (Some(_), Stop::Exit(code)) = (d, &stop) {
                                halt = Some(Halt::Debug(Stop::Exit(*code)));
                            }
                            if let Some(e) = self.stopped(i, stop) {
                                return Err(Cut::Ending(e));
                            }
                        }
                    }
                }
                self.take_requests(i);
                let p = &mut self.procs[i];
                let again = if let Some(rule) = p.m.triggered.pop() {
                    let at = p.ps(p.m.cycles);
                    self.module_fault(i, rule, at);
                    true
                } else {
                    match fault {
                        Some((at, rule)) if p.state != State::Running || p.m.cycles >= p.cycle_at(at) => {
                            self.procs[i].timed_faults.remove(0);
                            self.module_fault(i, rule, at);
                            true
                        }
                        _ => p.state == State::Running && p.m.cycles < p.cycle_at(until),
                    }
                };
                if let Some(h) = halt {
                    return Err(Cut::Halt(i, h));
                }
                if !again {
                    break;
                }
            }
        }
        Ok(())
    }

    /// What a processor's stop means for the device.
    fn stopped(&mut self, i: usize, stop: Stop) -> Option<Ending> {
        let p = &mut self.procs[i];
        match stop {
            Stop::Pause => {
                p.state = if p.m.sleeping { State::Asleep } else { State::Running };
                None
            }
            Stop::Exit(code) => {
                p.exit = Some(code);
                p.state = State::Done;
                None
            }
            Stop::PowerOff => {
                p.power_off();
                None
            }
            Stop::Limit => {
                p.end = Some(Stop::Limit);
                Some(Ending::Limit)
            }
            Stop::SleepForever => {
                // Only with a time limit set: asleep to its end.
                p.state = State::Asleep;
                None
            }
            other @ (Stop::Lockup { .. } | Stop::StackOverflow { .. } | Stop::Breakpoint) => {
                p.end = Some(other);
                p.state = State::Done;
                Some(Ending::Lockup(i))
            }
        }
    }

    /// Move the processor's bus requests, stamped with their times, to the bus.
    fn take_requests(&mut self, i: usize) {
        let p = &mut self.procs[i];
        if p.m.bus_ctrl.outbox.is_empty() {
            return;
        }
        let reqs = std::mem::take(&mut p.m.bus_ctrl.outbox);
        for (cycle, r) in reqs {
            let at = self.procs[i].ps(cycle);
            self.bus.request(at, i, r);
        }
    }

    fn deliver(&mut self, at: u64, i: usize, out: Output) {
        let p = &mut self.procs[i];
        let cycle = p.cycle_at(at);
        match out {
            Output::Frame(f) => p.m.bus_ctrl.deliver(cycle, Delivery::Frame(f)),
            Output::TxDone => p.m.bus_ctrl.deliver(cycle, Delivery::TxDone),
            Output::PowerOn => {
                if p.state == State::Off && p.power_on_at.is_none() {
                    p.power_on_at = Some(at);
                }
            }
            Output::PowerOff => {
                if matches!(p.state, State::Running | State::Asleep) {
                    p.timed_faults.push((at, usize::MAX));
                    p.timed_faults.sort();
                }
            }
        }
    }

    /// Power processor `i` on at `at`: a reset, after the time off.
    fn power_on(&mut self, i: usize, at: u64) {
        let p = &mut self.procs[i];
        let c = p.cycle_at(at);
        p.off_until(c);
        p.m.reset();
        p.state = State::Running;
        p.power_on_at = None;
        p.powered_on += 1;
        p.was_reset(true);
    }

    /// Apply a module fault (or a power-off frame, rule `usize::MAX`) at `at`.
    fn module_fault(&mut self, i: usize, rule: usize, at: u64) {
        let reset = matches!(self.rules.get(rule), Some(FaultRule::Reset(..)));
        let action = self.rules.get(rule).map_or("power_off_frame", |r| r.name());
        if rule != usize::MAX {
            self.faults.push(FaultEvent { at_ps: at, rule, action, processor: i });
        }
        let p = &mut self.procs[i];
        if matches!(p.state, State::Done | State::Off) {
            return;
        }
        // An asleep processor sleeps up to the fault's time first.
        if p.state == State::Asleep {
            let c = p.cycle_at(at);
            p.sleep_to(c);
        }
        if reset {
            p.m.reset();
            p.state = State::Running;
            p.resets += 1;
            p.was_reset(false);
        } else {
            p.power_off();
            let t = p.ps(p.m.cycles);
            self.bus.note_power(t, i, false);
        }
    }

    fn flush_lines(&mut self, before: u64, emit: &mut dyn FnMut(usize, &TimedLine)) {
        for (i, p) in self.procs.iter_mut().enumerate() {
            let clock = p.m.config.clock_hz;
            if let Some(t) = p.m.console.timed() {
                for l in t.lines.drain(..) {
                    self.pending_lines.push((cycle_to_ps(l.cycle, clock), i, l));
                }
            }
        }
        self.pending_lines.sort_by_key(|(at, i, _)| (*at, *i));
        let n = self.pending_lines.partition_point(|(at, _, _)| *at < before);
        for (_, i, l) in self.pending_lines.drain(..n) {
            emit(i, &l);
        }
    }
}
