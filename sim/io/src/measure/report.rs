//! The `io` section of the stats JSON: `{ports{}, jitter{}, delay{}, stimuli{}, adc{}}`,
//! computed by [`Measure`] from the I/O events fed to it one at a time, in time order, in
//! memory that does not grow with the length of the run.

use super::delay::{Delay, DelayInput};
use super::jitter::Jitter;
use crate::periph::io_event::{IoEvent, IoKind};
use crate::scenario_io::{Edge, IoScenario, PortDir, Target};
use crate::time::cycle_to_ps;
use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, Default)]
struct OutPort {
    writes: u64,
    first: u64,
    last: u64,
    last_value: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct InPort {
    deliveries: u64,
    last_value: u32,
}

fn edge_matches(edge: Edge, rising: bool) -> bool {
    match edge {
        Edge::Rising => rising,
        Edge::Falling => !rising,
        Edge::Both => true,
    }
}

/// Every measurement of the `io` stats section, updated event by event.
#[derive(Clone, Debug)]
pub struct Measure {
    clock_hz: u64,
    events: u64,
    out: [OutPort; 8],
    inp: [InPort; 8],
    level: u32,
    rising: [u64; 32],
    falling: [u64; 32],
    fired: Vec<u64>,
    adc_samples: u64,
    /// Jitter entries: pins (index, edge) in scenario order, then output ports.
    pin_jitter: Vec<(u8, Edge, Jitter)>,
    port_jitter: Vec<(u8, Jitter)>,
    delays: Vec<Delay>,
    /// Delay entries by stimulus index, by output port, and the pin ones (pin, edge, entry).
    delays_by_stimulus: Vec<Vec<usize>>,
    delays_by_port: [Vec<usize>; 8],
    delays_by_pin: Vec<(u8, Edge, usize)>,
    /// Pins with a jitter or delay entry.
    watched_pins: u32,
}

impl Measure {
    pub fn new(sc: &IoScenario, clock_hz: u64) -> Measure {
        let bin = sc.measure.bin_ps;
        let pin_jitter = sc
            .pins
            .iter()
            .filter_map(|p| p.expected_period_ps.map(|period| (p.index, p.edge, Jitter::new(period, bin))))
            .collect::<Vec<_>>();
        let port_jitter = sc
            .ports
            .iter()
            .filter(|p| p.dir == PortDir::Out)
            .filter_map(|p| p.expected_period_ps.map(|period| (p.index, Jitter::new(period, bin))))
            .collect::<Vec<_>>();
        let mut delays_by_stimulus = vec![Vec::new(); sc.stimuli.len()];
        let mut delays_by_port: [Vec<usize>; 8] = Default::default();
        let mut delays_by_pin = Vec::new();
        let mut watched_pins = 0u32;
        for (i, d) in sc.measure.delays.iter().enumerate() {
            if let Some(v) = delays_by_stimulus.get_mut(d.stimulus) {
                v.push(i);
            }
            match d.response {
                Target::Port(p) => delays_by_port[p as usize & 7].push(i),
                Target::Pin(p, edge) => {
                    delays_by_pin.push((p, edge, i));
                    watched_pins |= 1 << (p & 31);
                }
            }
        }
        for &(p, _, _) in &pin_jitter {
            watched_pins |= 1 << (p & 31);
        }
        Measure {
            clock_hz,
            events: 0,
            out: Default::default(),
            inp: Default::default(),
            level: 0,
            rising: [0; 32],
            falling: [0; 32],
            fired: vec![0; sc.stimuli.len()],
            adc_samples: 0,
            pin_jitter,
            port_jitter,
            delays: sc.measure.delays.iter().map(|d| Delay::new(d.rule, d.deadline_ps, bin)).collect(),
            delays_by_stimulus,
            delays_by_port,
            delays_by_pin,
            watched_pins,
        }
    }

