//! The simulator's modules form layers whose dependencies point one way, so that they can
//! become separate crates. The devices (crate cairn-devices, re-exported as `periph`, with the
//! `time` base) and the console (crate cairn-console) already are: the compiler refuses an
//! upward import there; so are the board files (cairn-board), the input checks
//! (cairn-input) and the I/O above the devices (cairn-io). Inside cairn-io: the scenario's
//! drivers (`stimuli`) know the devices only; the observers of I/O events (`observe`,
//! `measure`) know the events, the scenario and the drivers' time base. Inside cairn-sim:
//! the device layer sits on the processor. The instruction-set core (crate cairn-isa) knows
//! no observer of it (energy, traces, timelines, task following, measurements), which
//! attach through its observer interface, and no board or machine, which it reaches through
//! its `Bus` trait. This scans every source file's `crate::` paths against the modules
//! its layer may use, and the core's code for the observers' names.

use std::path::{Path, PathBuf};

/// (folder or file under sim/, the top-level modules its files may name after `crate::`).
const LAYERS: &[(&str, &[&str])] = &[
    ("io/src/stimuli", &["stimuli", "periph", "time", "input_file"]),
    ("io/src/observe", &["observe", "measure", "periph", "stimuli", "scenario_io", "time", "out_file"]),
    ("io/src/measure", &["observe", "measure", "periph", "stimuli", "scenario_io", "time", "out_file"]),
    // The device (processors, bus, scheduler, its outputs) sits on the processor, its
    // observers and its reports. The debugger and the CLI drive a device, not the reverse.
    (
        "cairn-sim/src/device",
        &[
            "device",
            "machine",
            "periph",
            "console",
            "units",
            "toml_error",
            "scenario",
            "input_file",
            "stimuli",
            "observe",
            "trace",
            "time",
            "report",
        ],
    ),
];

/// The source without its `//` comments (which may name any module).
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules a source text names as `crate::name` or in `crate::{a, b::c}`.
fn crate_modules(text: &str) -> Vec<String> {
    let text = code(text);
    let mut names = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                names.push(name);
            }
        } else {
            names.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// Files under `p` (itself if a file), without unit-test files (`tests.rs`), which are
/// compiled only into the test binary and may reach any layer.
fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.file_name().is_some_and(|n| n == "tests.rs") {
        return;
    }
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            rust_files(&e.unwrap().path(), out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// "file: crate::name" for each use outside `allowed`.
fn violations(file: &str, text: &str, allowed: &[&str]) -> Vec<String> {
    let mut bad: Vec<String> = crate_modules(text)
        .into_iter()
        .filter(|n| !allowed.contains(&n.as_str()))
        .map(|n| format!("{file}: crate::{n}"))
        .collect();
    // A path that climbs out of the layer's folder would escape the scan.
    if code(text).contains("super::super") {
        bad.push(format!("{file}: super::super"));
    }
    bad.dedup();
    bad
}

#[test]
fn each_layer_uses_only_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut bad = Vec::new();
    for (place, allowed) in LAYERS {
        let mut files = Vec::new();
        rust_files(&src.join(place), &mut files);
        assert!(!files.is_empty(), "nothing found at sim/{place}");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let name = f.strip_prefix(&src).unwrap().display().to_string();
            bad.extend(violations(&name, &text, allowed));
        }
    }
    assert!(bad.is_empty(), "imports against the layering:\n{}", bad.join("\n"));
}

#[test]
fn the_scan_sees_every_form_of_import() {
    let devices = &["periph", "time"];
    let text = "use crate::measure::report::Measure;\n\
                use crate::{time::PS_PER_S, observe::vcd};\n\
                let x = crate::io_system::has_io(m);\n\
                use super::super::machine::Machine;\n\
                use crate::periph::io_event::IoEvent;\n\
                //! Drained by `crate::machine`.\n";
    let bad = violations("periph/x.rs", text, devices);
    assert_eq!(
        bad,
        [
            "periph/x.rs: crate::measure",
            "periph/x.rs: crate::observe",
            "periph/x.rs: crate::io_system",
            "periph/x.rs: super::super"
        ]
    );
}

/// Modules of observers, which the core reaches only through its observer interface.
const OBSERVERS: &[&str] = &["energy", "trace", "timeline", "rtos", "measure", "observe"];

/// "file: name" for each observer module the core's `text` names, as a `crate::` path or
/// in any identifier of its code (a field, a method, a local module path).
fn core_violations(file: &str, text: &str) -> Vec<String> {
    let mut bad: Vec<String> = crate_modules(text)
        .into_iter()
        .filter(|n| OBSERVERS.contains(&n.as_str()))
        .map(|n| format!("{file}: crate::{n}"))
        .collect();
    for word in code(text).split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let lower = word.to_lowercase();
        if OBSERVERS.iter().any(|o| lower.split('_').any(|part| part == *o)) {
            bad.push(format!("{file}: {word}"));
        }
    }
    bad.dedup();
    bad
}

/// What the instruction-set core must not name either: the processor around it.
const PROCESSOR: &[&str] = &["board", "machine", "stimuli", "stimulus", "scenario"];

#[test]
fn the_core_knows_no_observer() {
    // The core is crate cairn-isa (the compiler keeps it from importing the simulator); this
    // keeps the names of what it must not know out of its code too.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("isa/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() >= 8, "the core's files not found at sim/isa/src");
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(&src).unwrap().display().to_string();
        bad.extend(core_violations(&name, &text));
        for word in code(&text).split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            let lower = word.to_lowercase();
            if PROCESSOR.iter().any(|p| lower.split('_').any(|part| part == *p)) {
                bad.push(format!("{name}: {word}"));
            }
        }
    }
    assert!(bad.is_empty(), "the core names its observers or its processor:\n{}", bad.join("\n"));
}

#[test]
fn the_core_scan_sees_observer_names() {
    let text = "use crate::observe::timeline::PowerState;\n\
                if let Some(t) = self.trace.as_mut() {}\n\
                self.energy_settle(pc, before);\n\
                let w = crate::{rtos::watch, measure};\n\
                // energy accounting charges them to the handler entered\n\
                let trace_port_words = 0; let tracer = 1; let parameter = 2;\n";
    assert_eq!(
        core_violations("cpu/x.rs", text),
        [
            "cpu/x.rs: crate::observe",
            "cpu/x.rs: crate::rtos",
            "cpu/x.rs: crate::measure",
            "cpu/x.rs: observe",
            "cpu/x.rs: timeline",
            "cpu/x.rs: trace",
            "cpu/x.rs: energy_settle",
            "cpu/x.rs: rtos",
            "cpu/x.rs: measure",
            "cpu/x.rs: trace_port_words",
        ]
    );
}

/// The machine's device table applies an access's effects through the attached observers
/// (`Attached::trace_word`, `uart_byte`, `timer_ctrl`), never by calling energy accounting
/// or the trace itself.
#[test]
fn the_device_table_reaches_observers_only_through_attached() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/devices.rs");
    let text = code(&std::fs::read_to_string(&path).unwrap());
    for needle in ["energy_", ".trace.", ".trace ", "crate::energy", "crate::trace"] {
        assert!(!text.contains(needle), "src/devices.rs names an observer: {needle}");
    }
}
