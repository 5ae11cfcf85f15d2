//! Stimuli, Cairn I/O devices and the measurements on hand-assembled firmware whose timing
//! follows exactly from the Cortex-M0+ model: a stimulus answered from its handler, a
//! timer IRQ toggling a marker pin, an input port echoed to an output port. Also the VCD
//! (parsed back with the `vcd` crate) and the io-log CSV.

mod common;
use cairn_sim::io_system::io_json;
use cairn_sim::periph::cairn_io::{ADC_BASE, GPIO_BASE, PORTS_BASE, STIM_BASE};
use cairn_sim::periph::io_event::IoKind;
use cairn_sim::scenario_io::{parse_io_scenario, IoScenario};
use cairn_sim::{Machine, Stop};
use common::*;
use serde_json::Value;
use std::path::Path;

/// 25 MHz: one cycle is 40,000 ps.
const CYCLE_PS: u64 = 40_000;
const TIMER0: u32 = 0x4000_0000;
const STIM_LINE0_EXC: u32 = 16 + 18;
const INPUT_EXC: u32 = 16 + 16;
const TIMER0_EXC: u32 = 16 + 8;

fn scenario(text: &str) -> IoScenario {
    parse_io_scenario(&text.parse::<toml::Table>().unwrap(), Path::new(".")).unwrap()
}

fn secs(cycles: u64) -> f64 {
    (cycles * CYCLE_PS) as f64 / 1e12
}

