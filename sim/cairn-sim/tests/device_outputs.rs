//! A device's `--trace` and `--vcd` (docs/device.md, "Outputs") on the device test
//! firmware: one trace process per processor, named, in file order; bus frames as flows
//! that start at the bus log's start and end at its arrival; powered-off periods and
//! injected faults; a processor's part the same as its trace alone; the same files for any
//! scheduler quantum; a waveform with a scope per processor and the bus, whose `busy` rises
//! once per frame.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod device_files;
mod firmware;
mod sim_cli;
use device_files::*;
use firmware::fw_path as fw;
use sim_cli::run;

const TAG: &str = "device-outputs";

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp(TAG, name)
}

fn device(name: &str, bus: &str, procs: &[(&str, &Path, &str)], extra: &str) -> PathBuf {
    device_files::device(TAG, name, bus, procs, extra)
}

/// Run a device with --trace, --vcd, --stats and --bus-log.
fn run_device(file: &Path, extra: &[&str]) -> Run {
    device_files::run_device(TAG, file, true, extra)
}

fn events(r: &Run) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&r.trace).expect("the trace is JSON");
    v["traceEvents"].as_array().unwrap().clone()
}

/// A trace time stamp (µs, printed with 6 decimals) in ps.
fn ps(ts: &Value) -> u64 {
    (ts.as_f64().unwrap() * 1e6).round() as u64
}

fn five_modules() -> Option<PathBuf> {
    fw("device-broadcast.elf")?;
    Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../experiments/devices/five-modules.toml"))
}

const FIVE: [&str; 5] = ["main", "radio", "sensor", "storage", "audio"];

#[test]
fn trace_has_a_named_process_per_processor_in_file_order() {
    let Some(file) = five_modules() else { return };
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let ev = events(&r);
    let meta = |name: &str| -> BTreeMap<u64, Value> {
        ev.iter()
            .filter(|e| e["ph"] == "M" && e["name"] == name)
            .map(|e| (e["pid"].as_u64().unwrap(), e["args"].clone()))
            .collect()
    };
    let names: Vec<(u64, String)> =
        meta("process_name").into_iter().map(|(p, a)| (p, a["name"].as_str().unwrap().to_string())).collect();
    assert_eq!(names, FIVE.iter().enumerate().map(|(i, n)| (i as u64 + 1, n.to_string())).collect::<Vec<_>>());
    let order: Vec<(u64, u64)> =
        meta("process_sort_index").iter().map(|(p, a)| (*p, a["sort_index"].as_u64().unwrap())).collect();
    assert_eq!(order, (1..=5).map(|p| (p, p - 1)).collect::<Vec<_>>());
    assert!(ev.iter().all(|e| (1..=5).contains(&e["pid"].as_u64().unwrap())));
    // Every module sleeps between frames: each process has its power track's slices, and the
    // main module's interrupt handlers.
    for pid in 1..=5u64 {
        assert!(ev.iter().any(|e| e["pid"] == pid && e["ph"] == "X" && e["tid"] == 2), "pid {pid}");
    }
    assert!(ev.iter().any(|e| e["pid"] == 1 && e["ph"] == "B" && e["name"] == "IRQ24"));
}

