//! Observers of a run's I/O: the stream that hands drained events (and the power and
//! exception timeline) in time order to the measurements (`crate::measure`), the `--io-log`
//! CSV and the `--vcd` waveform, and a processor's part of a device's waveform (`io_waves`).
//! They read events; they never reach into the devices or the machine, which drains its
//! buffers into them (`crate::io_system`).
pub mod io_log;
pub mod io_waves;
pub mod stream;
pub mod timeline;
pub mod vcd;
