//! A console sink that keeps every byte in memory: what a machine starts with, so a test
//! can read the firmware's output (and the fuzz harnesses can drop it) without touching
//! the process's streams.

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

    fn memory(&mut self) -> Option<&mut MemoryConsole> {
        Some(self)
    }
}
