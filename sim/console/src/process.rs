//! The console sink of the `cairn-sim` command: the process's stdout and stderr,
//! line-buffered so UART traffic is cheap (a write per line, not per byte), flushed at a
//! newline, at 4096 bytes and whenever the simulation stops.
//!
//! A write error other than a closed pipe is recorded and ends the run (the CLI reports it,
//! exit 2): the output would otherwise be lost silently. A closed pipe
//! (`cairn-sim run x.elf | head`) means the reader has all it wants: the bytes are dropped
//! and the run goes on.

use super::{ConsoleSink, Stream};
use std::io::Write;

/// A line longer than this is written in pieces.
const LINE_LIMIT: usize = 4096;

#[derive(Debug, Default)]
pub struct ProcessConsole {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    error: Option<String>,
}

impl ProcessConsole {
    fn flush_stream(&mut self, stream: Stream) {
        let buf = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        if buf.is_empty() {
            return;
        }
        let (r, name) = match stream {
            Stream::Stdout => {
                let mut o = std::io::stdout().lock();
                (o.write_all(buf).and_then(|_| o.flush()), "standard output")
            }
            Stream::Stderr => {
                let mut o = std::io::stderr().lock();
                (o.write_all(buf).and_then(|_| o.flush()), "standard error")
            }
        };
        buf.clear();
        match r {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                self.error.get_or_insert_with(|| format!("cannot write the firmware's output to {name}: {e}"));
            }
            _ => {}
        }
    }
}

impl ConsoleSink for ProcessConsole {
    fn write(&mut self, stream: Stream, byte: u8) {
        let buf = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        buf.push(byte);
        if byte == b'\n' || buf.len() >= LINE_LIMIT {
            self.flush_stream(stream);
        }
    }

    fn flush(&mut self) {
        self.flush_stream(Stream::Stdout);
        self.flush_stream(Stream::Stderr);
    }

    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}
