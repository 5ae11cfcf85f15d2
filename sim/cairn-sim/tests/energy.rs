//! Energy accounting: exact femtojoules for known instruction loops, totals equal to the
//! sums of their breakdowns, sleep / deep sleep / wake-up accounting, and the shipped
//! profiles reproducing their datasheet headline figures.

mod common;
use cairn_sim::energy::profile::Profile;
use cairn_sim::energy::report::{breakdown, Breakdown};
use cairn_sim::Machine;
use common::*;

/// A profile with round numbers so expected energies can be written down exactly.
const TEST_PROFILE: &str = r#"
version = 2
name = "test"
part = "test part"
[supply]
voltage_v = 3.0
source = "test"
[classes]
alu = 1.0
mul = 2.0
load = 1.2
store = 1.1
branch = 0.5
multi = 1.3
system = 1.0
sleep = 1.0
exception = 1.5
overhead_fj = 1000
source = "test"
[sleep]
wakeup_us = 0.0
wakeup_ua = 0.0
source = "test"
[deep_sleep]
ua_per_mhz = 0.0
static_ua = 2.0
wakeup_us = 1.0
wakeup_ua = 500.0
source = "test"
[[range]]
id = 1
zero_wait_max_hz = 100000000
wait_states_above = 0
source = "test"
[range.run]
ua_per_mhz = 100.0
source = "test"
[range.sleep]
ua_per_mhz = 10.0
static_ua = 0.0
source = "test"
"#;

fn enable(m: &mut Machine, profile: &str) {
    let p = if profile.contains('\n') { Profile::parse(profile).unwrap() } else { Profile::load(profile).unwrap() };
    m.enable_energy(&p, None, &[]).unwrap();
}

fn check_sums(b: &Breakdown) {
    let s = |x: &std::collections::BTreeMap<String, u128>| x.values().sum::<u128>();
    assert_eq!(s(&b.by_state), b.total_fj, "by_state sums to the total");
    assert_eq!(s(&b.by_category), b.total_fj, "by_category sums to the total");
    assert_eq!(s(&b.by_task), b.total_fj, "by_task sums to the total");
    assert_eq!(b.funcs.iter().map(|f| f.fj).sum::<u128>(), b.by_state["active"], "functions sum to active");
}

#[test]
fn loop_of_known_instructions_gives_exact_femtojoules() {
    // L: ADDS r0, #1 ; B L   (1 + 2 cycles per iteration)
    let mut m = boot(&[adds_imm8(0, 1), b_to(CODE + 2, CODE)]);
    enable(&mut m, TEST_PROFILE);
    step(&mut m, 2000);
    assert_eq!(m.cycles, 3000);
    let b = breakdown(&m).unwrap();
    // fJ per cycle = uA/MHz * mV: ALU 100 * 3000, branch 50 * 3000; overhead 1000 fJ each.
    let expected = 1000 * 100 * 3000 + 1000 * 2 * 50 * 3000 + 2000 * 1000;
    assert_eq!(b.total_fj, expected);
    assert_eq!(b.by_class["alu"], (1000, 1000, 1000 * 100 * 3000 + 1000 * 1000));
    assert_eq!(b.by_class["branch"], (2000, 1000, 1000 * 2 * 50 * 3000 + 1000 * 1000));
    assert_eq!(b.cycles_by_state["active"], 3000);
    check_sums(&b);
}

#[test]
fn energy_accounting_does_not_change_cycles_without_sleep() {
    let code = [movs(1, 7), muls(0, 1), push(0x3, true), pop(0x3, false), b_to(CODE + 8, CODE)];
    let mut a = boot(&code);
    let mut b = boot(&code);
    enable(&mut b, TEST_PROFILE);
    step(&mut a, 5000);
    step(&mut b, 5000);
    assert_eq!((a.cycles, a.instructions), (b.cycles, b.instructions));
    let bd = breakdown(&b).unwrap();
    assert_eq!(bd.cycles_by_state["active"], b.cycles);
    check_sums(&bd);
}

/// WFI loop woken by SysTick every `period` cycles; `deep` sets SCR.SLEEPDEEP.
fn wfi_loop(deep: bool, period: u32, profile: &str) -> Machine {
    // L: WFI ; B L    SysTick handler: BX LR
    let mut m = boot(&[wfi(), b_to(CODE + 2, CODE)]);
    load(&mut m, handler(SYSTICK), &[bx(14)]);
    if deep {
        m.write32(SCB_SCR, 4).unwrap();
    }
    enable(&mut m, profile);
    m.write32(SYST_RVR, period - 1).unwrap();
    m.write32(SYST_CSR, 7).unwrap();
    m
}

