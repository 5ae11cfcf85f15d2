//! cairn-isa: the ARMv6-M (Cortex-M0+) instruction set as data and pure functions — the
//! decoder from Thumb encodings to predecoded operations (`decode`, `op`: each `Op` carries
//! its kind, operands and Cortex-M0+ cycle cost) and the ALU (`alu`: add with carry, the
//! shifts, with their flags). It knows no processor state, memory, device or observer:
//! cairn-sim's core executes what it decodes.

pub mod alu;
pub mod decode;
pub mod op;
