//! `--io-log`: CSV of I/O events, one row each, in time order:
//! `cycle,time_s,kind,name,value` with kind one of stimulus, input, adc, output, gpio.
//! gpio rows carry all 32 pin levels after the write (bit n = pin n).

use crate::machine::Machine;
use crate::measure::signals::sorted;
use crate::periph::cairn_io::IoKind;
use crate::scenario_io::PortDir;
use std::io::Write;

pub fn write_io_log(m: &Machine, w: &mut impl Write) -> std::io::Result<()> {
    let sc = &m.io.scenario;
    let clock = m.config.clock_hz as f64;
    writeln!(w, "cycle,time_s,kind,name,value")?;
    for e in sorted(&m.io.events) {
        let name = match e.kind {
            IoKind::Stimulus => sc.stimulus_name(e.index),
            IoKind::Input => sc.port_name(e.index, PortDir::In),
            IoKind::Output => sc.port_name(e.index, PortDir::Out),
            IoKind::Adc => format!("adc{}", e.index),
            IoKind::Gpio => "gpio".to_string(),
        };
        // Names come from TOML keys: quote any that would break the CSV.
        let name = if name.contains([',', '"', '\n']) { format!("\"{}\"", name.replace('"', "\"\"")) } else { name };
        writeln!(w, "{},{:e},{},{},{}", e.cycle, e.cycle as f64 / clock, e.kind.name(), name, e.value)?;
    }
    Ok(())
}
