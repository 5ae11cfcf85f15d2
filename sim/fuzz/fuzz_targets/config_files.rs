//! Arbitrary bytes as a board file and as a device file: refused with an error or
//! accepted, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cairn_sim_fuzz::config_files(data);
});
