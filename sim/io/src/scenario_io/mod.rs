//! The I/O section of a scenario: stimuli, named pins and ports, the ADC, bytes for UARTs'
//! receive lines and what to measure. `parse` turns the TOML keys `stimulus`, `pin`,
//! `port`, `adc`, `uart_input` and `io` into an
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
    /// Bytes fed into UARTs' receive lines, in file order.
    pub uart_inputs: Vec<UartInputSpec>,
}

/// `[[uart_input]]`: bytes sent to a UART's receive line from `at`, one every 10 bit times
/// (start, 8 data, stop) at `baud`.
#[derive(Clone, Debug, PartialEq)]
pub struct UartInputSpec {
    /// The UART's name in the board file.
    pub uart: String,
    pub at_ps: u64,
    pub baud: u32,
    pub bytes: Vec<u8>,
}

impl IoScenario {
    /// Each UART input's arrivals as (ps, byte): a byte is received when its stop bit
    /// ends. Inputs on one UART share its line: one that starts while another is still
    /// sending waits for the line, so inputs are sent in file order, never interleaved.
    pub fn uart_arrivals(&self, uart: &str) -> Vec<(u64, u8)> {
        let mut out = Vec::new();
        let mut line_free = 0u64;
        for u in self.uart_inputs.iter().filter(|u| u.uart == uart) {
            let start = u.at_ps.max(line_free) as u128;
            let mut t = line_free;
            for (k, &b) in u.bytes.iter().enumerate() {
                // From the start, not byte to byte, so that rounding does not accumulate.
                let bits = 10 * (k as u128 + 1) * crate::time::PS_PER_S as u128;
                t = (start + bits / u.baud as u128).min(u64::MAX as u128) as u64;
                out.push((t, b));
            }
            line_free = t;
        }
        out
    }
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
