//! Event streams extracted from the I/O log: times of a pin's edges, of an output port's
//! writes and of a stimulus's firings, in picoseconds (cycle-exact up to 1 ps rounding).

use crate::periph::cairn_io::{IoEvent, IoKind};
use crate::scenario_io::{Edge, Target};
use crate::stimuli::cycle_to_ps;

/// Stable time order: a stimulus is logged at its scheduled cycle, which may be earlier
/// than a store logged just before the machine noticed the stimulus.
pub fn sorted(events: &[IoEvent]) -> Vec<IoEvent> {
    let mut v = events.to_vec();
    v.sort_by_key(|e| e.cycle);
    v
}

/// (cycle, value) of each pin edge of the given kind; value 1 rising, 0 falling.
pub fn pin_edges(events: &[IoEvent], pin: u8, edge: Edge) -> Vec<(u64, u32)> {
    let mut level = false;
    let mut out = Vec::new();
    for e in events.iter().filter(|e| e.kind == IoKind::Gpio) {
        let now = e.value >> pin & 1 != 0;
        if now != level {
            let keep = match edge {
                Edge::Rising => now,
                Edge::Falling => !now,
                Edge::Both => true,
            };
            if keep {
                out.push((e.cycle, now as u32));
            }
            level = now;
        }
    }
    out
}

pub fn port_writes(events: &[IoEvent], port: u8) -> Vec<(u64, u32)> {
    events.iter().filter(|e| e.kind == IoKind::Output && e.index == port).map(|e| (e.cycle, e.value)).collect()
}

pub fn target_events(events: &[IoEvent], t: Target) -> Vec<(u64, u32)> {
    match t {
        Target::Pin(p, edge) => pin_edges(events, p, edge),
        Target::Port(p) => port_writes(events, p),
    }
}

/// (cycle, sequence number) of each firing of stimulus `index`.
pub fn firings(events: &[IoEvent], index: usize) -> Vec<(u64, u32)> {
    events
        .iter()
        .filter(|e| e.kind == IoKind::Stimulus && e.index as usize == index)
        .map(|e| (e.cycle, e.value))
        .collect()
}

pub fn ps(cycle: u64, clock_hz: u64) -> i128 {
    cycle_to_ps(cycle, clock_hz) as i128
}
