//! A console sink that keeps every byte in memory: what a machine starts with, so tests,
//! the fuzz harnesses and the differential tester see the output without a process stream.

use super::{ConsoleSink, Stream};

#[derive(Debug, Default)]
pub struct MemoryConsole {
    /// Every byte written, in order, with its stream.
    pub bytes: Vec<(Stream, u8)>,
}

impl MemoryConsole {
    /// The bytes of both streams in the order written, as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes.iter().map(|&(_, b)| b).collect::<Vec<u8>>()).into_owned()
    }
}

impl ConsoleSink for MemoryConsole {
    fn write(&mut self, stream: Stream, byte: u8) {
        self.bytes.push((stream, byte));
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&str> {
        None
    }
}