    /// One event; events must come in time order (stable in log order at one cycle).
    pub fn feed(&mut self, e: &IoEvent) {
        self.events += 1;
        let i = e.index as usize;
        match e.kind {
            IoKind::Stimulus => {
                if let Some(n) = self.fired.get_mut(i) {
                    *n += 1;
                }
                if let Some(list) = self.delays_by_stimulus.get(i) {
                    let t = cycle_to_ps(e.cycle, self.clock_hz);
                    for &d in list {
                        self.delays[d].firing(t, e.cycle, e.value);
                    }
                }
            }
            IoKind::Input => {
                if let Some(p) = self.inp.get_mut(i) {
                    p.deliveries += 1;
                    p.last_value = e.value;
                }
            }
            IoKind::Adc => self.adc_samples += 1,
            IoKind::Output => {
                if let Some(p) = self.out.get_mut(i) {
                    if p.writes == 0 {
                        p.first = e.cycle;
                    }
                    p.writes += 1;
                    p.last = e.cycle;
                    p.last_value = e.value;
                }
                let t = cycle_to_ps(e.cycle, self.clock_hz);
                for (p, j) in self.port_jitter.iter_mut() {
                    if *p as usize == i {
                        j.event(t);
                    }
                }
                if let Some(list) = self.delays_by_port.get(i) {
                    for &d in list {
                        self.delays[d].response(t, e.cycle, e.value);
                    }
                }
            }
            IoKind::Gpio => {
                let changed = self.level ^ e.value;
                self.level = e.value;
                let mut bits = changed;
                while bits != 0 {
                    let pin = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if e.value >> pin & 1 != 0 {
                        self.rising[pin] += 1;
                    } else {
                        self.falling[pin] += 1;
                    }
                }
                if changed & self.watched_pins != 0 {
                    self.pin_events(e, changed);
                }
            }
            // Counted in `events`; the firmware's answer is what a measurement follows.
            IoKind::UartRx => {}
        }
    }

    #[cold]
    fn pin_events(&mut self, e: &IoEvent, changed: u32) {
        let t = cycle_to_ps(e.cycle, self.clock_hz);
        for (p, edge, j) in self.pin_jitter.iter_mut() {
            let rising = e.value >> *p & 1 != 0;
            if changed >> *p & 1 != 0 && edge_matches(*edge, rising) {
                j.event(t);
            }
        }
        for &(p, edge, d) in &self.delays_by_pin {
            let rising = e.value >> p & 1 != 0;
            if changed >> p & 1 != 0 && edge_matches(edge, rising) {
                self.delays[d].response(t, e.cycle, rising as u32);
            }
        }
    }

    /// Events fed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Firings still waiting for a response, summed over the delay entries (for tests).
    pub fn waiting(&self) -> usize {
        self.delays.iter().map(|d| d.waiting()).sum()
    }

    /// The `io` stats section as at the end of the run (consumes the measurements: pairs
    /// what is still open).
    pub fn json(mut self, sc: &IoScenario) -> Value {
        let clock = self.clock_hz;
        let t = |c: u64| c as f64 / clock as f64;
        let mut ports = Map::new();
        for p in 0..8u8 {
            let o = self.out[p as usize];
            if o.writes > 0 {
                ports.insert(
                    sc.port_name(p, PortDir::Out),
                    json!({"kind": "output", "index": p, "writes": o.writes, "first_s": t(o.first),
                           "last_s": t(o.last), "last_value": o.last_value}),
                );
            }
            let i = self.inp[p as usize];
            if i.deliveries > 0 {
                ports.insert(
                    sc.port_name(p, PortDir::In),
                    json!({"kind": "input", "index": p, "deliveries": i.deliveries, "last_value": i.last_value}),
                );
            }
        }
        for pin in 0..32u8 {
            let (rising, falling) = (self.rising[pin as usize], self.falling[pin as usize]);
            if rising + falling > 0 || sc.pins.iter().any(|p| p.index == pin) {
                ports.insert(
                    sc.pin_name(pin),
                    json!({"kind": "pin", "index": pin, "rising": rising, "falling": falling}),
                );
            }
        }

        let mut jitter = Map::new();
        let mut pin_jitter = self.pin_jitter.iter_mut();
        for p in sc.pins.iter().filter(|p| p.expected_period_ps.is_some()) {
            if let Some((_, _, j)) = pin_jitter.next() {
                jitter.insert(p.name.clone(), j.json("pin"));
            }
        }
        let mut port_jitter = self.port_jitter.iter_mut();
        for p in sc.ports.iter().filter(|p| p.dir == PortDir::Out && p.expected_period_ps.is_some()) {
            if let Some((_, j)) = port_jitter.next() {
                jitter.insert(p.name.clone(), j.json("port"));
            }
        }

        let mut delay = Map::new();
        for (d, tracker) in sc.measure.delays.iter().zip(self.delays.iter_mut()) {
            let Some(stimulus) = sc.stimuli.get(d.stimulus) else { continue };
            tracker.finish();
            let input = DelayInput {
                stimulus: &stimulus.name,
                response: &d.response_name,
                rule: d.rule,
                deadline_ps: d.deadline_ps,
            };
            delay.insert(d.name.clone(), tracker.json(&input));
        }

        let mut stimuli = Map::new();
        for (i, s) in sc.stimuli.iter().enumerate() {
            stimuli.insert(s.name.clone(), json!({"line": s.line, "fired": self.fired[i]}));
        }
        json!({
            "ports": ports,
            "jitter": jitter,
            "delay": delay,
            "stimuli": stimuli,
            "adc": {"samples": self.adc_samples},
            "events": self.events,
        })
    }
}
