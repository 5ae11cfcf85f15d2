//! cairn-io: a processor's Cairn I/O above its devices — the I/O section of a scenario,
//! parsed (`scenario_io`); the drivers that feed the devices from it (`stimuli`: seeded
//! stimulus generators, input-port deliveries, ADC signal sources); the measurements made
//! on the I/O events in time order (`measure`: jitter, delay, idle); and the other
//! observers of those events (`observe`: the stream that feeds the measurements, the
//! io-log CSV, the VCD, the power and exception timeline), with the complete-or-absent
//! output files they write (`out_file`). A crate of its own on the devices and the input
//! checks: it cannot reach the machine that drains the events into it.

pub use cairn_devices as periph;
pub use cairn_devices::time;
pub use cairn_input::{input_file, toml_error, units};

pub mod measure;
pub mod observe;
pub mod out_file;
pub mod scenario_io;
pub mod stimuli;
