//! The ARMv6-M core of a machine is crate cairn-isa's `armv6m::Core`; re-exported here
//! under the paths the rest of the simulator uses.
pub use cairn_isa::armv6m::{exception, exec, observer};
pub use cairn_isa::{alu, decode, op};