/// Main: `wfi; b main`. Registers r4-r7 hold device bases (callee-saved, so handlers may
/// use them without the usual literal pools).
fn machine(main_sleeps: bool) -> Machine {
    let mut m = with_config(cfg());
    let mut a = Asm::new(CODE);
    if main_sleeps {
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
    m
}

/// Stimulus line 0 handler: read COUNT[0], CLEAR line 0, write the count to OUT[0].
/// Entry takes 15 cycles; LDR 2 + MOVS 1 + STR 2 later the STR to OUT[0] starts, so the
/// response is 20 cycles after the firing when the core was asleep.
fn answer_stimulus(m: &mut Machine) {
    let h = handler(STIM_LINE0_EXC);
    load(m, h, &[ldr_imm(1, 4, 0x10), movs(2, 1), str_imm(2, 4, 4), str_imm(1, 5, 0), bx(14)]);
    m.write32(NVIC_ISER, 1 << 18).unwrap();
}

fn run_until(m: &mut Machine, cycles: u64) {
    m.cycle_limit = cycles;
    assert_eq!(m.run(u64::MAX), Stop::Limit);
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn periodic_stimulus_answered_with_exact_delay_and_no_jitter() {
    let mut m = machine(true);
    answer_stimulus(&mut m);
    let sc = scenario(
        r#"
        [[stimulus]]
        name = "tick"
        kind = "periodic"
        period = "40us"
        count = 50
        [port.resp]
        index = 0
        expected_period = "40us"
        [io]
        bin = "40ns"
        [[io.delay]]
        stimulus = "tick"
        response = "resp"
        match = "sequence"
        deadline = "800ns"
        [[io.delay]]
        name = "tight"
        stimulus = "tick"
        response = "resp"
        deadline = "760ns"
        "#,
    );
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 60 * 1000);
    let outs: Vec<(u64, u32)> =
        m.io.events.iter().filter(|e| e.kind == IoKind::Output).map(|e| (e.cycle, e.value)).collect();
    let want: Vec<(u64, u32)> = (1..=50u64).map(|k| (k * 1000 + 20, k as u32)).collect();
    assert_eq!(outs, want);

    let io = io_json(&m);
    let d = &io["delay"]["tick->resp"];
    assert_eq!(d["answered"], 50);
    assert_eq!(d["unanswered"], 0);
    assert_eq!(f(&d["delay"]["min_s"]), secs(20));
    assert_eq!(f(&d["delay"]["max_s"]), secs(20));
    assert_eq!(f(&d["delay"]["p99_s"]), secs(20));
    assert_eq!(d["deadline"]["misses"], 0);
    assert_eq!(io["delay"]["tight"]["deadline"]["misses"], 50);
    assert_eq!(io["delay"]["tight"]["match"], "next");
    let j = &io["jitter"]["resp"];
    assert_eq!(j["events"], 50);
    assert_eq!(f(&j["max_abs_jitter_s"]), 0.0);
    assert_eq!(f(&j["interval"]["p50_s"]), secs(1000));
    let bins = j["histogram"]["bins"].as_array().unwrap();
    assert_eq!(bins.len(), 1);
    assert_eq!(bins[0]["count"], 49);
    assert_eq!(io["stimuli"]["tick"]["fired"], 50);
    assert_eq!(io["ports"]["resp"]["writes"], 50);
}

/// Timer0 handler: INTCLEAR, then toggle GPIO pin 0 (the STR starts 15 + 1 + 2 cycles in).
/// With RELOAD = period - 1 written at cycle 0 the timer expires at k * period - 1.
fn toggle_from_timer(m: &mut Machine, period: u32) {
    let h = handler(TIMER0_EXC);
    load(m, h, &[movs(2, 1), str_imm(2, 6, 0xC), str_imm(2, 7, 0xC), bx(14)]);
    m.write32(TIMER0 + 8, period - 1).unwrap();
    m.write32(TIMER0, 9).unwrap();
    m.write32(NVIC_ISER, 1 << 8).unwrap();
}

const PIN_SCENARIO: &str = r#"
    [pin.led]
    index = 0
    edge = "both"
    expected_period = "40us"
    [io]
    bin = "40ns"
"#;

#[test]
fn timer_toggled_pin_from_sleep_has_zero_jitter() {
    let mut m = machine(true);
    toggle_from_timer(&mut m, 1000);
    m.install_io_scenario(scenario(PIN_SCENARIO), 0);
    run_until(&mut m, 100_500);
    let gpio: Vec<u64> = m.io.events.iter().filter(|e| e.kind == IoKind::Gpio).map(|e| e.cycle).collect();
    assert_eq!(gpio, (1..=100u64).map(|k| k * 1000 - 1 + 18).collect::<Vec<_>>());
    let j = &io_json(&m)["jitter"]["led"];
    assert_eq!(j["events"], 100);
    assert_eq!(f(&j["max_abs_jitter_s"]), 0.0);
    assert_eq!(io_json(&m)["ports"]["led"]["rising"], 50);
}

#[test]
fn timer_toggled_pin_from_busy_loop_is_periodic() {
    // The handler's return re-phases the 2-cycle `b .` loop the same way every time, so
    // each IRQ is taken at the same offset: every interval is exactly the timer period.
    let mut m = machine(false);
    toggle_from_timer(&mut m, 1001);
    let mut sc = scenario(PIN_SCENARIO);
    sc.pins[0].expected_period_ps = Some(1001 * CYCLE_PS);
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 200_000);
    let j = &io_json(&m)["jitter"]["led"];
    assert_eq!(j["events"], 199);
    assert_eq!(f(&j["max_abs_jitter_s"]), 0.0);
    assert_eq!(f(&j["interval"]["min_s"]), secs(1001));
}

#[test]
fn higher_priority_stimulus_handler_causes_bounded_jitter() {
    // Stimulus line 0 (priority 0) preempts or delays the timer handler (priority 1): the
    // toggle is late by at most the stimulus handler's length plus an entry/exit pair.
    let mut m = machine(true);
    answer_stimulus(&mut m);
    toggle_from_timer(&mut m, 1000);
    m.write32(NVIC_IPR0 + 8, 0x40).unwrap(); // IRQ 8 priority 1
    let mut sc = scenario(PIN_SCENARIO);
    sc.stimuli = scenario("[[stimulus]]\nkind = 'poisson'\nrate_hz = 20000\n").stimuli;
    m.install_io_scenario(sc, 3);
    run_until(&mut m, 1_000_000);
    let io = io_json(&m);
    let j = &io["jitter"]["led"];
    let max = f(&j["max_abs_jitter_s"]);
    assert!(max > 0.0 && max <= secs(60), "{max}");
    let bins = j["histogram"]["bins"].as_array().unwrap();
    let total: u64 = bins.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(total + 1, j["events"].as_u64().unwrap());
    assert!(io["stimuli"]["stimulus0"]["fired"].as_u64().unwrap() > 500);
}

