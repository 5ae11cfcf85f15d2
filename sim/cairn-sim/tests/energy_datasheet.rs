//! The STM32L053 profile against ST's datasheet DS10152 (Rev 9), one test per table the model
//! uses: firmware (kernel/tests/sim/energy_*.c, built by `make build`) runs on cairn-sim with
//! `--energy stm32l053 --stats`, and the mean current computed from the stats' energy and
//! time must be within 5 % of the datasheet's typical figure. Also the command-line errors of
//! voltage ranges.

/// DS10152 §6.3.4: typical currents at VDD = 3.0 V, the profile's supply.
const VDD: f64 = 3.0;

mod firmware;
mod sim_cli;
use firmware::fw_path;

/// (status, stdout, stderr) of `cairn-sim run ARGS`.
/// `cairn-sim run ARGS`: (status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    sim_cli::run(&[&["run"], args].concat())
}

/// Runs build/fw/test-`name`.elf with the profile at `clock`, extra `args`; the stats and
/// stdout. None when the firmware is not built.
fn stats(name: &str, clock: &str, args: &[&str]) -> Option<(serde_json::Value, String)> {
    let elf = fw_path(&format!("test-{name}.elf"))?;
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("cairn-ds10152-{}-{name}-{n}.json", std::process::id()));
    let mut all = vec!["--energy", "stm32l053", "--clock", clock, "--stats", out.to_str().unwrap()];
    all.extend_from_slice(args);
    all.push(elf.to_str().unwrap());
    let (status, stdout, err) = run(&all);
    assert_eq!(status, 0, "{name} at {clock}: {err}");
    let v = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    Some((v, stdout))
}

/// Mean supply current over the run, uA: total energy / time / VDD.
fn mean_ua(s: &serde_json::Value) -> f64 {
    s["energy_joules"]["total"].as_f64().unwrap() / s["simulated_seconds"].as_f64().unwrap() / VDD * 1e6
}

fn near(what: &str, got: f64, want: f64) {
    assert!((got / want - 1.0).abs() < 0.05, "{what}: {got:.4} vs DS10152 {want} (more than 5 % apart)");
}

#[test]
fn table_28_run_current_per_voltage_range() {
    // (clock, forced range, uA): every point of Table 28, "code with data processing running
    // from Flash memory"; without a forced range the clock picks the lowest-power range.
    let points = [
        ("1MHz", None, 165.0),
        ("2MHz", None, 290.0),
        ("4MHz", None, 555.0),
        ("4MHz", Some("2"), 665.0),
        ("8MHz", None, 1300.0),
        ("16MHz", None, 2600.0),
        ("8MHz", Some("1"), 1550.0),
        ("16MHz", Some("1"), 3100.0),
        ("32MHz", None, 6300.0),
    ];
    for (clock, range, want) in points {
        let args: Vec<&str> = range.map(|r| vec!["--voltage-range", r]).unwrap_or_default();
        let Some((s, _)) = stats("energy_dproc", clock, &args) else { return };
        let expect_range: u64 = range.map_or(
            if want < 600.0 {
                3
            } else if clock == "32MHz" {
                1
            } else {
                2
            },
            |r| r.parse().unwrap(),
        );
        assert_eq!(s["energy_model"]["voltage_range"], expect_range, "{clock}");
        near(&format!("run at {clock}, range {expect_range}"), mean_ua(&s), want);
    }
}

#[test]
fn table_3_flash_wait_states_per_range_keep_cycle_counts_at_the_default_clock() {
    // Range 1 at the board's 25 MHz: 1 wait state (above 16 MHz), as before voltage ranges;
    // range 2 at 16 MHz: 1 wait state (above 8 MHz); range 3 at 4 MHz: none.
    let Some((plain1, _)) = stats("energy_dproc", "25MHz", &["--flash-wait-states", "1"]) else { return };
    let (auto, _) = stats("energy_dproc", "25MHz", &[]).unwrap();
    assert_eq!(auto["cycles"], plain1["cycles"], "25 MHz: range 1, 1 wait state");
    for (clock, ws) in [("16MHz", "1"), ("4MHz", "0")] {
        let (a, _) = stats("energy_dproc", clock, &[]).unwrap();
        let (b, _) = stats("energy_dproc", clock, &["--flash-wait-states", ws]).unwrap();
        assert_eq!(a["cycles"], b["cycles"], "{clock}: {ws} wait states");
    }
}

