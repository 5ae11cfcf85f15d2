//! A console sink that puts a name in front of every line before passing the bytes on:
//! how several processors of one device can share the process's stdout and stay readable.

use super::{ConsoleSink, Stream};

pub struct Prefixed<S> {
    prefix: Vec<u8>,
    inner: S,
    /// Per stream (stdout, stderr): the next byte starts a line.
    line_start: [bool; 2],
}

impl<S: ConsoleSink> Prefixed<S> {
    /// Lines written through this sink start with `name: `.
    pub fn new(name: &str, inner: S) -> Self {
        Prefixed { prefix: format!("{name}: ").into_bytes(), inner, line_start: [true; 2] }
    }

    /// The sink the prefixed bytes go to.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: ConsoleSink> ConsoleSink for Prefixed<S> {
    fn write(&mut self, stream: Stream, byte: u8) {
        let start = &mut self.line_start[stream as usize];
        if *start {
            for &b in &self.prefix {
                self.inner.write(stream, b);
            }
        }
        *start = byte == b'\n';
        self.inner.write(stream, byte);
    }

    fn flush(&mut self) {
        self.inner.flush();
    }

    fn error(&self) -> Option<&str> {
        self.inner.error()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryConsole;

    fn written(sink: &mut Prefixed<MemoryConsole>, stream: Stream, text: &str) {
        text.bytes().for_each(|b| sink.write(stream, b));
    }

    #[test]
    fn every_line_of_each_stream_starts_with_the_name() {
        let mut p = Prefixed::new("radio", MemoryConsole::default());
        written(&mut p, Stream::Stdout, "one\ntw");
        written(&mut p, Stream::Stderr, "err\n");
        written(&mut p, Stream::Stdout, "o\n\nthree");
        let out =
            |s: Stream| String::from_utf8(p.inner().bytes.iter().filter(|c| c.0 == s).map(|c| c.1).collect()).unwrap();
        assert_eq!(out(Stream::Stdout), "radio: one\nradio: two\nradio: \nradio: three");
        assert_eq!(out(Stream::Stderr), "radio: err\n");
    }

    #[test]
    fn nothing_written_means_no_prefix() {
        let p = Prefixed::new("radio", MemoryConsole::default());
        assert!(p.inner().bytes.is_empty());
        assert_eq!(p.error(), None);
    }
}
