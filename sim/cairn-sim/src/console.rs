//! Console output of the simulated board: line-buffered so UART traffic is cheap,
//! flushed at newlines and whenever the simulation stops.

use crate::machine::Stream;
use std::io::Write;

thread_local! {
    static BUF: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
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
    // A closed pipe on the host side is not the firmware's problem: drop the bytes.
    let _ = match stream {
        Stream::Stdout => {
            let mut o = std::io::stdout().lock();
            o.write_all(buf).and_then(|_| o.flush())
        }
        Stream::Stderr => {
            let mut o = std::io::stderr().lock();
            o.write_all(buf).and_then(|_| o.flush())
        }
    };
    buf.clear();
}

pub fn flush() {
    BUF.with(|b| {
        let mut b = b.borrow_mut();
        flush_buf(Stream::Stdout, &mut b.0);
        flush_buf(Stream::Stderr, &mut b.1);
    });
}
