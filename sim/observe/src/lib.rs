//! cairn-observe: what watches a processor, as state and models that know no processor —
//! the energy model (profiles, voltage ranges, current curves, rates in exact femtojoules,
//! code categories) and its accounting state (`energy`), the Perfetto/Chrome trace writer
//! (`trace`), idle periods (`idle`), the main stack against its limit (`stack`). The
//! processor (crate cairn-sim) attaches them to its core and feeds them its events; the I/O
//! observers (measurements, I/O log, VCD) are in crate cairn-io.

pub mod energy;
pub mod idle;
pub mod stack;
pub mod trace;
