//! Per-task attribution for RTOSes other than Cairn OS (docs/rtos.md): any kernel that keeps
//! a pointer to the current task's control block in a global. `spec` parses `--rtos`,
//! `resolve` finds the pointer and the task name in the ELF's DWARF, `watch` follows the
//! pointer's stores during the run.

pub mod resolve;
pub mod spec;
pub mod watch;

pub use resolve::{resolve, Flag, Layout, NameField, NameKind};
pub use spec::RtosSpec;
pub use watch::{Task, Watch};
