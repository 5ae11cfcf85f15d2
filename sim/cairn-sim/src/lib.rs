//! cairn-sim: a cycle-accurate simulator of Cortex-M0+ (ARMv6-M) boards and devices of
//! several of them that runs unmodified firmware ELF files. This library is the processor
//! (`machine`: a core of crate cairn-isa with its board, devices and attached observers,
//! and its reports) and the device (`device`: N processors, the bus, the scheduler); the
//! `cairn-sim` command (`main.rs`, `device_run.rs`) sits on top of it.

pub mod attached;
pub use cairn_board as board;
#[cfg(test)]
mod board_tests;
pub mod config;
pub use cairn_console as console;
pub mod cpu;
pub mod device;
pub mod devices;
pub mod dwarf;
pub mod elf;
pub mod energy;
pub mod exec_cases;
pub mod gdb;
pub use cairn_input::input_file;
pub use cairn_observe::idle;
pub use cairn_observe::stack;
pub mod io;
pub mod io_system;
pub mod machine;
pub mod report;
pub use cairn_devices as periph;
pub use cairn_io::measure;
pub use cairn_io::observe;
pub use cairn_io::out_file;
pub mod rtos;
pub mod scenario;
pub use cairn_io::scenario_io;
pub mod semihost;
pub mod stack_guard;
pub use cairn_io::stimuli;
pub mod symbols;
pub use cairn_devices::time;
pub use cairn_input::toml_error;
pub use cairn_input::units;
pub use cairn_observe::trace;
pub mod uart_rx;

pub use config::BoardConfig;
pub use machine::{Machine, Stop};
