//! The core's power state and exception lines over time, recorded for the VCD only. The
//! processor appends as they change; the machine drains them to the stream with the I/O
//! events.

/// Power state as recorded for the VCD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    Run = 0,
    Sleep = 1,
    DeepSleep = 2,
}

/// Changes recorded only when a waveform is wanted (`--vcd`). With a stream attached these
/// hold only what was not drained yet.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    pub power: Vec<(u64, PowerState)>,
    /// (cycle, pending, active) exception bitmaps whenever they changed.
    pub exceptions: Vec<(u64, u64, u64)>,
    /// The last (pending, active) recorded.
    last_exceptions: Option<(u64, u64)>,
}

impl Timeline {
    /// Record the exception bitmaps if they changed.
    #[inline]
    pub fn note_exceptions(&mut self, cycle: u64, pending: u64, active: u64) {
        if self.last_exceptions != Some((pending, active)) {
            self.last_exceptions = Some((pending, active));
            self.exceptions.push((cycle, pending, active));
        }
    }
}
