//! The ARMv6-M (Cortex-M0+) core.
pub mod alu;
pub mod decode;
pub mod exception;
pub mod exec;
pub mod observer;
pub mod op;