#[test]
fn input_port_delivers_and_interrupts() {
    let mut m = machine(true);
    // IN[0] -> r1, IN_CLEAR bit 0, OUT[1] = r1: the last STR starts 15 + 2 + 1 + 1 + 2 cycles
    // after the delivery (the core was asleep).
    let h = handler(INPUT_EXC);
    m.r[6] = PORTS_BASE + 0x100;
    load(&mut m, h, &[ldr_imm(1, 6, 0), movs(2, 1), movs(3, 0x84), str_reg(2, 6, 3), str_imm(1, 5, 4), bx(14)]);
    m.write32(NVIC_ISER, 1 << 16).unwrap();
    m.write32(PORTS_BASE + 0x188, 1).unwrap();
    let sc = scenario(
        r#"
        [port.cmd]
        dir = "in"
        index = 0
        deliver = [{ at = "10us", value = 7 }, { at = "30us", value = 9 }]
        [port.echo]
        index = 1
        "#,
    );
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 2000);
    let got: Vec<(u64, IoKind, u32)> = m.io.events.iter().map(|e| (e.cycle, e.kind, e.value)).collect();
    assert_eq!(
        got,
        vec![
            (250, IoKind::Input, 7),
            (250 + 15 + 6, IoKind::Output, 7),
            (750, IoKind::Input, 9),
            (750 + 15 + 6, IoKind::Output, 9)
        ]
    );
    assert_eq!(io_json(&m)["ports"]["cmd"]["deliveries"], 2);
    assert_eq!(io_json(&m)["ports"]["echo"]["last_value"], 9);
}

fn poisson_events(seed: u64) -> Vec<(u64, u32)> {
    let mut m = machine(true);
    answer_stimulus(&mut m);
    let sc = scenario("[[stimulus]]\nkind = 'poisson'\nrate_hz = 20000\ncount = 300\n");
    m.install_io_scenario(sc, seed);
    run_until(&mut m, 25_000_000);
    m.io.events.iter().filter(|e| e.kind == IoKind::Stimulus).map(|e| (e.cycle, e.value)).collect()
}

#[test]
fn poisson_stimuli_reproducible_per_seed() {
    let a = poisson_events(11);
    assert_eq!(a.len(), 300);
    assert_eq!(a, poisson_events(11));
    assert_ne!(a, poisson_events(12));
    // Mean gap 50 us = 1250 cycles; 300 gaps: sd of the sum = sqrt(300) * 1250 cycles.
    let total = a.last().unwrap().0 as f64;
    assert!((total - 300.0 * 1250.0).abs() < 4.0 * 300f64.sqrt() * 1250.0, "{total}");
}

