//! Running the `cairn-sim` binary from the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

pub const SIM: &str = env!("CARGO_BIN_EXE_cairn-sim");

/// Run `cairn-sim` with `args`: (exit status, stdout, stderr); -1 when killed by a signal.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(SIM).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// A scratch path `name` in a folder of this test binary and process (`tag` names the test
/// file, so concurrent test binaries never share a folder).
pub fn tmp(tag: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cairn-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}
