//! cairn-isa: the instruction-set cores of cairn-sim. The ARMv6-M (Cortex-M0+) instruction
//! set as data and pure functions — the decoder from Thumb encodings to predecoded
//! operations (`decode`, `op`: each `Op` carries its kind, operands and Cortex-M0+ cycle
//! cost) and the ALU (`alu`) — and the core that executes them (`armv6m`: the `Cpu` trait
//! and `Core<S>` over the processor's `Bus`). It knows no energy, trace, stimulus or board.

pub mod alu;
pub mod armv6m;
pub mod decode;
pub mod op;