#[test]
fn vcd_parses_back_with_exact_transition_times() {
    let mut m = machine(true);
    answer_stimulus(&mut m);
    toggle_from_timer(&mut m, 2500);
    let sc = scenario(
        r#"
        [[stimulus]]
        name = "tick"
        kind = "periodic"
        period = "40us"
        count = 3
        [port.resp]
        index = 0
        [pin.led]
        index = 0
        "#,
    );
    m.install_io_scenario(sc, 0);
    m.record_timeline();
    run_until(&mut m, 6000);
    let mut buf = Vec::new();
    cairn_sim::io_system::write_vcd(&m, &mut buf).unwrap();
    let mut p = vcd::Parser::new(&buf[..]);
    let header = p.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::PS)));
    let code = |path: &[&str]| header.find_var(path).unwrap_or_else(|| panic!("no {path:?}")).code;
    let resp = code(&["cairn", "ports", "resp"]);
    let led = code(&["cairn", "gpio", "led"]);
    let power = code(&["cairn", "power", "state"]);
    let active = code(&["cairn", "irq", "irq18_active"]);
    let (mut t, mut resp_ch, mut led_ch, mut power_ch, mut active_ch) = (0u64, vec![], vec![], vec![], vec![]);
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => t = x,
            vcd::Command::ChangeVector(c, v) => {
                let v = u64::from_str_radix(&v.to_string(), 2).unwrap();
                if c == resp {
                    resp_ch.push((t, v));
                } else if c == power {
                    power_ch.push((t, v));
                }
            }
            vcd::Command::ChangeScalar(c, v) => {
                let v = (v == vcd::Value::V1) as u64;
                if c == led {
                    led_ch.push((t, v));
                } else if c == active {
                    active_ch.push((t, v));
                }
            }
            _ => {}
        }
    }
    let ps = |c: u64| c * CYCLE_PS;
    // Initial dump at 0, then the three answers 20 cycles after each firing.
    assert_eq!(resp_ch, vec![(0, 0), (ps(1020), 1), (ps(2020), 2), (ps(3020), 3)]);
    assert_eq!(led_ch, vec![(0, 0), (ps(2499 + 18), 1), (ps(4999 + 18), 0)]);
    // The core sleeps from the first WFI (cycle 1 after the WFI starts) until the first firing.
    assert_eq!(power_ch[0], (0, 0));
    assert_eq!(power_ch[2], (ps(1000), 0), "{power_ch:?}");
    assert_eq!(power_ch[1].1, 1);
    // Stimulus line 0 is IRQ 18: active from handler entry (firing + 15) to its return.
    assert_eq!(active_ch[1], (ps(1015), 1));
    assert_eq!(active_ch[2].1, 0);
}

#[test]
fn io_log_csv_rows() {
    let mut m = machine(true);
    answer_stimulus(&mut m);
    let sc = scenario("[[stimulus]]\nname='tick'\nkind='periodic'\nperiod='40us'\ncount=2\n[port.resp]\nindex=0\n");
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 3000);
    let mut buf = Vec::new();
    cairn_sim::io_system::write_io_log(&m, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["cycle", "time_s", "kind", "name", "value"]);
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[1][..3], ["1000", &*format!("{:e}", secs(1000)), "stimulus"]);
    assert_eq!(rows[1][3..], ["tick", "1"]);
    assert_eq!(rows[2][2..], ["output", "resp", "1"]);
    assert_eq!(rows[2][0].parse::<u64>().unwrap(), 1020);
    assert_eq!(rows[4][2..], ["output", "resp", "2"]);
    assert_eq!(rows[1][1].parse::<f64>().unwrap(), 4e-5);
}

