//! The ARMv6-M (Cortex-M0+) core of a machine: executing predecoded operations on the
//! machine's registers and memory, exceptions, and the observer interface through which it
//! reports its events. The instruction set itself (decoder, operations, ALU) is crate
//! cairn-isa.
pub use cairn_isa::{alu, decode, op};
pub mod exception;
pub mod exec;
pub mod observer;