#[test]
fn sleep_is_charged_at_the_sleep_current() {
    let mut m = wfi_loop(false, 1000, TEST_PROFILE);
    step(&mut m, 300);
    let b = breakdown(&m).unwrap();
    assert_eq!(b.cycles_by_state["sleep"], m.sleep_cycles);
    assert_eq!(b.cycles_by_state["deep_sleep"], 0);
    assert_eq!(b.cycles_by_state["wakeup"], 0, "no wake-up latency for plain sleep");
    // 10 uA/MHz at 3.0 V: 30,000 fJ per sleeping cycle.
    assert_eq!(b.by_state["sleep"], m.sleep_cycles as u128 * 30_000);
    assert_eq!(b.cycles_by_state["active"] + m.sleep_cycles, m.cycles);
    check_sums(&b);
    assert!(m.idle.periods >= 90, "one idle period per SysTick: {}", m.idle.periods);
}

#[test]
fn deep_sleep_wakeup_delays_the_core_and_is_charged() {
    let mut plain = boot(&[wfi(), b_to(CODE + 2, CODE)]);
    load(&mut plain, handler(SYSTICK), &[bx(14)]);
    plain.write32(SCB_SCR, 4).unwrap();
    plain.write32(SYST_RVR, 999).unwrap();
    plain.write32(SYST_CSR, 7).unwrap();
    let mut m = wfi_loop(true, 1000, TEST_PROFILE);
    step(&mut plain, 1);
    step(&mut m, 1);
    // Asleep from 2 to 1000; 1 us at 25 MHz = 25 wake-up cycles before the entry (15).
    assert_eq!(plain.cycles, 1015);
    assert_eq!(m.cycles, 1015 + 25);
    step(&mut m, 200);
    let b = breakdown(&m).unwrap();
    let wakeups = m.idle.periods;
    assert_eq!(b.cycles_by_state["wakeup"], 25 * wakeups);
    assert_eq!(b.cycles_by_state["deep_sleep"], m.sleep_cycles);
    // Deep sleep: 2 uA static: E = n * 3000 mV * 2e6 pA * 1e6 / (25e6 * 1e6) fJ = n * 240 fJ.
    assert_eq!(b.by_state["deep_sleep"], m.sleep_cycles as u128 * 240);
    // Wake-up at 500 uA: 25 cycles * 3000 * 500e6 * 1e6 / 25e12 = 1,500,000 fJ each.
    assert_eq!(b.by_state["wakeup"], wakeups as u128 * 1_500_000);
    assert_eq!(b.cycles_by_state["active"] + m.sleep_cycles + 25 * wakeups, m.cycles);
    check_sums(&b);
}

/// Average current in uA over the run, from the energy total.
fn average_ua(m: &Machine, b: &Breakdown, volts: f64) -> f64 {
    let seconds = m.cycles as f64 / m.config.clock_hz as f64;
    b.total_fj as f64 * 1e-15 / seconds / volts * 1e6
}

#[test]
fn profiles_reproduce_their_headline_run_current() {
    // STM32L053: DS10152 Table 28, range 1 at 32 MHz, 6.3 mA; nRF51822: 4.4 mA at 16 MHz (PS,
    // an estimate: see its profile).
    for (name, hz, want_ua) in [("stm32l053", 32_000_000, 6300.0), ("nrf51822", 16_000_000, 4400.0)] {
        let mut c = cfg();
        c.clock_hz = hz;
        let mut m = boot_cfg(c, &[b_to(CODE, CODE)]);
        enable(&mut m, name);
        step(&mut m, 100_000);
        let b = breakdown(&m).unwrap();
        let ua = average_ua(&m, &b, 3.0);
        assert!((ua / want_ua - 1.0).abs() < 0.05, "{name}: busy loop {ua:.1} uA vs {want_ua}");
    }
}

