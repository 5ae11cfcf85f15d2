//! `--trace`: a Chrome/Perfetto JSON trace of what the core did — exception handlers as
//! slices (and interrupt entries as instants), sleep periods as slices on a power track,
//! kernel task handlers as slices on one track per task (from the trace port's START/END
//! words), power state and supply current as counter tracks, faults as instants.
//! Timestamps are derived from the exact cycle counter.

use crate::machine::FaultKind;
use std::fmt::Write as _;

enum Event {
    Enter { at: u64, n: u32 },
    Exit { at: u64, n: u32 },
    Sleep { from: u64, to: u64, deep: bool },
    Wakeup { from: u64, to: u64 },
    Fault { at: u64, what: String },
    Kernel { at: u64, word: u32 },
}

/// Upper bound on recorded events, so a firmware stuck in an interrupt or fault loop
/// cannot exhaust host memory; the trace says when it was cut.
const MAX_EVENTS: usize = 4_000_000;

pub struct TraceLog {
    clock_hz: u64,
    events: Vec<Event>,
    dropped: u64,
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

impl TraceLog {
    pub fn new(clock_hz: u64) -> TraceLog {
        TraceLog { clock_hz, events: Vec::new(), dropped: 0, currents: None }
    }

    /// Draw a supply-current counter track with these currents (uA): awake, sleep, deep
    /// sleep, wake-up.
    pub fn set_currents(&mut self, currents: [f64; 4]) {
        self.currents = Some(currents);
    }

    pub fn exception_entry(&mut self, at: u64, n: u32) {
        if self.room() {
            self.events.push(Event::Enter { at, n });
        }
    }

    pub fn exception_exit(&mut self, at: u64, n: u32) {
        if self.room() {
            self.events.push(Event::Exit { at, n });
        }
    }

    pub fn sleep(&mut self, from: u64, to: u64, deep: bool) {
        if self.room() {
            self.events.push(Event::Sleep { from, to, deep });
        }
    }

    /// The core is delayed by an energy profile's wake-up latency.
    pub fn wakeup(&mut self, from: u64, to: u64) {
        if self.room() {
            self.events.push(Event::Wakeup { from, to });
        }
    }

    /// A word from the kernel's trace port (event << 24 | a << 16 | b).
    pub fn kernel_event(&mut self, at: u64, word: u32) {
        if self.room() {
            self.events.push(Event::Kernel { at, word });
        }
    }

    pub fn fault(&mut self, at: u64, kind: FaultKind, pc: u32) {
        if self.room() {
            self.events.push(Event::Fault { at, what: format!("{kind} at 0x{pc:08x}") });
        }
    }

