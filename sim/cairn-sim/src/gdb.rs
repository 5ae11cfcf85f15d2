//! GDB remote protocol server (placeholder until the gdbstub target lands).
use crate::machine::{Machine, Stop};

pub fn serve(_m: &mut Machine, _port: u16, _max_instructions: Option<u64>) -> Result<Stop, String> {
    Err("debugging is not available in this build yet".into())
}
