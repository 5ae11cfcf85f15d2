//! `--trace`: a Chrome/Perfetto JSON trace of what the core did — exception handlers as
//! slices, sleep periods as slices on a power track, faults as instants. Timestamps are
//! derived from the exact cycle counter.

use crate::machine::FaultKind;
use std::fmt::Write as _;

enum Event {
    Enter { at: u64, n: u32 },
    Exit { at: u64, n: u32 },
    Sleep { from: u64, to: u64 },
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
}

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
        TraceLog { clock_hz, events: Vec::new(), dropped: 0 }
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

    pub fn sleep(&mut self, from: u64, to: u64) {
        if self.room() {
            self.events.push(Event::Sleep { from, to });
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
        let mut open: Vec<u32> = Vec::new();
        for e in &self.events {
            out.push_str(",\n");
            match e {
                Event::Enter { at, n } => {
                    open.push(*n);
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
                Event::Sleep { from, to } => {
                    let _ = write!(
                        out,
                        "{{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":{},\"dur\":{},\"name\":\"sleep\"}}",
                        self.us(*from),
                        self.us(to - from)
                    );
                }
                Event::Kernel { at, word } => {
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
