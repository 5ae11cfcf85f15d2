//! cairn-input: what users give cairn-sim, read and checked the same way everywhere: input
//! files with bounded reads, numbers with units (durations, frequencies, sizes, rates,
//! counts) from the command line or TOML, and TOML errors as one line. Depends on nothing
//! of the simulator.

pub mod input_file;
pub mod toml_error;
pub mod units;