#[test]
fn table_32_sleep_current_per_voltage_range() {
    // Sleep mode, flash on: WFI loop woken every 100 ms (energy_sleep.c).
    let points = [
        ("4MHz", None, 150.0),
        ("16MHz", None, 605.0),
        ("8MHz", Some("1"), 380.0),
        ("16MHz", Some("1"), 730.0),
        ("32MHz", None, 1650.0),
    ];
    for (clock, range, want) in points {
        let args: Vec<&str> = range.map(|r| vec!["--voltage-range", r]).unwrap_or_default();
        let Some((s, _)) = stats("energy_sleep", clock, &args) else { return };
        near(&format!("sleep at {clock}"), mean_ua(&s), want);
    }
}

#[test]
fn tables_35_and_39_stop_current_with_and_without_rtc() {
    // SysTick (the RTC's stand-in) wakes energy_stop.c every 16.8 s: Stop 0.41 uA (Table 35)
    // + RTC 0.48 uA (Table 39). energy_stop_ext.c is woken by a stimulus with no timer
    // running: Stop alone. Wake-ups are a negligible share of either run.
    let Some((with_rtc, _)) = stats("energy_stop", "16MHz", &[]) else { return };
    near("Stop with RTC", mean_ua(&with_rtc), 0.41 + 0.48);
    let io = concat!(env!("CARGO_MANIFEST_DIR"), "/../../kernel/tests/sim/energy_stop_ext.toml");
    let (no_rtc, _) = stats("energy_stop_ext", "16MHz", &["--io", io]).unwrap();
    near("Stop without RTC", mean_ua(&no_rtc), 0.41);
}

#[test]
fn tables_37_and_40_wake_up_time_and_current() {
    // From Stop on HSI16: 4.9 us (Table 40) at 1 mA (Table 37); from Sleep: 7 cycles (Table 40).
    let Some((stop, _)) = stats("energy_stop", "16MHz", &[]) else { return };
    let m = &stop["energy_model"];
    let wakes = m["wakeups"]["deep_sleep"].as_u64().unwrap();
    assert_eq!(wakes, 2);
    let cycles = m["cycles_by_state"]["wakeup"].as_u64().unwrap() as f64 / wakes as f64;
    near("Stop wake-up time, us", cycles / 16.0, 4.9);
    let wake_j = stop["energy_joules"]["by_state"]["wakeup"].as_f64().unwrap() / wakes as f64;
    near("Stop wake-up current, uA", wake_j / (cycles / 16e6) / VDD * 1e6, 1000.0);
    let (sleep, _) = stats("energy_sleep", "32MHz", &[]).unwrap();
    let m = &sleep["energy_model"];
    let per_wake = m["cycles_by_state"]["wakeup"].as_u64().unwrap() / m["wakeups"]["sleep"].as_u64().unwrap();
    assert_eq!(per_wake, 7, "Sleep wake-up cycles");
}

#[test]
fn table_38_usart_current_per_voltage_range() {
    // energy_uart.c sends bytes with BAUDDIV 217: 10 bit times of 217 cycles each. The
    // USART's energy over the bytes' line time is its current: Table 38, USART2, uA/MHz.
    for (clock, mhz, ua_per_mhz) in [("32MHz", 32.0, 14.5), ("16MHz", 16.0, 12.0), ("4MHz", 4.0, 9.5)] {
        let Some((s, stdout)) = stats("energy_uart", clock, &[]) else { return };
        let bytes = stdout.len() as f64;
        assert_eq!(bytes, 4000.0, "100 lines of 40 bytes");
        let seconds = bytes * 10.0 * 217.0 / (mhz * 1e6);
        let ua = s["energy_joules"]["by_state"]["peripherals"].as_f64().unwrap() / seconds / VDD * 1e6;
        near(&format!("USART at {clock}"), ua / mhz, ua_per_mhz);
    }
}

