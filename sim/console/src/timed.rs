//! A console sink that keeps each complete line with the cycle its newline was written at:
//! the lines of a device's processors are merged in the order of simulated time, so the
//! combined output does not depend on how the scheduler interleaved the processors.

use super::{ConsoleSink, Stream};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedLine {
    /// The cycle of the line's last byte.
    pub cycle: u64,
    pub stream: Stream,
    /// The line with its newline (the last line of a run may have none).
    pub bytes: Vec<u8>,
}

#[derive(Debug, Default)]
pub struct TimedLines {
    /// Complete lines not yet taken, in the order written.
    pub lines: Vec<TimedLine>,
    partial: [Vec<u8>; 2],
    last_cycle: [u64; 2],
}

impl TimedLines {
    /// The unfinished lines, as lines (at the end of a run).
    pub fn finish(&mut self) {
        for (i, stream) in [Stream::Stdout, Stream::Stderr].into_iter().enumerate() {
            if !self.partial[i].is_empty() {
                let bytes = std::mem::take(&mut self.partial[i]);
                self.lines.push(TimedLine { cycle: self.last_cycle[i], stream, bytes });
            }
        }
    }
}

impl ConsoleSink for TimedLines {
    fn write(&mut self, stream: Stream, byte: u8) {
        let c = self.last_cycle[stream as usize];
        self.write_at(stream, byte, c);
    }

    fn write_at(&mut self, stream: Stream, byte: u8, cycle: u64) {
        let i = stream as usize;
        self.partial[i].push(byte);
        self.last_cycle[i] = cycle;
        if byte == b'\n' {
            let bytes = std::mem::take(&mut self.partial[i]);
            self.lines.push(TimedLine { cycle, stream, bytes });
        }
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&str> {
        None
    }

    fn timed(&mut self) -> Option<&mut TimedLines> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_the_cycle_of_their_newline() {
        let mut t = TimedLines::default();
        "ab".bytes().enumerate().for_each(|(i, b)| t.write_at(Stream::Stdout, b, i as u64));
        t.write_at(Stream::Stdout, b'\n', 9);
        t.write_at(Stream::Stderr, b'x', 11);
        assert_eq!(t.lines, vec![TimedLine { cycle: 9, stream: Stream::Stdout, bytes: b"ab\n".to_vec() }]);
        t.finish();
        assert_eq!(t.lines[1], TimedLine { cycle: 11, stream: Stream::Stderr, bytes: b"x".to_vec() });
    }
}
