//! Cairn's trace port: each 32-bit write to its first word is one kernel event word, which
//! the machine timestamps with the cycle. It reads as zero and keeps no state.

use super::device::{Device, Effect};
use super::io_event::EventLog;

#[derive(Clone, Debug, Default)]
pub struct TracePort;

impl Device for TracePort {
    fn read(&mut self, _off: u32, _size: u32, _now: u64, _log: &mut EventLog) -> u32 {
        0
    }

    fn write(&mut self, off: u32, value: u32, size: u32, _now: u64, _log: &mut EventLog) -> Effect {
        // Narrower writes are not event words (the kernel writes whole words).
        if off == 0 && size == 4 {
            Effect::TraceWord(value)
        } else {
            Effect::None
        }
    }

    fn irq_lines(&mut self, _now: u64) -> u32 {
        0
    }

    fn reset(&mut self) {}
}