#[test]
fn table_62_adc_conversion_current() {
    // 1000 conversions of 0.875 us (t_CONV at 16 MHz f_ADC) at I_DDA 200 uA + I_DD 70 uA.
    let io = concat!(env!("CARGO_MANIFEST_DIR"), "/../../kernel/tests/sim/energy_adc.toml");
    let Some((s, _)) = stats("energy_adc", "16MHz", &["--io", io]) else { return };
    let per_conversion = s["energy_joules"]["by_state"]["peripherals"].as_f64().unwrap() / 1000.0;
    near("ADC current during a conversion, uA", per_conversion / 0.875e-6 / VDD * 1e6, 270.0);
}

/// One line on stderr, exit 2, no panic.
fn usage_error(args: &[&str], needle: &str) {
    let (status, _, err) = run(args);
    assert_eq!(status, 2, "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unsupported_clocks_and_bad_ranges_exit_2_with_one_line() {
    let elf = "no-such.elf"; // the range is checked before the ELF is read
    usage_error(
        &["--energy", "stm32l053", "--clock", "48MHz", elf],
        "no voltage range runs a 48 MHz clock (at most 32 MHz)",
    );
    usage_error(
        &["--energy", "stm32l053", "--clock", "32MHz", "--voltage-range", "3", elf],
        "voltage range 3 runs at most 4.2 MHz, not 32 MHz",
    );
    usage_error(
        &["--energy", "stm32l053", "--voltage-range", "4", elf],
        "voltage range 4: no such range (the part has 3, 2, 1)",
    );
    usage_error(
        &["--energy", "nrf51822", "--voltage-range", "2", elf],
        "voltage range 2: no such range (the part has 1)",
    );
    usage_error(&["--voltage-range", "1", elf], "--voltage-range: needs an energy profile");
    usage_error(&["--energy", "stm32l053", "--voltage-range", "x", elf], "--voltage-range");
    let dir = std::env::temp_dir().join(format!("cairn-ds10152-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sc = dir.join("range9.toml");
    std::fs::write(&sc, "[energy]\nprofile = \"stm32l053\"\nvoltage_range = 9\n").unwrap();
    usage_error(
        &["--device", sc.to_str().unwrap(), elf],
        "energy.voltage_range: stm32l053 has no range 9 (it has 3, 2, 1)",
    );
    let sc = dir.join("range3.toml");
    std::fs::write(&sc, "clock = \"16MHz\"\n[energy]\nprofile = \"stm32l053\"\nvoltage_range = 3\n").unwrap();
    usage_error(&["--device", sc.to_str().unwrap(), elf], "voltage range 3 runs at most 4.2 MHz, not 16 MHz");
    // A version 1 profile is refused with one line saying why.
    let old = dir.join("old.toml");
    std::fs::write(&old, "version = 1\nname = \"old\"\npart = \"x\"\n").unwrap();
    usage_error(&["--energy", old.to_str().unwrap(), elf], "profile format 1 is no longer read");
}

#[test]
fn a_forced_range_from_the_scenario_is_used_and_the_command_line_wins() {
    let Some(elf) = fw_path("test-energy_dproc.elf") else { return };
    let dir = std::env::temp_dir().join(format!("cairn-ds10152-sc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sc = dir.join("r1.toml");
    std::fs::write(&sc, "clock = \"8MHz\"\n[energy]\nprofile = \"stm32l053\"\nvoltage_range = 1\n").unwrap();
    let out = dir.join("s.json");
    let read = |extra: &[&str]| -> serde_json::Value {
        let mut a = vec!["--device", sc.to_str().unwrap(), "--stats", out.to_str().unwrap()];
        a.extend_from_slice(extra);
        a.push(elf.to_str().unwrap());
        let (status, _, err) = run(&a);
        assert_eq!(status, 0, "{err}");
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    let s = read(&[]);
    assert_eq!(s["energy_model"]["voltage_range"], 1);
    near("scenario range 1 at 8 MHz", mean_ua(&s), 1550.0);
    let s = read(&["--voltage-range", "2"]);
    assert_eq!(s["energy_model"]["voltage_range"], 2);
    near("command-line range 2 at 8 MHz", mean_ua(&s), 1300.0);
}
