//! Console output of the simulated board: line-buffered so UART traffic is cheap,
//! flushed at newlines and whenever the simulation stops. Also cairn-sim's own
//! diagnostics on stderr, which must never panic (`eprintln!` does on a write error).
//!
//! A write error of the firmware's output other than a closed pipe is recorded and ends
//! the run (the CLI reports it, exit 2): the output would otherwise be lost silently. A
//! closed pipe (`cairn-sim run x.elf | head`) means the reader has all it wants: the bytes
//! are dropped and the run goes on.

use crate::machine::Stream;
use std::io::Write;

thread_local! {
    static BUF: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    static ERROR: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

pub fn write_byte(stream: Stream, byte: u8) {
    BUF.with(|b| {
        let mut b = b.borrow_mut();
        let buf = match stream {
            Stream::Stdout => &mut b.0,
            Stream::Stderr => &mut b.1,
        };
        buf.push(byte);
        if byte == b'\n' || buf.len() >= 4096 {
            flush_buf(stream, buf);
        }
    });
}

fn flush_buf(stream: Stream, buf: &mut Vec<u8>) {
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
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => ERROR.with(|x| {
            x.borrow_mut().get_or_insert_with(|| format!("cannot write the firmware's output to {name}: {e}"));
        }),
        _ => {}
    }
}

pub fn flush() {
    BUF.with(|b| {
        let mut b = b.borrow_mut();
        flush_buf(Stream::Stdout, &mut b.0);
        flush_buf(Stream::Stderr, &mut b.1);
    });
}

/// Whether writing the firmware's output failed (the run should end; `error` says why).
pub fn failed() -> bool {
    ERROR.with(|x| x.borrow().is_some())
}

/// The first write error of the firmware's output, as the CLI's line.
pub fn error() -> Option<String> {
    ERROR.with(|x| x.borrow().clone())
}

/// One line of cairn-sim's own on stderr. An error writing it is ignored: stderr is where
/// it would be reported, and the exit status still tells what happened.
pub fn diagnostic(line: std::fmt::Arguments) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(format_args!("{line}\n")).and_then(|_| e.flush());
}
