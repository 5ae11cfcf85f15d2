//! `--io-log`: CSV of I/O events, one row each, in time order:
//! `cycle,time_s,kind,name,value` with kind one of stimulus, input, adc, output, gpio,
//! uart_rx (a byte that arrived on UART `uartN`'s receive line).
//! gpio rows carry all 32 pin levels after the write (bit n = pin n). The CLI writes rows
//! as the run goes ([`IoLogRows`] through `Machine::stream_io`); [`write_retained`] writes a
//! retained event log at once. A device's log ([`write_device`]) has a `processor` column
//! after `time_s` and merges every processor's events in the device's one time.

use crate::measure::signals::sorted;
use crate::periph::io_event::{IoEvent, IoKind};
use crate::scenario_io::{IoScenario, PortDir};
use crate::time::cycle_to_ps;
use std::io::Write;

pub const HEADER: &str = "cycle,time_s,kind,name,value\n";
pub const DEVICE_HEADER: &str = "cycle,time_s,processor,kind,name,value\n";

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
        self.write_row(w, e, None)
    }

    /// A row with the processor's (CSV-ready) name after `time_s`, for a device's log.
    fn write_row(&self, w: &mut impl Write, e: &IoEvent, processor: Option<&str>) -> std::io::Result<()> {
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
        let time = e.cycle as f64 / self.clock;
        match processor {
            None => writeln!(w, "{},{time:e},{},{},{}", e.cycle, e.kind.name(), name, e.value),
            Some(p) => writeln!(w, "{},{time:e},{p},{},{},{}", e.cycle, e.kind.name(), name, e.value),
        }
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

/// One processor's part of a device's io-log: its retained event log (in log order).
pub struct DevicePart<'a> {
    pub processor: &'a str,
    pub scenario: &'a IoScenario,
    pub clock_hz: u64,
    pub events: &'a [IoEvent],
}

/// The whole CSV of a device: every processor's events in the order of the device's time
/// (ps; a processor's cycle counter runs from the start of the device), ties in file order
/// and, within a processor, in its log's time order.
pub fn write_device(parts: &[DevicePart], w: &mut impl Write) -> std::io::Result<()> {
    let sorted_parts: Vec<Vec<IoEvent>> = parts.iter().map(|p| sorted(p.events)).collect();
    let mut order: Vec<(u64, usize, usize)> = sorted_parts
        .iter()
        .zip(parts)
        .enumerate()
        .flat_map(|(k, (events, p))| {
            events.iter().enumerate().map(move |(i, e)| (cycle_to_ps(e.cycle, p.clock_hz), k, i))
        })
        .collect();
    order.sort_unstable();
    let rows: Vec<IoLogRows> = parts.iter().map(|p| IoLogRows::new(p.scenario, p.clock_hz)).collect();
    let names: Vec<String> = parts.iter().map(|p| csv_name(p.processor.to_string())).collect();
    w.write_all(DEVICE_HEADER.as_bytes())?;
    for (_, k, i) in order {
        rows[k].write_row(w, &sorted_parts[k][i], Some(&names[k]))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(cycle: u64, kind: IoKind, index: u8, value: u32) -> IoEvent {
        IoEvent { cycle, kind, index, value }
    }

    #[test]
    fn a_device_log_merges_processors_in_device_time_with_a_processor_column() {
        let sc = IoScenario::default();
        // 25 MHz: 40 ns a cycle; 4 MHz: 250 ns a cycle.
        let fast = [ev(30, IoKind::Gpio, 0, 1), ev(10, IoKind::Output, 0, 7)];
        let slow = [ev(2, IoKind::Input, 1, 5), ev(3, IoKind::Gpio, 0, 0)];
        let parts = [
            DevicePart { processor: "fast", scenario: &sc, clock_hz: 25_000_000, events: &fast },
            DevicePart { processor: "slow,one", scenario: &sc, clock_hz: 4_000_000, events: &slow },
        ];
        let mut out = Vec::new();
        write_device(&parts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], DEVICE_HEADER.trim_end());
        // 400 ns, 500 ns, 750 ns, 1200 ns.
        assert_eq!(
            &lines[1..],
            [
                "10,4e-7,fast,output,out0,7",
                "2,5e-7,\"slow,one\",input,in1,5",
                "3,7.5e-7,\"slow,one\",gpio,gpio,0",
                "30,1.2e-6,fast,gpio,gpio,1",
            ]
        );
    }

    #[test]
    fn ties_go_in_file_order() {
        let sc = IoScenario::default();
        let a = [ev(25, IoKind::Gpio, 0, 1)];
        let b = [ev(4, IoKind::Gpio, 0, 2)];
        let parts = [
            DevicePart { processor: "b", scenario: &sc, clock_hz: 4_000_000, events: &b },
            DevicePart { processor: "a", scenario: &sc, clock_hz: 25_000_000, events: &a },
        ];
        let mut out = Vec::new();
        write_device(&parts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let procs: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(2).unwrap()).collect();
        assert_eq!(procs, ["b", "a"]);
    }
}
