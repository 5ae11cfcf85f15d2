//! The ARMv6-M (Cortex-M0+) core: `Core<S>`, executing predecoded operations on its
//! registers and memories with the Cortex-M0+ TRM's cycle costs, the exception model,
//! and the two interfaces through which it meets the rest of a processor — `Bus` (system
//! space, devices, semihosting: implemented by the processor) and `Observer` (who watches
//! it). It knows nothing of energy, traces, stimuli or boards.

pub use super::{alu, decode, op};
pub mod bus;
pub mod core;
pub mod cpu;
pub mod exception;
pub mod exec;
pub mod memory;
pub mod observer;
pub mod stop;

pub use self::bus::Bus;
pub use self::core::{Core, CoreConfig, ExceptionTiming, PAGE_CODE, PAGE_WATCH};
pub use self::cpu::{Cpu, Reg};
pub use self::observer::{NoObserver, Observer};
pub use self::stop::{FaultKind, Stop};
