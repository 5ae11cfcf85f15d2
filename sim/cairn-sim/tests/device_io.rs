//! A device's processors' I/O in `--io-log` and `--vcd` (docs/device.md, "Outputs"): two
//! processors at different clocks run the stimulus → response firmware with its scenario;
//! each one's rows of the device's io-log and its signals in the device's waveform are
//! exactly those of the same firmware run alone, the rows merged in the device's time, and
//! the files are the same for any scheduler quantum.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod firmware;
mod sim_cli;
use firmware::fw_path as fw;
use sim_cli::run;

const TAG: &str = "device-io";

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp(TAG, name)
}

/// The scenario's I/O keys, as kernel/tests/sim/io_response.toml has them.
fn io_keys(prefix: &str) -> String {
    format!(
        "[[{prefix}stimulus]]\nname = \"request\"\nkind = \"periodic\"\nperiod = \"200us\"\nstart = \"150us\"\n\
         count = 20\nline = 0\n[{prefix}port.answer]\nindex = 0\n[{prefix}pin.toggle]\nindex = 0\nedge = \"both\"\n"
    )
}

const PROCS: [(&str, &str); 2] = [("slow", "25MHz"), ("fast", "50MHz")];

fn device_file(elf: &Path) -> PathBuf {
    let mut text = String::from("name = \"io pair\"\n[bus]\n");
    for (name, clock) in PROCS {
        text.push_str(&format!(
            "[[processor]]\nname = \"{name}\"\nfirmware = \"{}\"\nclock = \"{clock}\"\n{}",
            elf.display(),
            io_keys("processor.")
        ));
    }
    let p = tmp("io-pair.toml");
    std::fs::write(&p, text).unwrap();
    p
}

struct Outputs {
    io_log: String,
    vcd: Vec<u8>,
    stats: serde_json::Value,
}

fn outputs(args: &[&str], stem: &str) -> Outputs {
    let (log, vcd, stats) = (tmp(&format!("{stem}.csv")), tmp(&format!("{stem}.vcd")), tmp(&format!("{stem}.json")));
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--io-log", log.to_str().unwrap(), "--vcd", vcd.to_str().unwrap()]);
    all.extend(["--stats", stats.to_str().unwrap()]);
    let (status, _, err) = run(&all);
    assert_eq!(status, 0, "{err}");
    Outputs {
        io_log: std::fs::read_to_string(log).unwrap(),
        vcd: std::fs::read(vcd).unwrap(),
        stats: serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap(),
    }
}

fn alone(elf: &Path, name: &str, clock: &str) -> Outputs {
    let io = tmp("io.toml");
    std::fs::write(&io, io_keys("")).unwrap();
    outputs(&["run", "--io", io.to_str().unwrap(), "--clock", clock, elf.to_str().unwrap()], &format!("alone-{name}"))
}

/// A signal's changes by its scope path: [(time, value)].
fn signal(vcd: &[u8], path: &[&str]) -> Vec<(u64, u64)> {
    let mut p = vcd::Parser::new(vcd);
    let header = p.parse_header().unwrap();
    let code = header.find_var(path).unwrap_or_else(|| panic!("no {path:?}")).code;
    let mut t = 0;
    let mut out = Vec::new();
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => t = x,
            vcd::Command::ChangeVector(c, v) if c == code => {
                out.push((t, u64::from_str_radix(&v.to_string(), 2).unwrap()))
            }
            vcd::Command::ChangeScalar(c, v) if c == code => out.push((t, (v == vcd::Value::V1) as u64)),
            _ => {}
        }
    }
    out
}

#[test]
fn each_processors_io_is_what_it_is_alone_in_the_devices_time() {
    let Some(elf) = fw("test-io_response.elf") else { return };
    let file = device_file(&elf);
    let dev = outputs(&["run", "--device", file.to_str().unwrap()], "device");
    let mut lines = dev.io_log.lines();
    assert_eq!(lines.next(), Some("cycle,time_s,processor,kind,name,value"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let times: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "rows in the device's time");
    let mut by_proc: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in &rows {
        let mut rest = r.clone();
        let p = rest.remove(2);
        by_proc.entry(p).or_default().push(rest.join(","));
    }
    for (name, clock) in PROCS {
        let one = alone(&elf, name, clock);
        let expect: Vec<String> = one.io_log.lines().skip(1).map(String::from).collect();
        assert!(expect.len() > 60, "{name}: stimuli, answers and toggles");
        assert_eq!(by_proc[name], expect, "{name}'s rows");
        for path in [["gpio", "toggle"], ["ports", "answer"], ["stimulus", "request"]] {
            let mine = signal(&dev.vcd, &["io_pair", name, path[0], path[1]]);
            assert!(mine.len() > 20, "{name} {path:?}: {mine:?}");
            assert_eq!(mine, signal(&one.vcd, &["cairn", path[0], path[1]]), "{name} {path:?}");
        }
        // The measurements are the same whether the stats stream the events or the io-log
        // keeps them.
        assert_eq!(dev.stats["processors"][name]["io"], one.stats["io"], "{name}'s io stats");
    }
    // The two toggle at their own clocks: 2500 cycles apart, 100 µs and 50 µs.
    let toggles = |name| signal(&dev.vcd, &["io_pair", name, "gpio", "toggle"]);
    assert_eq!(toggles("slow")[2].0 - toggles("slow")[1].0, 100_000_000);
    assert_eq!(toggles("fast")[2].0 - toggles("fast")[1].0, 50_000_000);
}

#[test]
fn the_io_outputs_do_not_depend_on_the_quantum() {
    let Some(elf) = fw("test-io_response.elf") else { return };
    let file = device_file(&elf);
    let base = outputs(&["run", "--device", file.to_str().unwrap()], "q-base");
    let small = outputs(&["run", "--device", file.to_str().unwrap(), "--quantum", "3us"], "q-small");
    assert_eq!(base.io_log, small.io_log);
    assert!(base.vcd == small.vcd, "waveform");
}

#[test]
fn a_device_without_io_has_an_io_log_of_its_header() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    let file = tmp("plain.toml");
    let mut text = String::from("name = \"plain\"\n[bus]\n");
    for name in ["hub", "leaf"] {
        text.push_str(&format!("[[processor]]\nname = \"{name}\"\nfirmware = \"{}\"\n", elf.display()));
    }
    std::fs::write(&file, text).unwrap();
    let log = tmp("plain.csv");
    let (status, _, err) = run(&["run", "--device", file.to_str().unwrap(), "--io-log", log.to_str().unwrap()]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(std::fs::read_to_string(log).unwrap(), "cycle,time_s,processor,kind,name,value\n");
}
