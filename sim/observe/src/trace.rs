//! `--trace`: a Chrome/Perfetto JSON trace of what the core did — exception handlers as
//! slices (and interrupt entries as instants), sleep periods as slices on a power track,
//! kernel task handlers as slices on one track per task (from the trace port's START/END
//! words), another RTOS's tasks (`--rtos`) as slices on one track per task, named after it, power state and supply current as counter tracks, faults as instants.
//! Timestamps are derived from the exact cycle counter.
//!
//! The trace is written as the run goes (memory stays bounded however long the run): each
//! event is rendered to the output when it happens, a task's track is named when its first
//! slice starts, and `finish` closes what is still open and the JSON itself.

use cairn_io::out_file::OutFile;
use cairn_isa::armv6m::FaultKind;
use std::collections::BTreeSet;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Where the trace goes: a file for the CLI, memory for tests.
enum Sink {
    File(BufWriter<OutFile>),
    Memory(Vec<u8>),
}

pub struct TraceLog {
    clock_hz: u64,
    /// The process the events belong to: 1 alone, one per processor in a device trace.
    pid: u32,
    /// A device's processor: its events only, which the device trace puts between its own
    /// header and end (device/outputs.rs).
    part: bool,
    /// Powered off since this cycle (devices only).
    off_since: Option<u64>,
    out: Sink,
    /// The first write error; nothing more is written after it.
    error: Option<std::io::Error>,
    /// Whether the first events (the initial counters) have been written.
    started: bool,
    /// Exception handlers entered and not yet returned from, innermost last.
    open: Vec<u32>,
    /// Tasks whose handler slice is open, and tasks whose track has been named.
    open_tasks: BTreeSet<u32>,
    named_tasks: BTreeSet<u32>,
    /// The RTOS task whose slice is open (`--rtos`): its track and name.
    open_rtos: Option<(u32, String)>,
    /// Supply current in uA when awake, asleep, deeply asleep and waking (energy profile
    /// active): the current counter track is drawn only then.
    currents: Option<[f64; 4]>,
}

/// Trace-port event codes (kernel/include/cairn/trace.h) drawn as task slices.
const EV_START: u32 = 0x02;
const EV_END: u32 = 0x03;
/// Task tracks are tid TASK_TID + task ID.
const TASK_TID: u32 = 16;

fn exception_name(n: u32) -> String {
    match n {
        2 => "NMI".into(),
        3 => "HardFault".into(),
        11 => "SVCall".into(),
        14 => "PendSV".into(),
        15 => "SysTick".into(),
        n if n >= 16 => format!("IRQ{}", n - 16),
        n => format!("exception {n}"),
    }
}

const HEADER: &str = concat!(
    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n",
    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"cpu0\"}},\n",
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"exceptions\"}},\n",
    "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"power\"}},\n",
    "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"kernel events\"}},\n",
    "{\"ph\":\"M\",\"pid\":1,\"tid\":4,\"name\":\"thread_name\",\"args\":{\"name\":\"interrupts\"}}",
);

impl TraceLog {
    /// A trace written to `path`, created now (before the run) under a temporary name and
    /// put in place by `finish` (out_file.rs).
    pub fn create(path: &Path, clock_hz: u64) -> Result<TraceLog, String> {
        let f = OutFile::create(path)?;
        Ok(TraceLog::with_sink(Sink::File(BufWriter::new(f)), clock_hz))
    }

    /// A trace kept in memory (`finish` returns it).
    pub fn in_memory(clock_hz: u64) -> TraceLog {
        TraceLog::with_sink(Sink::Memory(Vec::new()), clock_hz)
    }

    /// The events of processor `index` of a device, as process `index + 1` named `name`,
    /// kept in memory: `finish` returns them without the JSON's start and end, for the
    /// device trace to join.
    pub fn device_part(index: usize, name: &str, clock_hz: u64) -> TraceLog {
        let mut t = TraceLog::new(Sink::Memory(Vec::new()), clock_hz, index as u32 + 1, true);
        let pid = t.pid;
        let name = serde_json::to_string(name).unwrap_or_default();
        t.emit(format_args!(
            "{{\"ph\":\"M\",\"pid\":{pid},\"name\":\"process_name\",\"args\":{{\"name\":{name}}}}},\n\
             {{\"ph\":\"M\",\"pid\":{pid},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{index}}}}}"
        ));
        for (tid, track) in [(1, "exceptions"), (2, "power"), (3, "kernel events"), (4, "interrupts")] {
            t.emit(format_args!(
                ",\n{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":\"{track}\"}}}}"
            ));
        }
        t
    }

    fn with_sink(out: Sink, clock_hz: u64) -> TraceLog {
        let mut t = TraceLog::new(out, clock_hz, 1, false);
        t.emit(format_args!("{HEADER}"));
        t
    }

    fn new(out: Sink, clock_hz: u64, pid: u32, part: bool) -> TraceLog {
        TraceLog {
            clock_hz,
            pid,
            part,
            off_since: None,
            out,
            error: None,
            started: false,
            open: Vec::new(),
            open_tasks: BTreeSet::new(),
            named_tasks: BTreeSet::new(),
            open_rtos: None,
            currents: None,
        }
    }

