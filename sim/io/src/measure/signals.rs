//! Time order of the I/O event log.

use crate::periph::io_event::IoEvent;

/// Stable time order: a stimulus is logged at its scheduled cycle, which may be earlier
/// than a store logged just before the machine noticed the stimulus.
pub fn sorted(events: &[IoEvent]) -> Vec<IoEvent> {
    let mut v = events.to_vec();
    v.sort_by_key(|e| e.cycle);
    v
}
