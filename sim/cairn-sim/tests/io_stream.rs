//! Streamed I/O outputs (`Machine::stream_io`, what the CLI does for `--stats`, `--io-log`
//! and `--vcd`): byte for byte what the retained log gives, in memory that does not grow
//! with the run; a file that cannot be written is one line and exit status 2.

mod common;
mod sim_cli;
use cairn_sim::io_system::io_json;
use cairn_sim::measure::delay::WAITING_CAP;
use cairn_sim::observe::stream::{EVENT_BUFFER, TIMELINE_BUFFER};
use cairn_sim::periph::cairn_io::{ADC_BASE, GPIO_BASE, PORTS_BASE, STIM_BASE};
use cairn_sim::scenario_io::{parse_io_scenario, IoScenario};
use cairn_sim::{Machine, Stop};
use common::*;
use sim_cli::SIM;
use std::path::{Path, PathBuf};

const TIMER0: u32 = 0x4000_0000;
const STIM_LINE0_EXC: u32 = 16 + 18;
const TIMER0_EXC: u32 = 16 + 8;

/// A periodic stimulus answered from its handler, a stimulus faster than the clock (several
/// firings per cycle; its line is not enabled, so the core sleeps through it, waking at
/// each firing), a Poisson one, a timer-toggled pin. The fast stimulus's `fifo` entry is
/// answered once per pin edge: its waiting firings pile up and reach WAITING_CAP.
const SCENARIO: &str = r#"
    [[stimulus]]
    name = "tick"
    kind = "periodic"
    period = "3us"
    [[stimulus]]
    name = "fast"
    kind = "periodic"
    period = "15ns"
    line = 1
    [[stimulus]]
    name = "rare"
    kind = "poisson"
    rate_hz = 20000
    line = 2
    [port.resp]
    index = 0
    expected_period = "3us"
    [pin.led]
    index = 0
    edge = "both"
    expected_period = "40us"
    [io]
    bin = "40ns"
    [[io.delay]]
    stimulus = "tick"
    response = "resp"
    match = "sequence"
    deadline = "1us"
    [[io.delay]]
    name = "fast-led"
    stimulus = "fast"
    response = "led"
    match = "fifo"
    [[io.delay]]
    name = "rare-led"
    stimulus = "rare"
    response = "led"
"#;

fn scenario(text: &str) -> IoScenario {
    parse_io_scenario(&text.parse::<toml::Table>().unwrap(), Path::new(".")).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp("io-stream", name)
}

/// `wfi; b main` (or `b .`), stimulus line 0 answered on OUT[0], timer0 toggling pin 0
/// every 1000 cycles; r4-r7 hold device bases.
fn machine(sleeps: bool) -> Machine {
    let mut m = with_config(cfg());
    let mut a = Asm::new(CODE);
    if sleeps {
        a.i(wfi());
    }
    let here = a.here();
    a.i(b_to(here, CODE));
    a.load(&mut m);
    m.reset();
    m.r[4] = STIM_BASE;
    m.r[5] = PORTS_BASE;
    m.r[6] = TIMER0;
    m.r[7] = GPIO_BASE;
    load(
        &mut m,
        handler(STIM_LINE0_EXC),
        &[ldr_imm(1, 4, 0x10), movs(2, 1), str_imm(2, 4, 4), str_imm(1, 5, 0), bx(14)],
    );
    load(&mut m, handler(TIMER0_EXC), &[movs(2, 1), str_imm(2, 6, 0xC), str_imm(2, 7, 0xC), bx(14)]);
    m.write32(TIMER0 + 8, 999).unwrap();
    m.write32(TIMER0, 9).unwrap();
    m.write32(NVIC_ISER, 1 << 18 | 1 << 8).unwrap();
    m.install_io_scenario(scenario(SCENARIO), 5);
    m.record_timeline();
    m
}

struct Outputs {
    stats: serde_json::Value,
    vcd: Vec<u8>,
    log: String,
}

/// Run to `cycles` with the log retained, then write the outputs from it.
fn retained(cycles: u64) -> Outputs {
    let mut m = machine(true);
    m.cycle_limit = cycles;
    assert_eq!(m.run(u64::MAX), Stop::Limit);
    let mut vcd = Vec::new();
    cairn_sim::io_system::write_vcd(&m, &mut vcd).unwrap();
    let mut log = Vec::new();
    cairn_sim::io_system::write_io_log(&m, &mut log).unwrap();
    Outputs { stats: io_json(&m), vcd, log: String::from_utf8(log).unwrap() }
}

/// Run to `cycles` in `chunks` steps with the outputs streamed to files; after each step
/// the buffers are within their caps.
fn streamed(cycles: u64, chunks: u64, name: &str) -> (Outputs, Machine) {
    let (log_path, vcd_path) = (tmp(&format!("{name}.csv")), tmp(&format!("{name}.vcd")));
    let mut m = machine(true);
    m.stream_io(Some(&log_path), Some(&vcd_path)).unwrap();
    for k in 1..=chunks {
        m.cycle_limit = cycles * k / chunks;
        assert_eq!(m.run(u64::MAX), Stop::Limit);
        let (events, power, exceptions) = m.io.buffer_capacity();
        assert!(events <= EVENT_BUFFER, "event buffer grew to {events}");
        assert!(power <= TIMELINE_BUFFER && exceptions <= TIMELINE_BUFFER, "timeline grew to {power}, {exceptions}");
    }
    m.finish_io_stream().unwrap();
    let out = Outputs {
        stats: io_json(&m),
        vcd: std::fs::read(&vcd_path).unwrap(),
        log: std::fs::read_to_string(&log_path).unwrap(),
    };
    (out, m)
}

