//! The scenario's drivers of the Cairn devices: the stimulus generators and the input-port
//! deliveries, fired into the devices at their scheduled cycles. The machine merges their
//! schedule with the devices' own (the ADC's periodic conversions) through `earliest`.

use super::irq_gen::{Generator, StimulusSpec};
use crate::periph::cairn_io::CairnIo;
use crate::periph::io_event::EventLog;
use crate::time::ps_to_cycle;

#[derive(Default)]
pub struct Drivers {
    gens: Vec<Generator>,
    /// Input-port deliveries (cycle, port, value) in time order, and the next one.
    inputs: Vec<(u64, u8, u32)>,
    input_pos: usize,
    clock_hz: u64,
}

impl Drivers {
    /// Generators seeded from `seed`, one stream per stimulus; `deliveries` are (time in
    /// ps, port, value) in scenario order.
    pub fn new(stimuli: &[StimulusSpec], deliveries: &[(u64, u8, u32)], seed: u64, clock_hz: u64) -> Drivers {
        let gens = stimuli.iter().enumerate().map(|(i, s)| Generator::new(s.clone(), seed, i as u64)).collect();
        let mut inputs: Vec<(u64, u8, u32)> =
            deliveries.iter().map(|&(t, port, v)| (ps_to_cycle(t, clock_hz), port, v)).collect();
        // Stable: deliveries at the same cycle keep scenario order.
        inputs.sort_by_key(|e| e.0);
        Drivers { gens, inputs, input_pos: 0, clock_hz }
    }

    /// The next (cycle, source) due, or (u64::MAX, _) when none: the earliest cycle, and at
    /// one cycle generators in scenario order before input deliveries.
    pub fn earliest(&self) -> (u64, usize) {
        let mut best = (u64::MAX, usize::MAX);
        for (i, g) in self.gens.iter().enumerate() {
            if let Some(ps) = g.peek() {
                let c = ps_to_cycle(ps, self.clock_hz);
                if c < best.0 {
                    best = (c, i);
                }
            }
        }
        if let Some(&(c, _, _)) = self.inputs.get(self.input_pos) {
            if c < best.0 {
                best = (c, self.gens.len());
            }
        }
        best
    }

    /// Fire `source` (as returned by `earliest`) at `cycle` into the devices.
    pub fn fire(&mut self, source: usize, cycle: u64, dev: &mut CairnIo, log: &mut EventLog) {
        if let Some(g) = self.gens.get_mut(source) {
            let line = g.spec.line as usize;
            g.advance();
            dev.stimulus(cycle, line, source as u8, log);
        } else {
            let (_, port, value) = self.inputs[self.input_pos];
            self.input_pos += 1;
            dev.deliver(cycle, port, value, log);
        }
    }
}
