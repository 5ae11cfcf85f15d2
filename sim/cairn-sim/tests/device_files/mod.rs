//! Device files written by the device tests, device runs with every output captured, and
//! the bus log's columns.
#![allow(dead_code)]

use crate::sim_cli::{run, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A device file `name` of processors (name, ELF, clock) with `bus` keys and `extra` TOML
/// appended, in the scratch folder of test file `tag`.
pub fn device(tag: &str, name: &str, bus: &str, procs: &[(&str, &Path, &str)], extra: &str) -> PathBuf {
    let mut text = format!("name = \"{name}\"\n[bus]\n{bus}\n");
    for (n, elf, clock) in procs {
        text.push_str(&format!(
            "[[processor]]\nname = \"{n}\"\nfirmware = \"{}\"\nclock = \"{clock}\"\n",
            elf.display()
        ));
    }
    text.push_str(extra);
    let p = tmp(tag, &format!("{name}.toml"));
    std::fs::write(&p, text).unwrap();
    p
}

pub struct Run {
    pub status: i32,
    pub out: String,
    pub err: String,
    pub stats: Value,
    pub frames: Vec<Vec<String>>,
    pub trace: Vec<u8>,
    pub vcd: Vec<u8>,
}

/// Run a device with --stats and --bus-log (and --trace and --vcd when `outputs`), then
/// `extra` options; missing outputs read as empty.
pub fn run_device(tag: &str, file: &Path, outputs: bool, extra: &[&str]) -> Run {
    let stem = file.file_stem().unwrap().to_str().unwrap().to_string() + &extra.join("");
    let p = |ext: &str| tmp(tag, &format!("{stem}.{ext}"));
    let (s, log, t, v) = (p("stats.json"), p("csv"), p("trace.json"), p("vcd"));
    let mut args = vec!["run", "--device", file.to_str().unwrap()];
    for (opt, path) in [("--stats", &s), ("--bus-log", &log), ("--trace", &t), ("--vcd", &v)] {
        if outputs || matches!(opt, "--stats" | "--bus-log") {
            args.extend([opt, path.to_str().unwrap()]);
        }
    }
    args.extend_from_slice(extra);
    let (status, out, err) = run(&args);
    let stats = serde_json::from_str(&std::fs::read_to_string(&s).unwrap_or_else(|_| "null".into())).unwrap();
    let frames = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    Run { status, out, err, stats, frames, trace: read(&t), vcd: read(&v) }
}

/// The stats without the host's figures (time, speed, windows run): what must be the same
/// however the run was scheduled or debugged.
pub fn simulated(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "host_seconds" | "mips" | "windows"))
                .map(|(k, v)| (k.clone(), simulated(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(simulated).collect()),
        other => other.clone(),
    }
}

pub fn num(row: &[String], col: usize) -> u64 {
    row[col].parse().unwrap()
}

// Columns of --bus-log.
pub const ID: usize = 0;
pub const SRC: usize = 1;
pub const DST: usize = 2;
pub const BYTES: usize = 3;
pub const POWER: usize = 4;
pub const QUEUED: usize = 5;
pub const START: usize = 6;
pub const ARRIVAL: usize = 7;
pub const STALLS: usize = 8;
pub const DROPPED: usize = 9;