#[test]
fn streamed_outputs_equal_the_retained_ones() {
    let cycles = 20_000;
    let want = retained(cycles);
    let (got, _) = streamed(cycles, 7, "short");
    assert_eq!(got.stats, want.stats);
    assert!(got.log == want.log, "io-log differs");
    assert!(got.vcd == want.vcd, "VCD differs");
    // The run has what makes streaming hard: several firings per cycle, logged at their
    // scheduled cycles, and stores logged before them.
    assert!(want.stats["stimuli"]["fast"]["fired"].as_u64().unwrap() > 50_000);
    assert_eq!(want.stats["delay"]["tick->resp"]["unanswered"], 0);
    assert!(want.stats["delay"]["fast-led"].get("given_up").is_none());
}

#[test]
fn long_run_streams_in_bounded_memory() {
    let long = 1_000_000; // 40 ms at 25 MHz: 2.7 million firings of `fast`
    let (got, m) = streamed(long, 100, "long");
    let io = &got.stats;
    let rows = got.log.lines().count() as u64 - 1;
    assert_eq!(io["events"].as_u64().unwrap(), rows);
    assert!(rows > 2_500_000, "{rows}");
    // Waiting firings are capped: the oldest are given up (and counted unanswered).
    let fast = &io["delay"]["fast-led"];
    assert!(fast["given_up"].as_u64().unwrap() > 2_000_000, "{fast}");
    assert!(m.io.streamed_measure().unwrap().waiting() <= WAITING_CAP + 16);
    assert_eq!(io["delay"]["tick->resp"]["answered"], io["stimuli"]["tick"]["fired"]);
    // The long run starts as the short one: same rows before its end.
    let short = retained(20_000);
    let before = |log: &str| -> Vec<String> {
        log.lines()
            .skip(1)
            .filter(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() < 20_000)
            .map(String::from)
            .collect()
    };
    assert_eq!(before(&got.log), before(&short.log));
    // The VCD parses, with changes up to the end.
    let mut p = vcd::Parser::new(&got.vcd[..]);
    p.parse_header().unwrap();
    let mut last = 0;
    for cmd in p {
        if let vcd::Command::Timestamp(t) = cmd.unwrap() {
            assert!(t >= last);
            last = t;
        }
    }
    assert!(last > (long - 2_000) * 40_000, "{last}");
}

#[test]
fn write_error_ends_the_run_at_the_next_boundary() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let mut m = machine(false);
    m.stream_io(Some(Path::new("/dev/full")), None).unwrap();
    m.cycle_limit = 100_000_000;
    assert_eq!(m.run(u64::MAX), Stop::Limit);
    assert!(m.cycles < 100_000, "ran on to cycle {}", m.cycles);
    let e = m.finish_io_stream().unwrap_err();
    assert!(e.starts_with("cannot write /dev/full: ") && e.contains("os error 28"), "{e}");
}

/// Periodic ADC conversions of several channels, on instants shared with the stimuli (a
/// 2 us grid against `tick`'s 3 us), streamed with a buffer filled by the fast stimulus:
/// a conversion logs several events at once, and they must come out as in the retained log.
const ADC: &str = r#"
    [adc]
    rate_hz = 500000
    bits = 10
    [[adc.channel]]
    source = "sine"
    freq_hz = 20000
    [[adc.channel]]
    source = "noise"
    stddev = 0.2
    [[adc.channel]]
    source = "ramp"
    slope_per_s = 100
    delay = "1us"
"#;

fn adc_machine() -> Machine {
    let mut m = machine(true);
    m.install_io_scenario(scenario(&format!("{SCENARIO}{ADC}")), 5);
    m.write32(ADC_BASE, 1).unwrap(); // CTRL.PERIODIC
    m
}

