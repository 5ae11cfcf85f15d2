//! `--io-log`: CSV of I/O events, one row each, in time order:
//! `cycle,time_s,kind,name,value` with kind one of stimulus, input, adc, output, gpio,
//! uart_rx (a byte that arrived on UART `uartN`'s receive line).
//! gpio rows carry all 32 pin levels after the write (bit n = pin n). The CLI writes rows
//! as the run goes ([`IoLogRows`] through `Machine::stream_io`); [`write_retained`] writes a
//! retained event log at once.

use crate::measure::signals::sorted;
use crate::periph::io_event::{IoEvent, IoKind};
use crate::scenario_io::{IoScenario, PortDir};
use std::io::Write;

pub const HEADER: &str = "cycle,time_s,kind,name,value\n";

/// Names come from TOML keys: quote any that would break the CSV.
fn csv_name(name: String) -> String {
    if name.contains([',', '"', '\n']) {
        format!("\"{}\"", name.replace('"', "\"\""))
    } else {
        name
    }
}

/// Formats rows; the names are resolved once.
pub struct IoLogRows {
    clock: f64,
    stimuli: Vec<String>,
    inputs: Vec<String>,
    outputs: Vec<String>,
}

impl IoLogRows {
    pub fn new(sc: &IoScenario, clock_hz: u64) -> IoLogRows {
        let stimuli = (0..sc.stimuli.len().min(256)).map(|i| csv_name(sc.stimulus_name(i as u8))).collect();
        let inputs = (0..8).map(|p| csv_name(sc.port_name(p, PortDir::In))).collect();
        let outputs = (0..8).map(|p| csv_name(sc.port_name(p, PortDir::Out))).collect();
        IoLogRows { clock: clock_hz as f64, stimuli, inputs, outputs }
    }

    pub fn row(&self, w: &mut impl Write, e: &IoEvent) -> std::io::Result<()> {
        let i = e.index as usize;
        let owned;
        let name: &str = match e.kind {
            IoKind::Stimulus => match self.stimuli.get(i) {
                Some(n) => n,
                None => {
                    owned = format!("stimulus{}", e.index);
                    &owned
                }
            },
            IoKind::Input | IoKind::Output => {
                let (table, prefix) =
                    if e.kind == IoKind::Input { (&self.inputs, "in") } else { (&self.outputs, "out") };
                match table.get(i) {
                    Some(n) => n,
                    None => {
                        owned = format!("{prefix}{}", e.index);
                        &owned
                    }
                }
            }
            IoKind::Adc => {
                owned = format!("adc{}", e.index);
                &owned
            }
            IoKind::Gpio => "gpio",
            IoKind::UartRx => {
                owned = format!("uart{}", e.index);
                &owned
            }
        };
        writeln!(w, "{},{:e},{},{},{}", e.cycle, e.cycle as f64 / self.clock, e.kind.name(), name, e.value)
    }
}

/// The whole CSV of a retained event log (in log order; written in time order).
pub fn write_retained(sc: &IoScenario, clock_hz: u64, events: &[IoEvent], w: &mut impl Write) -> std::io::Result<()> {
    let rows = IoLogRows::new(sc, clock_hz);
    w.write_all(HEADER.as_bytes())?;
    for e in sorted(events) {
        rows.row(w, &e)?;
    }
    Ok(())
}
