//! Console output of a simulated processor (UART0, semihosting writes): each processor owns a
//! `ConsoleSink` that decides where its bytes go, so several processors can share the
//! process's stdout (a prefixing sink in front) or write files of their own without any
//! state shared between them. Also cairn-sim's own diagnostics on stderr, which belong to
//! the process rather than to a processor.
//!
//! cairn-console is a crate of its own: the machine depends on it, never the reverse.

mod memory;
mod prefixed;
mod process;
mod timed;

pub use memory::MemoryConsole;
pub use prefixed::Prefixed;
pub use process::ProcessConsole;
pub use timed::{TimedLine, TimedLines};

use std::io::Write;

/// Where console bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Where a processor's console bytes go.
pub trait ConsoleSink {
    /// One byte the firmware wrote to `stream`.
    fn write(&mut self, stream: Stream, byte: u8);
    /// The same, with the processor's cycle: a sink that orders the lines of several
    /// processors by simulated time needs it; the others ignore it.
    fn write_at(&mut self, stream: Stream, byte: u8, _cycle: u64) {
        self.write(stream, byte)
    }
    /// Pass on whatever is buffered: at the end of a run and before a debugger prompt.
    fn flush(&mut self);
    /// The first error writing the output, as the CLI's one line. Once there is one the run
    /// should end: the output would otherwise be lost silently.
    fn error(&self) -> Option<&str>;
    /// The sink as a `MemoryConsole`, if it is one: how a test reads what the firmware wrote.
    /// (A method rather than a downcast through `Any`, which would need Rust 1.86.)
    fn memory(&mut self) -> Option<&mut MemoryConsole> {
        None
    }
    /// The sink as a `TimedLines`, if it is one: how the device scheduler takes the lines.
    fn timed(&mut self) -> Option<&mut TimedLines> {
        None
    }
}

/// One line of cairn-sim's own on stderr. An error writing it is ignored: stderr is where
/// it would be reported, and the exit status still tells what happened (`eprintln!` would
/// panic instead).
pub fn diagnostic(line: std::fmt::Arguments) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(format_args!("{line}\n")).and_then(|_| e.flush());
}