#[test]
fn periodic_adc_streams_as_retained() {
    let cycles = 20_000;
    let mut m = adc_machine();
    m.cycle_limit = cycles;
    assert_eq!(m.run(u64::MAX), Stop::Limit);
    let (mut vcd, mut log) = (Vec::new(), Vec::new());
    cairn_sim::io_system::write_vcd(&m, &mut vcd).unwrap();
    cairn_sim::io_system::write_io_log(&m, &mut log).unwrap();
    let want = Outputs { stats: io_json(&m), vcd, log: String::from_utf8(log).unwrap() };

    let (log_path, vcd_path) = (tmp("adc.csv"), tmp("adc.vcd"));
    let mut m = adc_machine();
    m.stream_io(Some(&log_path), Some(&vcd_path)).unwrap();
    for k in 1..=7 {
        m.cycle_limit = cycles * k / 7;
        assert_eq!(m.run(u64::MAX), Stop::Limit);
        assert!(m.io.buffer_capacity().0 <= EVENT_BUFFER);
    }
    m.finish_io_stream().unwrap();
    assert_eq!(io_json(&m), want.stats);
    assert!(std::fs::read_to_string(&log_path).unwrap() == want.log, "io-log differs");
    assert!(std::fs::read(&vcd_path).unwrap() == want.vcd, "VCD differs");
    assert_eq!(want.stats["adc"]["samples"], 3 * (cycles / 50));
    // Conversions share cycles with stimulus firings (every 6 us with `tick`).
    let at_6us: Vec<&str> =
        want.log.lines().filter(|l| l.starts_with("150,")).map(|l| l.split(',').nth(2).unwrap()).collect();
    assert!(at_6us.contains(&"adc") && at_6us.contains(&"stimulus"), "{at_6us:?}");
}

/// The smallest firmware: vector table (SP, reset) and `b .` at 0x8.
fn tiny_elf(path: &Path) {
    let mut image = Vec::new();
    image.extend(0x2000_8000u32.to_le_bytes());
    image.extend(9u32.to_le_bytes());
    image.extend([0xfe, 0xe7, 0, 0]);
    let mut f: Vec<u8> = b"\x7fELF\x01\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    for h in [2u16, 40] {
        f.extend(h.to_le_bytes()); // ET_EXEC, EM_ARM
    }
    for w in [1u32, 9, 52, 0, 0x0500_0200] {
        f.extend(w.to_le_bytes()); // version, entry, phoff, shoff, flags
    }
    for h in [52u16, 32, 1, 40, 0, 0] {
        f.extend(h.to_le_bytes()); // ehsize, phentsize, phnum, shentsize, shnum, shstrndx
    }
    let len = image.len() as u32;
    for w in [1u32, 84, 0, 0, len, len, 5, 4] {
        f.extend(w.to_le_bytes()); // PT_LOAD at file offset 84 to address 0, R+X
    }
    f.extend(image);
    std::fs::write(path, f).unwrap();
}

#[test]
fn unwritable_outputs_exit_2_with_one_line() {
    let elf = tmp("tiny.elf");
    tiny_elf(&elf);
    let missing_dir = tmp("no-such-dir");
    let default_tmp = std::env::temp_dir();
    let missing = missing_dir.join("out");
    let sc = tmp("fast.toml");
    std::fs::write(&sc, "[[stimulus]]\nname = 'fast'\nkind = 'periodic'\nperiod = '1ns'\n").unwrap();
    let run = |max_time: &str, out: &[&str]| {
        let stats = tmp("never.json");
        let _ = std::fs::remove_file(&stats);
        let tmpdir: &Path = if out.contains(&"TMPDIR") { &missing_dir } else { &default_tmp };
        let out: Vec<&str> = out.iter().copied().filter(|&a| a != "TMPDIR").collect();
        let o = std::process::Command::new(SIM)
            .env("TMPDIR", tmpdir)
            .args(["run", "--io", sc.to_str().unwrap(), "--max-time", max_time, "--stats", stats.to_str().unwrap()])
            .args(out)
            .arg(&elf)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(stats.exists(), o.status.code() != Some(2), "stats file and exit status disagree: {err}");
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), err)
    };
    let m = missing.to_str().unwrap();
    for opt in ["--io-log", "--vcd", "--trace"] {
        let (status, out, err) = run("1s", &[opt, m]);
        assert_eq!(status, Some(2), "{opt}: {err}");
        assert_eq!(out, "");
        assert_eq!(err, format!("cairn-sim: cannot write {m}: No such file or directory (os error 2)\n"), "{opt}");
    }
    if Path::new("/dev/full").exists() {
        // Created fine, full on the first write. The io-log is written during the run, which
        // then stops (40 firings per cycle for a simulated second would take minutes); the
        // VCD's file is written at the end, and so is this trace (too few events to fill its
        // buffer before).
        for (max_time, opt) in [("1s", "--io-log"), ("20us", "--vcd"), ("20us", "--trace")] {
            let (status, _, err) = run(max_time, &[opt, "/dev/full"]);
            assert_eq!(status, Some(2), "{opt}: {err}");
            assert_eq!(err, "cairn-sim: cannot write /dev/full: No space left on device (os error 28)\n", "{opt}");
        }
    }
    // The VCD's temporary body cannot be created.
    let vcd = tmp("out.vcd");
    let (status, _, err) = run("1s", &["--vcd", vcd.to_str().unwrap(), "TMPDIR"]);
    assert_eq!(status, Some(2), "{err}");
    let want =
        format!("cairn-sim: cannot write {}: temporary file in {}: No such file", vcd.display(), missing_dir.display());
    assert!(err.starts_with(&want) && err.lines().count() == 1, "{err}");
    // The same run with writable outputs succeeds (exit 124 at the limit).
    let (status, _, err) = run("10us", &["--io-log", tmp("ok.csv").to_str().unwrap()]);
    assert_eq!(status, Some(124), "{err}");
}
