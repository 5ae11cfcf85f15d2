//! Firmware built by `make build` (build/fw) for the integration tests that run real
//! programs. `make test` builds it first; a plain `cargo test` may run without it, and
//! then those tests say so and skip rather than fail.
#![allow(dead_code)]

use std::path::PathBuf;

/// Path of build/fw/`name`, or None (with a note on stderr) when it is not built.
pub fn fw_path(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/fw").join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not built (run `make build`)", p.display());
        None
    }
}

/// Contents of build/fw/`name`, or None when it is not built.
pub fn fw_bytes(name: &str) -> Option<Vec<u8>> {
    let p = fw_path(name)?;
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}
