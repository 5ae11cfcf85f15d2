//! A processor's I/O in a device's waveform: the same signals its waveform alone would
//! have (docs/stimuli.md, "VCD waveform") — marker GPIO pins, ports, ADC channels and
//! stimulus counts — as value changes in picoseconds of the device's time, taken from its
//! retained event log when the run has ended (the device's writer, cairn-sim's
//! device/outputs.rs, adds them to the processor's scope).

use super::vcd::clean;
use crate::periph::io_event::{IoEvent, IoKind};
use crate::scenario_io::{IoScenario, PortDir};
use crate::time::cycle_to_ps;

/// One signal and its changes (ps, value), in time order; at one time the last one wins.
pub struct IoWave {
    /// The processor's sub-scope: `gpio`, `ports`, `adc` or `stimulus`.
    pub scope: &'static str,
    pub name: String,
    pub width: u32,
    pub changes: Vec<(u64, u64)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Port {
    Out(u8),
    In(u8),
    Adc(u8),
}

/// The processor's I/O signals, in the single-processor waveform's order: the pins it
/// touched or its scenario names, the ports and ADC channels in order of first appearance,
/// then every stimulus of its scenario.
pub fn io_waves(sc: &IoScenario, clock_hz: u64, events: &[IoEvent]) -> Vec<IoWave> {
    let mut events = events.to_vec();
    events.sort_by_key(|e| e.cycle);
    let mut pins: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 32];
    let mut level = 0u32;
    let mut touched = sc.pins.iter().fold(0u32, |a, p| a | 1 << (p.index & 31));
    let mut ports: Vec<(Port, Vec<(u64, u64)>)> = Vec::new();
    let mut stimuli: Vec<Vec<(u64, u64)>> = vec![Vec::new(); sc.stimuli.len()];
    for e in &events {
        let t = cycle_to_ps(e.cycle, clock_hz);
        let port = match e.kind {
            IoKind::Gpio => {
                let mut changed = level ^ e.value;
                level = e.value;
                touched |= changed;
                while changed != 0 {
                    let pin = changed.trailing_zeros();
                    changed &= changed - 1;
                    pins[pin as usize].push((t, (e.value >> pin & 1) as u64));
                }
                continue;
            }
            IoKind::Stimulus => {
                if let Some(s) = stimuli.get_mut(e.index as usize) {
                    s.push((t, e.value as u64));
                }
                continue;
            }
            IoKind::Output if e.index < 8 => Port::Out(e.index),
            IoKind::Input if e.index < 8 => Port::In(e.index),
            IoKind::Adc => Port::Adc(e.index),
            _ => continue,
        };
        match ports.iter_mut().find(|(p, _)| *p == port) {
            Some((_, changes)) => changes.push((t, e.value as u64)),
            None => ports.push((port, vec![(t, e.value as u64)])),
        }
    }
    let mut waves = Vec::new();
    for (pin, changes) in pins.into_iter().enumerate().filter(|(pin, _)| touched >> pin & 1 != 0) {
        waves.push(IoWave { scope: "gpio", name: clean(&sc.pin_name(pin as u8)), width: 1, changes });
    }
    let adc_bits = sc.adc.as_ref().map_or(32, |a| a.bits);
    for scope in ["ports", "adc"] {
        for (port, changes) in &ports {
            let (s, name, width) = match *port {
                Port::Out(i) => ("ports", clean(&sc.port_name(i, PortDir::Out)), 32),
                Port::In(i) => ("ports", clean(&sc.port_name(i, PortDir::In)), 32),
                Port::Adc(i) => ("adc", format!("ch{i}"), adc_bits),
            };
            if s == scope {
                waves.push(IoWave { scope, name, width, changes: changes.clone() });
            }
        }
    }
    for (s, changes) in sc.stimuli.iter().zip(stimuli) {
        waves.push(IoWave { scope: "stimulus", name: clean(&s.name), width: 32, changes });
    }
    waves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_those_touched_and_ports_come_in_order_of_first_appearance() {
        let sc = IoScenario::default();
        let ev = |cycle, kind, index, value| IoEvent { cycle, kind, index, value };
        let events = [
            ev(4, IoKind::Gpio, 0, 0b101),
            ev(2, IoKind::Input, 3, 9),
            ev(3, IoKind::Output, 1, 7),
            ev(8, IoKind::Gpio, 0, 0b001),
        ];
        let waves = io_waves(&sc, 25_000_000, &events);
        let names: Vec<(&str, &str)> = waves.iter().map(|w| (w.scope, w.name.as_str())).collect();
        assert_eq!(names, [("gpio", "gpio0"), ("gpio", "gpio2"), ("ports", "in3"), ("ports", "out1")]);
        assert_eq!(waves[1].changes, [(160_000, 1), (320_000, 0)]);
        assert_eq!(waves[2].changes, [(80_000, 9)]);
    }
}