#[test]
fn profiles_reproduce_their_headline_sleep_current() {
    // SysTick on its 1 MHz reference clock (CLKSOURCE = 0) with the longest reload: the
    // core sleeps ~16.7 s between wake-ups, so the run's average is the sleep current.
    // STM32L053: Stop 0.41 uA (DS10152 Table 35) + RTC 0.48 uA (Table 39), as SysTick wakes it;
    // nRF51822: System ON, RAM retained, 2.6 uA (PS v3.3 p. 47).
    for (name, sleep_ua) in [("stm32l053", 0.89), ("nrf51822", 2.6)] {
        let mut c = cfg();
        c.clock_hz = 16_000_000;
        let mut m = boot_cfg(c, &[wfi(), b_to(CODE + 2, CODE)]);
        load(&mut m, handler(SYSTICK), &[bx(14)]);
        m.write32(SCB_SCR, 4).unwrap();
        enable(&mut m, name);
        m.write32(SYST_RVR, 0x00FF_FFFF).unwrap();
        m.write32(SYST_CSR, 3).unwrap();
        step(&mut m, 3 * 4);
        let b = breakdown(&m).unwrap();
        let ua = average_ua(&m, &b, 3.0);
        assert!((ua / sleep_ua - 1.0).abs() < 0.05, "{name}: WFI loop {ua:.3} uA vs {sleep_ua}");
    }
}

#[test]
fn voltage_override_scales_energy() {
    let mut a = boot(&[adds_imm8(0, 1), b_to(CODE + 2, CODE)]);
    let mut b = boot(&[adds_imm8(0, 1), b_to(CODE + 2, CODE)]);
    let p = Profile::parse(TEST_PROFILE).unwrap();
    a.enable_energy(&p, None, &[]).unwrap();
    b.enable_energy(&p, Some(1.5), &[]).unwrap();
    step(&mut a, 1000);
    step(&mut b, 1000);
    assert_eq!(breakdown(&a).unwrap().total_fj, 2 * breakdown(&b).unwrap().total_fj);
}

#[test]
fn peripherals_uart_bytes_and_enabled_timers_are_charged() {
    let mut m = boot(&[b_to(CODE, CODE)]);
    enable(&mut m, "stm32l053");
    let uart0 = 0x4000_4000;
    m.write32(uart0 + 8, 1).unwrap(); // CTRL: TX enable
    for b in b"hi\n" {
        m.write32(uart0, *b as u32).unwrap();
    }
    let timer0 = 0x4000_0000;
    m.write32(timer0 + 8, 1000).unwrap(); // RELOAD
    m.write32(timer0, 1).unwrap(); // CTRL: enable
    step(&mut m, 500); // 1000 cycles of B .
    m.write32(timer0, 0).unwrap();
    let b = breakdown(&m).unwrap();
    let e = m.energy.as_deref().unwrap();
    let r = &e.rates;
    let (uart, baud) = r.uart.unwrap();
    // 3 bytes x 10 bit times at 115200 baud, in cycles at 25 MHz (floored), and 1000 timer cycles.
    let uart_cycles = 3 * 10 * 25_000_000 / baud;
    let expected = r.fj(uart_cycles, uart) + r.fj(1000, r.timer.unwrap());
    assert_eq!(b.by_state["peripherals"], expected);
    assert_eq!(b.by_task["peripherals"], expected);
    check_sums(&b);
}

#[test]
fn uart_bytes_are_charged_at_the_programmed_baud_rate() {
    let mut m = boot(&[b_to(CODE, CODE)]);
    enable(&mut m, "stm32l053");
    let uart0 = 0x4000_4000;
    m.write32(uart0 + 0x10, 217).unwrap(); // BAUDDIV: 25 MHz / 217 = 115207 baud
    m.write32(uart0 + 8, 1).unwrap();
    m.write32(uart0, b'a' as u32).unwrap();
    m.write32(uart0 + 0x10, 2604).unwrap(); // 9600 baud
    m.write32(uart0, b'b' as u32).unwrap();
    step(&mut m, 10);
    let b = breakdown(&m).unwrap();
    let r = &m.energy.as_deref().unwrap().rates;
    assert_eq!(b.by_state["peripherals"], r.fj(10 * 217 + 10 * 2604, r.uart.unwrap().0));
    check_sums(&b);
}

