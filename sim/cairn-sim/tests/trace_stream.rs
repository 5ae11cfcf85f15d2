//! `--trace` is written as the run goes (crate cairn-observe, `trace`): memory stays bounded, a task's
//! track is named before its first slice, every slice is closed by the end, and a write
//! error ends the run early instead of being found after it. Real firmware from
//! build/fw (`make build`).

use cairn_sim::config::BoardConfig;
use cairn_sim::trace::TraceLog;
use cairn_sim::Machine;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod firmware;
use firmware::fw_bytes as fw;

fn machine(elf: &[u8], trace: TraceLog, cycles: u64) -> Machine {
    let mut m = Machine::new(BoardConfig::mps2_an385());
    cairn_sim::elf::load_elf(&mut m, elf).unwrap();
    m.trace = Some(trace);
    m.cycle_limit = cycles;
    m.reset();
    m
}

#[test]
fn task_tracks_are_named_first_and_every_slice_closes() {
    let Some(elf) = fw("hello.elf") else { return };
    // 300 ms: the hello example's timer fires twice (125 ms period), each firing a handler
    // slice of the timer task and one of the hello task.
    let mut m = machine(&elf, TraceLog::in_memory(25_000_000), 7_500_000);
    m.run(u64::MAX);
    let end = m.cycles;
    let bytes = m.trace.take().unwrap().finish(end, "trace").unwrap();
    let json: Value = serde_json::from_slice(&bytes).expect("the trace is one JSON document");
    let events = json["traceEvents"].as_array().unwrap();
    let mut named = BTreeSet::new();
    let mut depth: BTreeMap<u64, i64> = BTreeMap::new();
    let mut task_slices = 0;
    for e in events {
        let tid = e["tid"].as_u64().unwrap_or(0);
        match e["ph"].as_str().unwrap() {
            "M" if e["name"] == "thread_name" => {
                named.insert(tid);
            }
            "B" => {
                assert!(named.contains(&tid), "slice on unnamed track {tid}: {e}");
                *depth.entry(tid).or_default() += 1;
                task_slices += (tid >= 16) as i32;
            }
            "E" => {
                let d = depth.entry(tid).or_default();
                *d -= 1;
                assert!(*d >= 0, "slice ended twice on track {tid}: {e}");
            }
            _ => {}
        }
    }
    assert!(depth.values().all(|&d| d == 0), "open slices at the end: {depth:?}");
    assert!(task_slices >= 4, "expected the timer and hello tasks' handler slices, got {task_slices}");
}

#[test]
fn a_write_error_ends_the_run_early() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let Some(elf) = fw("bench_wfi.elf") else { return };
    // 1 kHz timer interrupts: a few hundred bytes of trace per simulated millisecond fill
    // the output buffer within the first simulated second of the ten allowed.
    let trace = TraceLog::create(Path::new("/dev/full"), 25_000_000).unwrap();
    let mut m = machine(&elf, trace, 250_000_000);
    m.run(u64::MAX);
    assert!(m.cycles < 25_000_000, "ran on to cycle {}", m.cycles);
    let end = m.cycles;
    let e = m.trace.take().unwrap().finish(end, "/dev/full").unwrap_err();
    assert!(e.starts_with("cannot write /dev/full: ") && e.contains("os error 28"), "{e}");
}