    /// Draw a supply-current counter track with these currents (uA): awake, sleep, deep
    /// sleep, wake-up. Call before the first event.
    pub fn set_currents(&mut self, currents: [f64; 4]) {
        self.currents = Some(currents);
    }

    /// Whether writing the trace failed (the run should end; `finish` says why).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    pub fn exception_entry(&mut self, at: u64, n: u32) {
        let pid = self.pid;
        self.begin();
        self.open.push(n);
        let (ts, name) = (self.us(at), exception_name(n));
        self.emit(format_args!(
            ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":4,\"ts\":{ts},\"name\":\"{name}\"}},\n\
             {{\"ph\":\"B\",\"pid\":{pid},\"tid\":1,\"ts\":{ts},\"name\":\"{name}\"}}"
        ));
    }

    pub fn exception_exit(&mut self, at: u64, n: u32) {
        let pid = self.pid;
        self.begin();
        self.open.pop();
        let (ts, name) = (self.us(at), exception_name(n));
        self.emit(format_args!(",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":1,\"ts\":{ts},\"name\":\"{name}\"}}"));
    }

    pub fn sleep(&mut self, from: u64, to: u64, deep: bool) {
        let pid = self.pid;
        self.begin();
        let (ts, dur) = (self.us(from), self.us(to - from));
        let name = if deep { "deep sleep" } else { "sleep" };
        self.emit(format_args!(
            ",\n{{\"ph\":\"X\",\"pid\":{pid},\"tid\":2,\"ts\":{ts},\"dur\":{dur},\"name\":\"{name}\"}}"
        ));
        self.counters(from, 1 + deep as usize);
        self.counters(to, 0);
    }

    /// The core is delayed by an energy profile's wake-up latency.
    pub fn wakeup(&mut self, from: u64, to: u64) {
        let pid = self.pid;
        self.begin();
        let (ts, dur) = (self.us(from), self.us(to - from));
        self.emit(format_args!(
            ",\n{{\"ph\":\"X\",\"pid\":{pid},\"tid\":2,\"ts\":{ts},\"dur\":{dur},\"name\":\"wake-up\"}}"
        ));
        self.counters(from, 3);
        self.counters(to, 0);
    }

    /// A word from the kernel's trace port (event << 24 | a << 16 | b).
    pub fn kernel_event(&mut self, at: u64, word: u32) {
        let pid = self.pid;
        self.begin();
        let ts = self.us(at);
        let task = (word >> 16) & 0xff;
        if word >> 24 == EV_START && self.open_tasks.insert(task) {
            if self.named_tasks.insert(task) {
                self.emit(format_args!(
                    ",\n{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"task {task}\"}}}}",
                    TASK_TID + task
                ));
            }
            self.emit(format_args!(
                ",\n{{\"ph\":\"B\",\"pid\":{pid},\"tid\":{},\"ts\":{ts},\"name\":\"task {task}\",\"args\":{{\"port\":{}}}}}",
                TASK_TID + task,
                word & 0xffff
            ));
        } else if word >> 24 == EV_END && self.open_tasks.remove(&task) {
            self.emit(format_args!(
                ",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":{},\"ts\":{ts},\"name\":\"task {task}\"}}",
                TASK_TID + task
            ));
        }
        self.emit(format_args!(
            ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":3,\"ts\":{ts},\"name\":\"event {}\",\"args\":{{\"a\":{},\"b\":{}}}}}",
            word >> 24,
            task,
            word & 0xffff
        ));
    }

    /// Another RTOS's current task changed (`--rtos`) at cycle `at`: the slice of the task
    /// that was current ends, the new one's begins on its own track, named after the task.
    /// `None` is no task (a NULL pointer): no slice.
    /// The followed RTOS switched to task `to` = (key, name, TCB address); None: no task runs.
    pub fn rtos_switch(&mut self, at: u64, to: Option<(u16, &str, u32)>) {
        let pid = self.pid;
        self.begin();
        let ts = self.us(at);
        if let Some((tid, name)) = self.open_rtos.take() {
            self.emit(format_args!(",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":{tid},\"ts\":{ts},\"name\":{name}}}"));
        }
        let Some((key, task_name, tcb)) = to else { return };
        let tid = TASK_TID + key as u32;
        let name = serde_json::to_string(task_name).unwrap_or_default();
        // RTOS keys are above Cairn OS's task IDs, so one set of named tracks serves both.
        if self.named_tasks.insert(key as u32) {
            self.emit(format_args!(
                ",\n{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":{name}}}}}"
            ));
        }
        self.emit(format_args!(
            ",\n{{\"ph\":\"B\",\"pid\":{pid},\"tid\":{tid},\"ts\":{ts},\"name\":{name},\"args\":{{\"tcb\":\"0x{:08x}\"}}}}",
            tcb
        ));
        self.open_rtos = Some((tid, name));
    }

    pub fn fault(&mut self, at: u64, kind: FaultKind, pc: u32) {
        let pid = self.pid;
        self.begin();
        let ts = self.us(at);
        let what = serde_json::to_string(&format!("{kind} at 0x{pc:08x}")).unwrap_or_default();
        self.emit(format_args!(
            ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":1,\"ts\":{ts},\"name\":\"fault\",\"args\":{{\"what\":{what}}}}}"
        ));
    }

    /// Close the slices still open at cycle `end` and the JSON. Returns the trace for an
    /// in-memory one (empty for a file), or the first write error as the CLI's one-line
    /// message naming `what` (the file).
    pub fn finish(mut self, end: u64, what: &str) -> Result<Vec<u8>, String> {
        self.begin();
        self.close_open(end);
        if let Some(from) = self.off_since.take() {
            self.off_slice(from, end);
        }
        if !self.part {
            self.emit(format_args!("\n]}}\n"));
        }
        match (self.error, self.out) {
            (Some(e), _) => Err(format!("cannot write {what}: {e}")),
            (None, Sink::Memory(v)) => Ok(v),
            (None, Sink::File(w)) => {
                let f = w.into_inner().map_err(|e| format!("cannot write {what}: {}", e.error()))?;
                f.commit().map(|_| Vec::new())
            }
        }
    }

    /// A device's processor powered off at cycle `at`: what ran stops there (its open
    /// slices end), and it draws no current until `power_on`.
    pub fn power_off(&mut self, at: u64) {
        if !self.started {
            // Off from the start: it never drew the awake current.
            self.started = true;
            let currents = self.currents.take();
            self.counters(at, 0);
            self.currents = currents;
        }
        self.close_open(at);
        self.off_since = Some(at);
        if self.currents.is_some() {
            let (pid, ts) = (self.pid, self.us(at));
            self.emit(format_args!(
                ",\n{{\"ph\":\"C\",\"pid\":{pid},\"ts\":{ts},\"name\":\"supply current (uA)\",\"args\":{{\"uA\":0}}}}"
            ));
        }
    }

    /// Powered on again at cycle `at` (a reset: it starts awake).
    pub fn power_on(&mut self, at: u64) {
        self.begin();
        if let Some(from) = self.off_since.take() {
            self.off_slice(from, at);
        }
        self.counters(at, 0);
    }

    /// Reset at cycle `at` without a power cycle: the handlers and tasks that were running
    /// are gone.
    pub fn reset(&mut self, at: u64) {
        self.begin();
        self.close_open(at);
    }

    fn off_slice(&mut self, from: u64, to: u64) {
        let (pid, ts, dur) = (self.pid, self.us(from), self.us(to - from));
        self.emit(format_args!(
            ",\n{{\"ph\":\"X\",\"pid\":{pid},\"tid\":2,\"ts\":{ts},\"dur\":{dur},\"name\":\"off\"}}"
        ));
    }

    /// End the slices still open at cycle `end`.
    fn close_open(&mut self, end: u64) {
        let pid = self.pid;
        let ts = self.us(end);
        for task in std::mem::take(&mut self.open_tasks) {
            self.emit(format_args!(
                ",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":{},\"ts\":{ts},\"name\":\"task {task}\"}}",
                TASK_TID + task
            ));
        }
        if let Some((tid, name)) = self.open_rtos.take() {
            self.emit(format_args!(",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":{tid},\"ts\":{ts},\"name\":{name}}}"));
        }
        while let Some(n) = self.open.pop() {
            let name = exception_name(n);
            self.emit(format_args!(",\n{{\"ph\":\"E\",\"pid\":{pid},\"tid\":1,\"ts\":{ts},\"name\":\"{name}\"}}"));
        }
    }

    /// The power-state (and current) counters at cycle 0, before the first event.
    fn begin(&mut self) {
        if !self.started {
            self.started = true;
            self.counters(0, 0);
        }
    }

    fn emit(&mut self, args: std::fmt::Arguments) {
        if self.error.is_some() {
            return;
        }
        let r = match &mut self.out {
            Sink::File(w) => w.write_fmt(args),
            Sink::Memory(v) => v.write_fmt(args),
        };
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    fn us(&self, cycles: u64) -> String {
        us_of_ps(cycles as u128 * 1_000_000_000_000u128 / self.clock_hz as u128)
    }

    /// Counter events at `at`: power state (0 awake, 1 sleep, 2 deep sleep, 3 waking) and,
    /// with an energy profile, the supply current.
    fn counters(&mut self, at: u64, state: usize) {
        let pid = self.pid;
        let ts = self.us(at);
        self.emit(format_args!(
            ",\n{{\"ph\":\"C\",\"pid\":{pid},\"ts\":{ts},\"name\":\"power state\",\"args\":{{\"state\":{state}}}}}"
        ));
        if let Some(c) = self.currents {
            let ua = c[state.min(3)];
            self.emit(format_args!(
                ",\n{{\"ph\":\"C\",\"pid\":{pid},\"ts\":{ts},\"name\":\"supply current (uA)\",\"args\":{{\"uA\":{ua}}}}}"
            ));
        }
    }
}

/// A time stamp: microseconds with picosecond resolution, printed exactly (no float
/// rounding).
pub fn us_of_ps(ps: u128) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}
