//! Arbitrary bytes as a firmware ELF: loading must fail cleanly or load, and a loaded
//! image must then run for a while without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cairn_sim_fuzz::elf_load(data);
});