#[test]
fn adc_on_read_periodic_and_delayed_channels() {
    let mut m = machine(true);
    let sc = scenario(
        r#"
        [adc]
        rate_hz = 1000000
        bits = 12
        range = [-1.0, 1.0]
        [[adc.channel]]
        source = "sine"
        freq_hz = 1000
        [[adc.channel]]
        source = "sine"
        freq_hz = 1000
        delay = "250us"
        [[adc.channel]]
        source = "step"
        at = "10us"
        low = -1.0
        high = 1.0
        [[adc.channel]]
        source = "ramp"
        offset = -1.0
        slope_per_s = 1000.0
        "#,
    );
    m.install_io_scenario(sc, 0);
    assert_eq!(m.read32(ADC_BASE + 0xC).unwrap(), 4);
    // On read: the quarter period of 1 kHz (250 us = 6250 cycles) is the sine's peak.
    m.cycles = 6250;
    assert_eq!(m.read32(ADC_BASE + 0x20).unwrap(), 4095);
    // The delayed copy is a quarter period behind: zero -> mid-scale.
    assert_eq!(m.read32(ADC_BASE + 0x24).unwrap(), 2048);
    assert_eq!(m.read32(ADC_BASE + 0x28).unwrap(), 4095);
    // Ramp: -1 + 1000 * 250e-6 = -0.75 -> round(0.125 * 4095) = 512.
    assert_eq!(m.read32(ADC_BASE + 0x2C).unwrap(), 512);
    m.cycles = 0;
    assert_eq!(m.read32(ADC_BASE + 0x28).unwrap(), 0);
    // Periodic at 1 MHz (every 25 cycles) from the next grid instant after enabling.
    m.cycles = 0;
    m.io.events.clear();
    m.write32(ADC_BASE, 3).unwrap();
    m.write32(NVIC_ISER, 1 << 17).unwrap();
    load(&mut m, handler(16 + 17), &[movs(2, 1), str_imm(2, 0, 8), bx(14)]);
    m.r[0] = ADC_BASE;
    run_until(&mut m, 101);
    let samples: Vec<u64> =
        m.io.events.iter().filter(|e| e.kind == IoKind::Adc && e.index == 0).map(|e| e.cycle).collect();
    assert_eq!(samples, vec![25, 50, 75, 100]);
    assert_eq!(m.read32(ADC_BASE + 4).unwrap() & 2, 0, "the handler cleared READY in time: no overrun");
    // The VCD carries channel 0's codes as a 12-bit vector at the conversion instants.
    let mut buf = Vec::new();
    cairn_sim::io_system::write_vcd(&m, &mut buf).unwrap();
    let mut p = vcd::Parser::new(&buf[..]);
    let header = p.parse_header().unwrap();
    let var = header.find_var(&["cairn", "adc", "ch0"]).unwrap();
    assert_eq!(var.size, 12);
    let ch0 = var.code;
    let mut times = Vec::new();
    let mut t = 0;
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => t = x,
            vcd::Command::ChangeVector(c, _) if c == ch0 && t > 0 => times.push(t),
            _ => {}
        }
    }
    // A 1 kHz sine sampled every microsecond changes code at every conversion.
    assert_eq!(times, [25, 50, 75, 100].map(|c| c * CYCLE_PS));
}

