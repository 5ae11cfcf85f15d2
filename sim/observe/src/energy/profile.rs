//! Energy profiles: per-part TOML data files (sim/profiles/*.toml, embedded in the binary)
//! and their conversion to exact integer rates for one run (clock and supply fixed).

use super::range::{PerRange, Range};
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

/// The profile format this build reads (docs/energy.md, "Profile file format").
pub const VERSION: u32 = 2;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub version: u32,
    pub name: String,
    pub part: String,
    pub supply: Supply,
    pub classes: Classes,
    pub sleep: Wakeup,
    pub deep_sleep: DeepSleep,
    /// Voltage ranges, lowest-power first (a part without ranges has one).
    #[serde(rename = "range")]
    pub ranges: Vec<Range>,
    #[serde(default)]
    pub peripherals: Peripherals,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Supply {
    pub voltage_v: f64,
    pub source: String,
}

/// Current of each instruction class as a factor of the range's run current (1.0 = the run
/// current), plus Tiwari's constant inter-instruction overhead in fJ per instruction (at the
/// profile's supply voltage).
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

/// Leaving Sleep mode: `wakeup_us` plus `wakeup_cycles` at `wakeup_ua` (negative: the run
/// current at the clock in use). Its current is per range (`[range.sleep]`).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Wakeup {
    pub wakeup_us: f64,
    #[serde(default)]
    pub wakeup_cycles: u64,
    pub wakeup_ua: f64,
    pub source: String,
}

/// Deep sleep (SLEEPDEEP): current = static_ua + ua_per_mhz * f, plus `rtc_ua` while a timer
/// that can wake the core runs (the part's RTC); leaving it as for `Wakeup`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DeepSleep {
    pub ua_per_mhz: f64,
    pub static_ua: f64,
    #[serde(default)]
    pub rtc_ua: f64,
    pub wakeup_us: f64,
    #[serde(default)]
    pub wakeup_cycles: u64,
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

/// `ua_per_mhz`: one figure, or one per range id.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Uart {
    pub ua_per_mhz: PerRange,
    pub baud: u64,
    pub source: String,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Timer {
    pub ua_per_mhz: PerRange,
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
        let text =
            cairn_input::input_file::read_input_text(Path::new(name_or_path), cairn_input::input_file::TEXT_LIMIT)?;
        Profile::parse(&text).map_err(|e| format!("{name_or_path}: {e}"))
    }

    pub fn parse(text: &str) -> Result<Profile, String> {
        // The version first, so an old file gets a message about its version rather than
        // about the first key the new format renamed.
        let table: toml::Table = toml::from_str(text).map_err(|e| one_line(&e.to_string()))?;
        match table.get("version").and_then(toml::Value::as_integer) {
            Some(v) if v == VERSION as i64 => {}
            Some(1) => {
                return Err("version: profile format 1 is no longer read; version 2 gives currents per voltage range ([[range]]) and class factors (docs/energy.md, \"Profile file format\")".into())
            }
            Some(v) => return Err(format!("version: unsupported profile version {v} (expected {VERSION})")),
            None => return Err(format!("version: missing (expected version = {VERSION})")),
        }
        let p: Profile = table.try_into().map_err(|e: toml::de::Error| one_line(&e.to_string()))?;
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<(), String> {
        let c = &self.classes;
        let d = &self.deep_sleep;
        let all = [
            self.supply.voltage_v,
            c.alu,
            c.mul,
            c.load,
            c.store,
            c.branch,
            c.multi,
            c.system,
            c.sleep,
            c.exception,
            self.sleep.wakeup_us,
            d.ua_per_mhz,
            d.static_ua,
            d.rtc_ua,
            d.wakeup_us,
        ];
        let per = &self.peripherals;
        let mut peripherals =
            vec![per.adc.as_ref().map_or(0.0, |a| a.ua), per.adc.as_ref().map_or(0.0, |a| a.conversion_us)];
        peripherals.extend(per.uart.iter().flat_map(|u| u.ua_per_mhz.values()));
        peripherals.extend(per.timer.iter().flat_map(|t| t.ua_per_mhz.values()));
        if all.iter().chain(&peripherals).any(|v| !v.is_finite() || *v < 0.0 || *v > 1e6) {
            return Err("currents, voltages and times must be finite, non-negative and below 1e6".into());
        }
        if c.overhead_fj > 1_000_000_000_000 {
            return Err("classes.overhead_fj: above 1e12 fJ (1 mJ) per instruction".into());
        }
        if self.sleep.wakeup_cycles > 1_000_000_000 || d.wakeup_cycles > 1_000_000_000 {
            return Err("wakeup_cycles: above 1e9".into());
        }
        if self.ranges.is_empty() {
            return Err("range: the profile needs at least one [[range]]".into());
        }
        for (i, r) in self.ranges.iter().enumerate() {
            if self.ranges[..i].iter().any(|q| q.id == r.id) {
                return Err(format!("range: id {} appears twice", r.id));
            }
            r.run.check(&format!("range {} run", r.id))?;
            r.sleep.check(&format!("range {} sleep", r.id))?;
            // The same check as --flash-wait-states and [memory] flash_wait_states.
            parse_wait_states(&r.wait_states_above.to_string())
                .map_err(|e| format!("range {}: wait_states_above: {e}", r.id))?;
        }
        if let Some(u) = &per.uart {
            u.ua_per_mhz.check("peripherals.uart.ua_per_mhz", &self.ranges)?;
        }
        if let Some(t) = &per.timer {
            t.ua_per_mhz.check("peripherals.timer.ua_per_mhz", &self.ranges)?;
        }
        Ok(())
    }

    /// The voltage range at `clock_hz` (`forced`: the scenario's or command line's choice).
    pub fn range(&self, clock_hz: u64, forced: Option<u32>) -> Result<&Range, String> {
        super::range::select(&self.ranges, clock_hz, forced)
    }
}

pub use cairn_input::toml_error::one_line;
use cairn_input::units::parse_wait_states;