#[test]
fn flows_pair_up_and_follow_the_bus_log() {
    let Some(file) = five_modules() else { return };
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let ev = events(&r);
    let flows = |ph: &str| -> BTreeMap<u64, &Value> {
        let list: Vec<&Value> = ev.iter().filter(|e| e["ph"] == ph).collect();
        let map: BTreeMap<u64, &Value> = list.iter().map(|e| (e["id"].as_u64().unwrap(), *e)).collect();
        assert_eq!(map.len(), list.len(), "one {ph} per id");
        map
    };
    let (starts, ends) = (flows("s"), flows("f"));
    assert_eq!(starts.keys().collect::<Vec<_>>(), ends.keys().collect::<Vec<_>>(), "every s has its f");
    let index = |name: &str| FIVE.iter().position(|n| *n == name).unwrap() as u64;
    // 4 broadcasts reach the 4 other modules, 16 acknowledgements reach the main one.
    assert_eq!(starts.len(), 4 * 4 + 16);
    let mut seen = BTreeSet::new();
    for f in &r.frames {
        let id = num(f, ID);
        let receivers: Vec<u64> =
            if f[DST] == "*" { (0..5).filter(|&p| p != index(&f[SRC])).collect() } else { vec![index(&f[DST])] };
        for to in receivers {
            let flow = id * 5 + to;
            seen.insert(flow);
            let (s, e) = (starts[&flow], ends[&flow]);
            assert_eq!(s["pid"].as_u64(), Some(index(&f[SRC]) + 1), "frame {f:?}");
            assert_eq!(e["pid"].as_u64(), Some(to + 1), "frame {f:?}");
            assert_eq!(ps(&s["ts"]), num(f, START), "frame {f:?}");
            assert_eq!(ps(&e["ts"]), num(f, ARRIVAL), "frame {f:?}");
            assert_eq!(e["bp"], "e");
            // Each end lies in a slice on its track that starts with it.
            assert!(ev.iter().any(|x| x["ph"] == "X"
                && x["pid"] == e["pid"]
                && x["tid"] == e["tid"]
                && x["ts"] == e["ts"]
                && x["dur"].as_f64().unwrap() > 0.0));
        }
        // The sender's slice covers the frame from its start to its arrival.
        let slice = ev
            .iter()
            .find(|x| x["ph"] == "X" && x["name"].as_str().unwrap().starts_with(&format!("frame #{id} → ")))
            .unwrap();
        assert_eq!(ps(&slice["ts"]), num(f, START));
        assert_eq!(ps(&slice["ts"]) + ps(&slice["dur"]), num(f, ARRIVAL));
    }
    assert_eq!(seen.len(), starts.len());
}

#[test]
fn trace_and_waveform_are_the_same_for_any_scheduler_quantum() {
    let Some(file) = five_modules() else { return };
    let base = run_device(&file, &[]);
    assert_eq!(base.status, 0, "{}", base.err);
    for q in ["1us", "300ns"] {
        let r = run_device(&file, &["--quantum", q]);
        assert!(r.trace == base.trace, "trace, quantum {q}");
        assert!(r.vcd == base.vcd, "waveform, quantum {q}");
    }
}

/// The events of process `pid`, metadata aside, with pid 1: what a lone trace holds.
fn events_of(ev: &[Value], pid: u64) -> Vec<Value> {
    ev.iter()
        .filter(|e| e["pid"] == pid && e["ph"] != "M")
        .map(|e| {
            let mut e = e.clone();
            e["pid"] = 1.into();
            e
        })
        .collect()
}

#[test]
fn a_processor_shows_what_its_trace_alone_shows() {
    let Some(hello) = fw("hello-8.elf") else { return };
    let energy = "[processor.energy]\nprofile = \"stm32l053\"\n";
    let second = format!(
        "{energy}[[processor]]\nname = \"os\"\nfirmware = \"{}\"\nclock = \"25MHz\"\n{energy}",
        hello.display()
    );
    let file = device("alone", "", &[("slow", &hello, "4MHz")], &second);
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let single = tmp("hello-alone.json");
    let (status, _, err) =
        run(&["run", "--energy", "stm32l053", "--trace", single.to_str().unwrap(), hello.to_str().unwrap()]);
    assert_eq!(status, 0, "{err}");
    let alone: Value = serde_json::from_slice(&std::fs::read(&single).unwrap()).unwrap();
    let alone = events_of(alone["traceEvents"].as_array().unwrap(), 1);
    assert!(alone.iter().any(|e| e["name"] == "supply current (uA)"), "the energy profile's counters");
    assert!(alone.iter().any(|e| e["ph"] == "B" && e["name"] == "task 1"), "kernel task slices");
    assert!(alone.iter().any(|e| e["ph"] == "X" && e["name"] == "deep sleep"), "sleep slices");
    assert_eq!(events_of(&events(&r), 2), alone);
}