#[test]
fn adc_reads_wav_and_csv_files() {
    let dir = std::env::temp_dir().join(format!("cairn-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec =
        hound::WavSpec { channels: 2, sample_rate: 1000, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut w = hound::WavWriter::create(dir.join("mic.wav"), spec).unwrap();
    for i in 0..10i16 {
        w.write_sample(i * 1000).unwrap();
        w.write_sample(-i * 1000).unwrap();
    }
    w.finalize().unwrap();
    std::fs::write(dir.join("sig.csv"), "time_s,a,b\n0,0.5,0.25\n0.002,-0.5,0.75\n").unwrap();
    let text = r#"
        [adc]
        bits = 16
        range = [-1.0, 1.0]
        [[adc.channel]]
        source = "wav"
        file = "mic.wav"
        wav_channel = 1
        [[adc.channel]]
        source = "csv"
        file = "sig.csv"
        column = 2
    "#;
    let sc = parse_io_scenario(&text.parse::<toml::Table>().unwrap(), &dir).unwrap();
    let mut m = machine(true);
    m.install_io_scenario(sc, 0);
    // 3.5 ms = sample 3 of the WAV: -3000 / 32768 of full scale.
    m.cycles = 3 * 25_000 + 12_500;
    let want = cairn_sim::periph::adc::to_code(-3000.0 / 32768.0, -1.0, 1.0, 16);
    assert_eq!(m.read32(ADC_BASE + 0x20).unwrap(), want);
    assert_eq!(m.read32(ADC_BASE + 0x24).unwrap(), cairn_sim::periph::adc::to_code(0.75, -1.0, 1.0, 16));
    m.cycles = 25_000;
    assert_eq!(m.read32(ADC_BASE + 0x24).unwrap(), cairn_sim::periph::adc::to_code(0.25, -1.0, 1.0, 16));
    std::fs::write(dir.join("cmd.csv"), "time_s,value\n0.0005,9\n0.002,5\n").unwrap();
    let ports = "[port.cmd]\ndir = 'in'\nindex = 2\ncsv = 'cmd.csv'\ndeliver = [{ at = '1ms', value = 1 }]\n";
    let sc = parse_io_scenario(&ports.parse::<toml::Table>().unwrap(), &dir).unwrap();
    assert_eq!(sc.ports[0].deliveries, vec![(500_000_000, 9), (1_000_000_000, 1), (2_000_000_000, 5)]);
    std::fs::write(dir.join("cmd.csv"), "0.001,5\n0.0005,9\n").unwrap();
    let e = parse_io_scenario(&ports.parse::<toml::Table>().unwrap(), &dir).unwrap_err().to_string();
    assert!(e.starts_with("port.cmd.csv: ") && e.contains("times must increase"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plain_run_has_no_io_section_and_no_events() {
    let mut m = machine(true);
    m.write32(SYST_RVR, 999).unwrap();
    m.write32(SYST_CSR, 7).unwrap();
    run_until(&mut m, 10_000);
    assert!(m.io.events.is_empty());
    assert!(!cairn_sim::io_system::has_io(&m));
    assert_eq!(m.io.next_at, u64::MAX);
}

#[test]
fn bad_io_scenarios_exit_2_with_one_line_naming_the_key() {
    let dir = std::env::temp_dir().join(format!("cairn-io-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("unknown.toml", "[[stimulus]]\nkind='poisson'\nrate_hz=5\nrate=3\n", "stimulus[0].rate: unknown key"),
        ("type.toml", "[[stimulus]]\nkind='poisson'\nrate_hz='fast'\n", "stimulus[0].rate_hz: expected a number"),
        ("zero.toml", "[[stimulus]]\nkind='poisson'\nrate_hz=0\n", "stimulus[0].rate_hz: must be > 0"),
        ("file.toml", "[adc]\n[[adc.channel]]\nsource='csv'\nfile='missing.csv'\n", "adc.channel[0].file: cannot read"),
        ("top.toml", "[energy]\nx=1\n", "energy: unknown key"),
        ("syntax.toml", "[[stimulus]\n", "invalid TOML (line 1)"),
    ];
    for (name, text, want) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cairn-sim"))
            .args(["run", "--io"])
            .arg(&p)
            .arg(dir.join("no-such.elf"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(want), "{name}: got {err:?}, want {want:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vcd_power_state_shows_deep_sleep() {
    let mut m = machine(true);
    answer_stimulus(&mut m);
    m.write32(SCB_SCR, 4).unwrap(); // SLEEPDEEP
    m.install_io_scenario(scenario("[[stimulus]]\nkind='periodic'\nperiod='40us'\ncount=2\n"), 0);
    m.record_timeline();
    run_until(&mut m, 2500);
    let power = &m.io.timeline.as_ref().unwrap().power;
    assert!(power.iter().any(|&(c, s)| c < 1000 && s == cairn_sim::observe::timeline::PowerState::DeepSleep));
    let mut buf = Vec::new();
    cairn_sim::io_system::write_vcd(&m, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let ident = text.lines().find(|l| l.ends_with(" state $end")).unwrap().split(' ').nth(3).unwrap().to_string();
    // Deep sleep (2) until the first firing at cycle 1000, run (0) from then on.
    let body: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("$enddefinitions")).collect();
    let pos = |needle: &str| body.iter().position(|l| *l == needle);
    let deep = pos(&format!("b10 {ident}")).expect("deep sleep value");
    let woke = pos(&format!("#{}", 1000 * CYCLE_PS)).expect("wake-up instant");
    assert!(deep < woke && body[woke + 1..].iter().take(4).any(|l| *l == format!("b0 {ident}")));
}
