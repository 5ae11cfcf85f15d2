//! Arbitrary bytes as register values and Thumb code: decoding and executing must never
//! panic (faults and lockups are normal outcomes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cairn_sim_fuzz::decode_exec(data);
});