#[test]
fn powered_off_periods_and_injected_faults_are_drawn() {
    let Some(elf) = fw("device-power.elf") else { return };
    let file = device("power", "", &[("a", &elf, "32MHz"), ("b", &elf, "4MHz")], "");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let ev = events(&r);
    let off: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X" && e["name"] == "off").collect();
    assert_eq!(off.len(), 2, "b powers itself off, then a powers it off");
    assert!(off.iter().all(|e| e["pid"] == 2 && e["tid"] == 2));
    // b is off until a frame or a power frame to it arrives (then at its next 4 MHz cycle).
    let wakes: Vec<u64> =
        r.frames.iter().filter(|f| f[DST] == "b" && f[POWER] != "off").map(|f| num(f, ARRIVAL)).collect();
    for e in &off {
        let end = ps(&e["ts"]) + ps(&e["dur"]);
        assert!(wakes.iter().any(|&w| end >= w && end - w < 250_000), "off until {end}: {wakes:?}");
    }

    let Some(stream) = fw("device-stream.elf") else { return };
    let Some(hello) = fw("hello-8.elf") else { return };
    let file = device(
        "faults",
        "",
        &[("tx", &stream, "32MHz"), ("rx", &stream, "32MHz"), ("os", &hello, "25MHz")],
        "[[fault]]\naction = \"reset\"\nprocessor = \"os\"\nat = \"2ms\"\n\
         [[fault]]\naction = \"power_off\"\nprocessor = \"rx\"\nat = \"100us\"\n\
         [[fault]]\naction = \"drop\"\nevery = 3\nsrc = \"tx\"\n",
    );
    let r = run_device(&file, &["--max-time", "60ms"]);
    let ev = events(&r);
    let injected: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "i" && e["name"] == "injected fault").collect();
    assert_eq!(injected.len(), r.stats["faults"].as_array().unwrap().len(), "{}", r.err);
    let at = |pid: u64, what: &str| {
        injected.iter().find(|e| e["pid"] == pid && e["args"]["what"] == what).map(|e| ps(&e["ts"]))
    };
    assert_eq!(at(3, "reset (fault rule 0)"), Some(2_000_000_000));
    assert_eq!(at(2, "power_off (fault rule 1)"), Some(100_000_000));
    let dropped: Vec<&Vec<String>> = r.frames.iter().filter(|f| f[DROPPED] == "1").collect();
    assert_eq!(dropped.len(), 3);
    for f in dropped {
        assert_eq!(at(1, &format!("drop of frame #{} (fault rule 2)", f[ID])), Some(num(f, START)));
        // A dropped frame reaches no one: no flow.
        let flow = num(f, ID) * 3 + 1;
        assert!(!ev.iter().any(|e| e["ph"] == "s" && e["id"] == flow));
    }
    assert!(ev.iter().any(|e| e["pid"] == 2 && e["ph"] == "X" && e["name"] == "off" && ps(&e["ts"]) == 100_000_000));
}

/// Each signal's changes: code → [(time, value)], `x` as None.
type Changes = BTreeMap<vcd::IdCode, Vec<(u64, Option<u64>)>>;

/// The waveform's header and changes.
fn changes(vcd: &[u8]) -> (vcd::Header, Changes) {
    let mut p = vcd::Parser::new(vcd);
    let header = p.parse_header().unwrap();
    let mut t = 0;
    let mut out = Changes::new();
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => t = x,
            vcd::Command::ChangeVector(c, v) => {
                out.entry(c).or_default().push((t, u64::from_str_radix(&v.to_string(), 2).ok()));
            }
            vcd::Command::ChangeScalar(c, v) => {
                let v = match v {
                    vcd::Value::V0 => Some(0),
                    vcd::Value::V1 => Some(1),
                    _ => None,
                };
                out.entry(c).or_default().push((t, v));
            }
            _ => {}
        }
    }
    (header, out)
}