    fn room(&mut self) -> bool {
        if self.events.len() < MAX_EVENTS {
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    fn us(&self, cycles: u64) -> String {
        // Microseconds with picosecond resolution, printed exactly (no float rounding).
        let ps = cycles as u128 * 1_000_000_000_000u128 / self.clock_hz as u128;
        format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
    }

    /// Counter events at `at`: power state (0 awake, 1 sleep, 2 deep sleep, 3 waking) and,
    /// with an energy profile, the supply current. Each is preceded by ",\n".
    fn counters(&self, out: &mut String, at: u64, state: usize) {
        let _ = write!(
            out,
            ",\n{{\"ph\":\"C\",\"pid\":1,\"ts\":{},\"name\":\"power state\",\"args\":{{\"state\":{state}}}}}",
            self.us(at)
        );
        if let Some(c) = self.currents {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"C\",\"pid\":1,\"ts\":{},\"name\":\"supply current (uA)\",\"args\":{{\"uA\":{}}}}}",
                self.us(at),
                c[state.min(3)]
            );
        }
    }

    /// Render as Chrome trace-event JSON. `end` closes slices still open.
    pub fn to_json(&self, end: u64) -> String {
        let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        out.push_str("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"cpu0\"}},\n");
        out.push_str(
            "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"exceptions\"}},\n",
        );
        out.push_str("{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"power\"}},\n");
        out.push_str(
            "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"kernel events\"}}",
        );
        out.push_str(
            ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":4,\"name\":\"thread_name\",\"args\":{\"name\":\"interrupts\"}}",
        );
        let tasks: std::collections::BTreeSet<u32> = self
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Kernel { word, .. } if word >> 24 == EV_START => Some((word >> 16) & 0xff),
                _ => None,
            })
            .collect();
        for t in &tasks {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"task {t}\"}}}}",
                TASK_TID + t
            );
        }
        self.counters(&mut out, 0, 0);
        let mut open: Vec<u32> = Vec::new();
        let mut open_tasks: std::collections::BTreeSet<u32> = Default::default();
        for e in &self.events {
            out.push_str(",\n");
            match e {
                Event::Enter { at, n } => {
                    open.push(*n);
                    let _ = writeln!(
                        out,
                        "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":4,\"ts\":{},\"name\":\"{}\"}},",
                        self.us(*at),
                        exception_name(*n)
                    );
                    let _ = write!(
                        out,
                        "{{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":{},\"name\":\"{}\"}}",
                        self.us(*at),
                        exception_name(*n)
                    );
                }
                Event::Exit { at, n } => {
                    open.pop();
                    let _ = write!(
                        out,
                        "{{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":{},\"name\":\"{}\"}}",
                        self.us(*at),
                        exception_name(*n)
                    );
                }
                Event::Sleep { from, to, deep } => {
                    let _ = write!(
                        out,
                        "{{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":{},\"dur\":{},\"name\":\"{}\"}}",
                        self.us(*from),
                        self.us(to - from),
                        if *deep { "deep sleep" } else { "sleep" }
                    );
                    self.counters(&mut out, *from, 1 + *deep as usize);
                    self.counters(&mut out, *to, 0);
                }
                Event::Wakeup { from, to } => {
                    let _ = write!(
                        out,
                        "{{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":{},\"dur\":{},\"name\":\"wake-up\"}}",
                        self.us(*from),
                        self.us(to - from)
                    );
                    self.counters(&mut out, *from, 3);
                    self.counters(&mut out, *to, 0);
                }
                Event::Kernel { at, word } => {
                    let task = (word >> 16) & 0xff;
                    if word >> 24 == EV_START && open_tasks.insert(task) {
                        let _ = writeln!(
                            out,
                            "{{\"ph\":\"B\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":\"task {task}\",\"args\":{{\"port\":{}}}}},",
                            TASK_TID + task,
                            self.us(*at),
                            word & 0xffff
                        );
                    } else if word >> 24 == EV_END && open_tasks.remove(&task) {
                        let _ = writeln!(
                            out,
                            "{{\"ph\":\"E\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":\"task {task}\"}},",
                            TASK_TID + task,
                            self.us(*at)
                        );
                    }
                    let _ = write!(
                        out,
                        "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":3,\"ts\":{},\"name\":\"event {}\",\"args\":{{\"a\":{},\"b\":{}}}}}",
                        self.us(*at),
                        word >> 24,
                        (word >> 16) & 0xff,
                        word & 0xffff
                    );
                }
                Event::Fault { at, what } => {
                    let _ = write!(
                        out,
                        "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":{},\"name\":\"fault\",\"args\":{{\"what\":{}}}}}",
                        self.us(*at),
                        serde_json::to_string(what).unwrap_or_default()
                    );
                }
            }
        }
        for task in open_tasks {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"E\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":\"task {task}\"}}",
                TASK_TID + task,
                self.us(end)
            );
        }
        while let Some(n) = open.pop() {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":{},\"name\":\"{}\"}}",
                self.us(end),
                exception_name(n)
            );
        }
        if self.dropped > 0 {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"ts\":{},\"name\":\"trace truncated\",\"args\":{{\"dropped_events\":{}}}}}",
                self.us(end),
                self.dropped
            );
        }
        out.push_str("\n]}\n");
        out
    }
}
