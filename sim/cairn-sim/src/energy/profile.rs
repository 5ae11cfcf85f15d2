//! Energy profiles: per-part TOML data files (sim/profiles/*.toml, embedded in the binary)
//! and their conversion to exact integer rates for one run (clock and supply fixed).

use serde::Deserialize;
use std::path::Path;

/// Profiles shipped with cairn-sim, by name.
const EMBEDDED: &[(&str, &str)] = &[
    ("stm32l053", include_str!("../../../profiles/stm32l053.toml")),
    ("nrf51822", include_str!("../../../profiles/nrf51822.toml")),
];

pub fn embedded_names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(n, _)| *n).collect()
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub version: u32,
    pub name: String,
    pub part: String,
    pub supply: Supply,
    pub run: Run,
    pub classes: Classes,
    pub flash: Flash,
    pub sleep: SleepState,
    pub deep_sleep: SleepState,
    #[serde(default)]
    pub peripherals: Peripherals,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Supply {
    pub voltage_v: f64,
    pub source: String,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub ua_per_mhz: f64,
    pub source: String,
}

/// Base current of each instruction class in uA/MHz, plus Tiwari's constant
/// inter-instruction overhead in fJ per instruction (at the profile's supply voltage).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Classes {
    pub alu: f64,
    pub mul: f64,
    pub load: f64,
    pub store: f64,
    pub branch: f64,
    pub multi: f64,
    pub system: f64,
    pub sleep: f64,
    pub exception: f64,
    pub overhead_fj: u64,
    pub source: String,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Flash {
    pub zero_wait_max_hz: u64,
    pub wait_states_above: u32,
    pub source: String,
}

/// A sleep state: current = static_ua + ua_per_mhz * f; leaving it takes `wakeup_us` at
/// `wakeup_ua` (negative: the run current at the clock in use).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SleepState {
    pub ua_per_mhz: f64,
    pub static_ua: f64,
    pub wakeup_us: f64,
    pub wakeup_ua: f64,
    pub source: String,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Peripherals {
    pub uart: Option<Uart>,
    pub timer: Option<Timer>,
    pub adc: Option<Adc>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Uart {
    pub ua_per_mhz: f64,
    pub baud: u64,
    pub source: String,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Timer {
    pub ua_per_mhz: f64,
    pub source: String,
}

/// The ADC draws `ua` for `conversion_us` per conversion (sampling + conversion at the
/// part's ADC clock); it is charged per conversion, whatever the sampling rate.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Adc {
    pub ua: f64,
    pub conversion_us: f64,
    pub source: String,
}

impl Profile {
    /// A profile by embedded name, or a path to a TOML file. The error is one line.
    pub fn load(name_or_path: &str) -> Result<Profile, String> {
        if let Some((_, text)) = EMBEDDED.iter().find(|(n, _)| *n == name_or_path) {
            return Profile::parse(text).map_err(|e| format!("embedded profile {name_or_path}: {e}"));
        }
        let looks_like_path = name_or_path.contains('/') || name_or_path.ends_with(".toml");
        if !looks_like_path {
            return Err(format!("unknown profile \"{name_or_path}\" (known: {})", embedded_names().join(", ")));
        }
        let text = crate::input_file::read_input_text(Path::new(name_or_path), crate::input_file::TEXT_LIMIT)?;
        Profile::parse(&text).map_err(|e| format!("{name_or_path}: {e}"))
    }

    pub fn parse(text: &str) -> Result<Profile, String> {
        let p: Profile = toml::from_str(text).map_err(|e| one_line(&e.to_string()))?;
        if p.version != 1 {
            return Err(format!("version: unsupported profile version {} (expected 1)", p.version));
        }
        let c = &p.classes;
        let all = [
            p.supply.voltage_v,
            p.run.ua_per_mhz,
            c.alu,
            c.mul,
            c.load,
            c.store,
            c.branch,
            c.multi,
            c.system,
            c.sleep,
            c.exception,
            p.sleep.ua_per_mhz,
            p.sleep.static_ua,
            p.sleep.wakeup_us,
            p.deep_sleep.ua_per_mhz,
            p.deep_sleep.static_ua,
            p.deep_sleep.wakeup_us,
        ];
        let per = &p.peripherals;
        let peripherals = [
            per.uart.as_ref().map_or(0.0, |u| u.ua_per_mhz),
            per.timer.as_ref().map_or(0.0, |t| t.ua_per_mhz),
            per.adc.as_ref().map_or(0.0, |a| a.ua),
            per.adc.as_ref().map_or(0.0, |a| a.conversion_us),
        ];
        if all.iter().chain(&peripherals).any(|v| !v.is_finite() || *v < 0.0 || *v > 1e6) {
            return Err("currents, voltages and times must be finite, non-negative and below 1e6".into());
        }
        // The same check as --flash-wait-states and [memory] flash_wait_states (cli::units).
        crate::scenario::parse_wait_states(&p.flash.wait_states_above.to_string())
            .map_err(|e| format!("flash.wait_states_above: {e}"))?;
        if c.overhead_fj > 1_000_000_000_000 {
            return Err("classes.overhead_fj: above 1e12 fJ (1 mJ) per instruction".into());
        }
        Ok(p)
    }
}

/// toml's errors span several lines (source excerpt); keep the first meaningful one.
pub fn one_line(msg: &str) -> String {
    msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