#[test]
fn adc_conversions_are_charged_per_conversion_from_enable_on() {
    use cairn_sim::periph::cairn_io::ADC_BASE;
    use cairn_sim::periph::io_event::IoKind;
    let mut m = boot(&[b_to(CODE, CODE)]);
    let io = "[adc]\nrate_hz = 1000000\n[[adc.channel]]\nsource = 'step'\n[[adc.channel]]\nsource = 'ramp'\nslope_per_s = 1.0\n";
    let sc = cairn_sim::scenario_io::parse_io_scenario(&io.parse::<toml::Table>().unwrap(), std::path::Path::new("."));
    m.install_io_scenario(sc.unwrap(), 0);
    m.read32(ADC_BASE + 0x20).unwrap(); // before accounting starts: not charged
                                        // 100 uA for 2 us at 3 V: 600 pJ = 600,000 fJ per conversion.
    let profile = format!("{TEST_PROFILE}[peripherals.adc]\nua = 100.0\nconversion_us = 2.0\nsource = \"test\"\n");
    enable(&mut m, &profile);
    assert_eq!(m.energy.as_deref().unwrap().rates.adc_fj_per_conversion, Some(600_000));
    m.read32(ADC_BASE + 0x20).unwrap();
    m.read32(ADC_BASE + 0x24).unwrap();
    m.io.events.clear();
    m.write32(ADC_BASE, 1).unwrap(); // CTRL.PERIODIC: both channels every 25 cycles
    step(&mut m, 500); // 1000 cycles of B .
    let periodic = m.io.events.iter().filter(|e| e.kind == IoKind::Adc).count() as u128;
    assert_eq!(periodic, 2 * 40, "two channels at every 25th cycle of 1000");
    let b = breakdown(&m).unwrap();
    assert_eq!(b.by_state["peripherals"], (2 + periodic) * 600_000);
    assert_eq!(b.by_category["peripherals"], (2 + periodic) * 600_000);
    check_sums(&b);
}

#[test]
fn negative_peripheral_figures_are_rejected() {
    for section in [
        "[peripherals.adc]\nua = -1.0\nconversion_us = 1.0\nsource = \"x\"\n",
        "[peripherals.timer]\nua_per_mhz = -1.0\nsource = \"x\"\n",
    ] {
        let err = Profile::parse(&format!("{TEST_PROFILE}{section}")).unwrap_err();
        assert!(err.contains("non-negative"), "{err}");
    }
}

#[test]
fn malformed_ranges_and_old_versions_are_rejected_with_one_line() {
    let range2 = "[[range]]\nid = 1\nzero_wait_max_hz = 1\nwait_states_above = 0\nsource = \"x\"\n[range.run]\nua_per_mhz = 1.0\nsource = \"x\"\n[range.sleep]\nua_per_mhz = 1.0\nsource = \"x\"\n";
    for (text, needle) in [
        (format!("{TEST_PROFILE}{range2}"), "id 1 appears twice"),
        (
            TEST_PROFILE.replace("[range.run]\nua_per_mhz = 100.0", "[range.run]\npoints = [[2.0, 1.0], [1.0, 2.0]]"),
            "increasing",
        ),
        (
            TEST_PROFILE
                .replace("[range.run]\nua_per_mhz = 100.0", "[range.run]\npoints = [[1.0, 1.0]]\nua_per_mhz = 1.0"),
            "not both",
        ),
        (
            format!("{TEST_PROFILE}[peripherals.uart]\nua_per_mhz = {{ \"2\" = 1.0 }}\nbaud = 9600\nsource = \"x\"\n"),
            "no value for range 1",
        ),
        (TEST_PROFILE.replace("version = 2", "version = 1"), "profile format 1 is no longer read"),
        (TEST_PROFILE.replace("version = 2", "version = 3"), "unsupported profile version 3"),
    ] {
        let err = Profile::parse(&text).unwrap_err();
        assert!(err.contains(needle), "{needle}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn per_range_peripheral_currents_follow_the_range_in_use() {
    // stm32l053 USART: 14.5 uA/MHz in range 1 (25 MHz), 9.5 in range 3 (4 MHz, or forced).
    for (hz, forced, ua_per_mhz) in [(25_000_000, None, 14.5), (4_000_000, None, 9.5), (4_000_000, Some(1), 14.5)] {
        let mut c = cfg();
        c.clock_hz = hz;
        c.voltage_range = forced;
        let mut m = boot_cfg(c, &[b_to(CODE, CODE)]);
        enable(&mut m, "stm32l053");
        let uart = m.energy.as_deref().unwrap().rates.uart.unwrap().0;
        assert_eq!(uart.pa_per_mhz, (ua_per_mhz * 1e6) as u128, "{hz} Hz, range {forced:?}");
    }
}

#[test]
fn profile_wait_states_get_the_option_range_check() {
    // A u32 that --flash-wait-states would refuse used to be taken as is (4e9 wait states).
    let bad = TEST_PROFILE.replace("wait_states_above = 0", "wait_states_above = 4000000000");
    assert_eq!(Profile::parse(&bad).unwrap_err(), "range 1: wait_states_above: 4000000000 is out of range 0..=15");
    assert!(Profile::parse(&TEST_PROFILE.replace("wait_states_above = 0", "wait_states_above = 15")).is_ok());
}
