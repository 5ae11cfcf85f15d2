//! A device: N processors, each a machine with its own firmware, clock, board and
//! observers, joined by an mPlatform-style TDMA bus, advanced together in one global order
//! of simulated time (docs/device.md).
//!
//! `file` reads the device file; `bus` is the interconnect; `faults` the injected faults;
//! `cosim` the scheduler that runs the processors and the bus; `report` the device's
//! statistics; `outputs` its trace and waveform.

pub mod bus;
pub mod cosim;
pub mod faults;
pub mod file;
pub mod outputs;
pub mod report;
