//! The `io` section of the stats JSON: `{ports{}, jitter{}, delay{}, stimuli{}, adc{}}`.

use super::delay::{delay_json, DelayInput};
use super::jitter::jitter_json;
use super::signals::{firings, pin_edges, port_writes, sorted, target_events};
use crate::machine::Machine;
use crate::periph::cairn_io::IoKind;
use crate::scenario_io::PortDir;
use serde_json::{json, Map, Value};

/// Whether the run has anything to report under `io`.
pub fn has_io(m: &Machine) -> bool {
    m.io.installed || !m.io.events.is_empty()
}

pub fn io_json(m: &Machine) -> Value {
    let ev = sorted(&m.io.events);
    let sc = &m.io.scenario;
    let clock = m.config.clock_hz;
    let t = |c: u64| c as f64 / clock as f64;
    let bin = sc.measure.bin_ps;

    let mut ports = Map::new();
    for p in 0..8u8 {
        let w = port_writes(&ev, p);
        if let (Some(first), Some(last)) = (w.first(), w.last()) {
            ports.insert(
                sc.port_name(p, PortDir::Out),
                json!({"kind": "output", "index": p, "writes": w.len(), "first_s": t(first.0),
                       "last_s": t(last.0), "last_value": last.1}),
            );
        }
        let ins: Vec<_> = ev.iter().filter(|e| e.kind == IoKind::Input && e.index == p).collect();
        if let Some(last) = ins.last() {
            ports.insert(
                sc.port_name(p, PortDir::In),
                json!({"kind": "input", "index": p, "deliveries": ins.len(), "last_value": last.value}),
            );
        }
    }
    // Edge counts of all 32 pins in one pass over the log.
    let (mut rising_n, mut falling_n, mut level) = ([0usize; 32], [0usize; 32], 0u32);
    for e in ev.iter().filter(|e| e.kind == IoKind::Gpio) {
        let changed = level ^ e.value;
        for pin in 0..32 {
            if changed >> pin & 1 != 0 {
                if e.value >> pin & 1 != 0 {
                    rising_n[pin] += 1;
                } else {
                    falling_n[pin] += 1;
                }
            }
        }
        level = e.value;
    }
    for pin in 0..32u8 {
        let (rising, falling) = (rising_n[pin as usize], falling_n[pin as usize]);
        if rising + falling > 0 || sc.pins.iter().any(|p| p.index == pin) {
            ports.insert(sc.pin_name(pin), json!({"kind": "pin", "index": pin, "rising": rising, "falling": falling}));
        }
    }

    let mut jitter = Map::new();
    for p in &sc.pins {
        if let Some(period) = p.expected_period_ps {
            jitter.insert(p.name.clone(), jitter_json(&pin_edges(&ev, p.index, p.edge), period, clock, bin, "pin"));
        }
    }
    for p in sc.ports.iter().filter(|p| p.dir == PortDir::Out) {
        if let Some(period) = p.expected_period_ps {
            jitter.insert(p.name.clone(), jitter_json(&port_writes(&ev, p.index), period, clock, bin, "port"));
        }
    }

    let mut delay = Map::new();
    for d in &sc.measure.delays {
        let stims = firings(&ev, d.stimulus);
        let resps = target_events(&ev, d.response);
        let Some(stimulus) = sc.stimuli.get(d.stimulus) else { continue };
        let input = DelayInput {
            stimulus: &stimulus.name,
            response: &d.response_name,
            rule: d.rule,
            deadline_ps: d.deadline_ps,
            bin_ps: bin,
            clock_hz: clock,
        };
        delay.insert(d.name.clone(), delay_json(&stims, &resps, &input));
    }

    let mut stimuli = Map::new();
    for (i, s) in sc.stimuli.iter().enumerate() {
        stimuli.insert(
            s.name.clone(),
            json!({"line": s.line, "irq": crate::periph::cairn_io::STIM_IRQ_BASE + s.line as u32,
                   "fired": firings(&ev, i).len()}),
        );
    }
    let adc_samples = ev.iter().filter(|e| e.kind == IoKind::Adc).count();
    json!({
        "ports": ports,
        "jitter": jitter,
        "delay": delay,
        "stimuli": stimuli,
        "adc": {"samples": adc_samples},
        "events": ev.len(),
    })
}