#[test]
fn waveform_has_a_scope_per_processor_and_the_bus() {
    let Some(file) = five_modules() else { return };
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let (header, ch) = changes(&r.vcd);
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::PS)));
    let code = |path: &[&str]| header.find_var(path).unwrap_or_else(|| panic!("no {path:?}")).code;
    for name in FIVE {
        let state = &ch[&code(&["five_modules", name, "state"])];
        assert!(state.iter().any(|c| c.1 == Some(1) || c.1 == Some(2)), "{name} sleeps: {state:?}");
    }
    code(&["five_modules", "main", "irq24_active"]);
    let busy = &ch[&code(&["five_modules", "bus", "busy"])];
    let rises: Vec<u64> = busy.windows(2).filter(|w| w[0].1 == Some(0) && w[1].1 == Some(1)).map(|w| w[1].0).collect();
    let starts: Vec<u64> = r.frames.iter().map(|f| num(f, START)).collect();
    assert_eq!(rises, starts, "busy rises once per frame, at its start");
    assert_eq!(busy.iter().filter(|c| c.1 == Some(0)).count(), starts.len() + 1, "and falls once");
    // The sender's address while the frame is on the wire, x between frames.
    let src = &ch[&code(&["five_modules", "bus", "src"])];
    assert_eq!(src[0], (0, None));
    let senders: Vec<Option<u64>> = src.iter().filter(|c| c.1.is_some()).map(|c| c.1).collect();
    let expect: Vec<Option<u64>> =
        r.frames.iter().map(|f| Some(FIVE.iter().position(|n| *n == f[SRC]).unwrap() as u64)).collect();
    assert_eq!(senders, expect);
    let dst = &ch[&code(&["five_modules", "bus", "dst"])];
    assert_eq!(dst.iter().filter(|c| c.1 == Some(0xff)).count(), 4, "4 broadcasts");
    // The main module's FIFO fills with acknowledgements and empties again.
    let rx = &ch[&code(&["five_modules", "bus", "rx_main"])];
    assert!(rx.iter().any(|c| c.1 >= Some(1)));
    assert_eq!(rx.last().unwrap().1, Some(0));
}

#[test]
fn waveform_shows_a_module_off() {
    let Some(elf) = fw("device-power.elf") else { return };
    let file = device("power-vcd", "", &[("a", &elf, "32MHz"), ("b", &elf, "4MHz")], "");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let (header, ch) = changes(&r.vcd);
    let b = &ch[&header.find_var(&["power_vcd", "b", "state"]).unwrap().code];
    assert_eq!(b.iter().filter(|c| c.1 == Some(3)).count(), 2, "{b:?}");
}

#[test]
fn a_module_that_starts_off_is_off_from_the_start() {
    let Some(elf) = fw("device-power.elf") else { return };
    let file = device("start-off", "", &[("a", &elf, "32MHz"), ("b", &elf, "4MHz")], "power = \"off\"\n");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let ev = events(&r);
    let first = ev.iter().find(|e| e["pid"] == 2 && e["ph"] == "X" && e["name"] == "off").unwrap();
    assert_eq!(ps(&first["ts"]), 0);
    // Until the first frame to it arrives (then at its next 4 MHz cycle).
    let wake = r.frames.iter().find(|f| f[DST] == "b").map(|f| num(f, ARRIVAL)).unwrap();
    assert_eq!(ps(&first["dur"]), wake.div_ceil(250_000) * 250_000);
    let (header, ch) = changes(&r.vcd);
    let b = &ch[&header.find_var(&["start_off", "b", "state"]).unwrap().code];
    assert_eq!(b[0], (0, Some(3)));
    assert_eq!(b[1], (wake.div_ceil(250_000) * 250_000, Some(0)));
}
