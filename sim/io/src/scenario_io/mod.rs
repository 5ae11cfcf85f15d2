//! The I/O section of a scenario: stimuli, named pins and ports, the ADC and what to
//! measure. `parse` turns the TOML keys `stimulus`, `pin`, `port`, `adc` and `io` into an
//! [`IoScenario`]; `Machine::install_io_scenario` puts it into a machine before a run.

mod parse;

pub use parse::{parse_io_file, parse_io_scenario, IoScenarioError, IO_KEYS};

use crate::stimuli::adc_source::Channel;
use crate::stimuli::irq_gen::StimulusSpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Rising,
    Falling,
    Both,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PinSpec {
    pub name: String,
    pub index: u8,
    /// Expected period between the pin's `edge`s: enables a jitter entry.
    pub expected_period_ps: Option<u64>,
    pub edge: Edge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    Out,
    In,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PortSpec {
    pub name: String,
    pub index: u8,
    pub dir: PortDir,
    /// Output ports: expected period between writes, enables a jitter entry.
    pub expected_period_ps: Option<u64>,
    /// Input ports: (time, value) deliveries in increasing time.
    pub deliveries: Vec<(u64, u32)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AdcSpec {
    /// Periodic conversion rate (used when firmware sets CTRL.PERIODIC); 0 = on read only.
    pub rate_hz: f64,
    pub bits: u32,
    /// Input range mapped to codes 0 ..= 2^bits - 1.
    pub range: (f64, f64),
    pub channels: Vec<Channel>,
}

/// How a stimulus firing is paired with a response event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchRule {
    /// The first response at or after the firing and before the next firing.
    Next,
    /// The k-th response answers the k-th firing.
    Fifo,
    /// The response whose value equals the firing's sequence number (COUNT register).
    Sequence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Pin(u8, Edge),
    Port(u8),
}

#[derive(Clone, Debug, PartialEq)]
pub struct DelaySpec {
    pub name: String,
    /// Index into `IoScenario::stimuli`.
    pub stimulus: usize,
    pub response: Target,
    pub response_name: String,
    pub rule: MatchRule,
    pub deadline_ps: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MeasureSpec {
    /// Histogram bin width for jitter and delay distributions.
    pub bin_ps: u64,
    pub delays: Vec<DelaySpec>,
}

impl Default for MeasureSpec {
    fn default() -> Self {
        // 1 us bins unless the scenario says otherwise.
        MeasureSpec { bin_ps: 1_000_000, delays: Vec::new() }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoScenario {
    pub stimuli: Vec<StimulusSpec>,
    pub pins: Vec<PinSpec>,
    pub ports: Vec<PortSpec>,
    pub adc: Option<AdcSpec>,
    pub measure: MeasureSpec,
}

impl IoScenario {
    pub fn pin_name(&self, index: u8) -> String {
        self.pins.iter().find(|p| p.index == index).map(|p| p.name.clone()).unwrap_or_else(|| format!("gpio{index}"))
    }

    pub fn port_name(&self, index: u8, dir: PortDir) -> String {
        self.ports.iter().find(|p| p.index == index && p.dir == dir).map(|p| p.name.clone()).unwrap_or_else(
            || match dir {
                PortDir::Out => format!("out{index}"),
                PortDir::In => format!("in{index}"),
            },
        )
    }

    pub fn stimulus_name(&self, index: u8) -> String {
        self.stimuli.get(index as usize).map(|s| s.name.clone()).unwrap_or_else(|| format!("stimulus{index}"))
    }
}
