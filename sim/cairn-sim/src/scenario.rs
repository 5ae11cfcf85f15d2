//! Scenario files (`cairn-sim run --device FILE.toml`): board, clock, memory, energy
//! profile, category map and measurement options (docs/scenario.md). Every section is
//! checked by its own strict (deny_unknown_fields) type, so an error names the offending
//! key. The I/O keys (stimulus, pin, port, adc, io, uart_input) are parsed by `scenario_io`.

use crate::energy::categories::Rule;
use crate::energy::profile::Profile;
use crate::input_file::{read_input_text, TEXT_LIMIT};
use crate::toml_error::one_line;
use crate::units::{numeric, parse_hz, parse_size, parse_uint};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Top-level keys owned by the stimulus/I/O effort: accepted and kept, not interpreted here.
pub const RESERVED_KEYS: &[&str] = &["stimulus", "pin", "port", "adc", "io", "uart_input"];

#[derive(Debug, Default)]
pub struct Scenario {
    pub board: Option<String>,
    pub clock_hz: Option<u64>,
    /// Resolved relative to the scenario file's folder.
    pub firmware: Option<PathBuf>,
    pub flash_size: Option<u32>,
    pub sram_size: Option<u32>,
    pub flash_wait_states: Option<u32>,
    pub profile: Option<Profile>,
    pub voltage_v: Option<f64>,
    /// `[energy] voltage_range`: the profile's voltage range, forced.
    pub voltage_range: Option<u32>,
    pub categories: Vec<Rule>,
    pub measure: Measure,
    /// Another RTOS's current task to follow (`rtos`, docs/rtos.md).
    pub rtos: Option<crate::rtos::RtosSpec>,
    /// `[stack]`: the main stack's limit and what its overflow does (docs/scenario.md).
    pub stack: crate::stack_guard::StackOptions,
    /// The I/O sections (stimulus, pin, port, adc, io, uart_input) as written.
    pub io_raw: toml::Table,
    /// The same, parsed (docs/stimuli.md); None when the scenario has none.
    pub io: Option<crate::scenario_io::IoScenario>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// Energy accounting (default: on when a profile is given).
    #[serde(default = "yes")]
    pub energy: bool,
    /// Rows of the per-function profile in the stats (0 = all).
    #[serde(default)]
    pub profile_top: usize,
}

fn yes() -> bool {
    true
}

impl Default for Measure {
    fn default() -> Self {
        Measure { energy: true, profile_top: 0 }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Memory {
    flash: Option<toml::Value>,
    sram: Option<toml::Value>,
    flash_wait_states: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Energy {
    profile: String,
    voltage_v: Option<f64>,
    voltage_range: Option<toml::Value>,
}

/// `rtos = "NAME"` / `"current=..."`, or the table `[rtos] current = "...", name = "...",
/// running = "..."`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RtosTable {
    current: String,
    name: Option<String>,
    running: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StackTable {
    limit: Option<toml::Value>,
    check: Option<String>,
}

/// `[stack] limit = ADDRESS | "0xADDRESS" | "SYMBOL"`, `check = "warn" | "fault" | "off"`.
fn stack_options(v: toml::Value) -> Result<crate::stack_guard::StackOptions, String> {
    use crate::stack_guard::{StackLimit, StackOptions};
    let t: StackTable = typed("stack", v)?;
    let limit = match t.limit {
        None => None,
        Some(toml::Value::Integer(a)) => Some(StackLimit::Address(
            u32::try_from(a).map_err(|_| format!("stack.limit: {a} is not a 32-bit address"))?,
        )),
        Some(toml::Value::String(s)) => Some(match s.strip_prefix("0x").or(s.strip_prefix("0X")) {
            Some(hex) => StackLimit::Address(
                u32::from_str_radix(hex, 16).map_err(|_| format!("stack.limit: '{s}' is not a 32-bit address"))?,
            ),
            None if !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()) => StackLimit::Symbol(s),
            None => return Err(format!("stack.limit: '{s}' is neither a symbol nor a 0x address")),
        }),
        Some(other) => return Err(format!("stack.limit: expected an address or a symbol, found {}", other.type_str())),
    };
    let check = match t.check {
        Some(c) => Some(crate::stack::StackCheck::parse(&c).map_err(|e| format!("stack.check: {e}"))?),
        None => None,
    };
    Ok(StackOptions { limit, check })
}

fn rtos_spec(v: toml::Value) -> Result<crate::rtos::RtosSpec, String> {
    let r = match v {
        toml::Value::String(s) => crate::rtos::RtosSpec::parse(&s),
        toml::Value::Table(_) => {
            let t: RtosTable = typed("rtos", v)?;
            let mut label = format!("current={}", t.current);
            if let Some(n) = &t.name {
                label.push_str(&format!(",name={n}"));
            }
            if let Some(r) = &t.running {
                label.push_str(&format!(",running={r}"));
            }
            crate::rtos::RtosSpec::generic(&label, &t.current, t.name.as_deref(), t.running.as_deref())
        }
        other => Err(format!("expected a string or a table, found {}", other.type_str())),
    };
    r.map_err(|e| format!("rtos: {e}"))
}

fn typed<T: for<'de> Deserialize<'de>>(key: &str, v: toml::Value) -> Result<T, String> {
    v.try_into().map_err(|e: toml::de::Error| format!("{key}: {}", one_line(e.message())))
}

pub use crate::units::parse_wait_states;

impl Scenario {
    /// Read and check `path`. The error is one line naming the file and the key.
    pub fn load(path: &Path) -> Result<Scenario, String> {
        let shown = path.display();
        let text = read_input_text(path, TEXT_LIMIT)?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scenario::parse(&text, base).map_err(|e| format!("{shown}: {e}"))
    }

    pub fn parse(text: &str, base: &Path) -> Result<Scenario, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| one_line(&e.to_string()))?;
        Scenario::from_table(table, base)
    }

    /// A scenario from its parsed TOML (a scenario file, or one processor of a device file);
    /// paths in it are relative to `base`.
    pub fn from_table(table: toml::Table, base: &Path) -> Result<Scenario, String> {
        let mut s = Scenario::default();
        let mut energy_measure_given = false;
        let mut energy: Option<Energy> = None;
        for (key, v) in table {
            match key.as_str() {
                k if RESERVED_KEYS.contains(&k) => {
                    s.io_raw.insert(key, v);
                }
                "board" => s.board = Some(typed("board", v)?),
                "clock" => s.clock_hz = Some(numeric("clock", &v, parse_hz)?),
                "firmware" => {
                    let f: String = typed("firmware", v)?;
                    s.firmware = Some(base.join(f));
                }
                "memory" => {
                    let m: Memory = typed("memory", v)?;
                    if let Some(f) = &m.flash {
                        s.flash_size = Some(numeric("memory.flash", f, parse_size)?);
                    }
                    if let Some(f) = &m.sram {
                        s.sram_size = Some(numeric("memory.sram", f, parse_size)?);
                    }
                    if let Some(w) = &m.flash_wait_states {
                        s.flash_wait_states = Some(numeric("memory.flash_wait_states", w, parse_wait_states)?);
                    }
                }
                "energy" => energy = Some(typed("energy", v)?),
                "rtos" => s.rtos = Some(rtos_spec(v)?),
                "stack" => s.stack = stack_options(v)?,
                "categories" => {
                    let toml::Value::Table(t) = v else {
                        return Err("categories: expected a table of category = [patterns]".into());
                    };
                    for (cat, pats) in t {
                        let key = format!("categories.{cat}");
                        let list: Vec<String> = match pats {
                            toml::Value::String(p) => vec![p],
                            other => typed(&key, other)?,
                        };
                        for p in list {
                            s.categories.push(Rule::parse(&cat, &p).map_err(|e| format!("{key}: {e}"))?);
                        }
                    }
                }
                "measure" => {
                    if let toml::Value::Table(t) = &v {
                        energy_measure_given = t.contains_key("energy");
                    }
                    s.measure = typed("measure", v)?;
                }
                other => {
                    return Err(format!(
                        "{other}: unknown key (known: board, clock, firmware, memory, energy, categories, measure, rtos, stack; reserved: {})",
                        RESERVED_KEYS.join(", ")
                    ))
                }
            }
        }
        if let Some(e) = energy {
            // A profile file is found relative to the scenario, like the firmware.
            let is_path = e.profile.contains('/') || e.profile.ends_with(".toml");
            let name = if is_path { base.join(&e.profile).display().to_string() } else { e.profile.clone() };
            let p = Profile::load(&name).map_err(|m| format!("energy.profile: {m}"))?;
            if let Some(v) = e.voltage_v {
                if !(v.is_finite() && v > 0.0 && v < 100.0) {
                    return Err(format!("energy.voltage_v: {v} is not a plausible supply voltage"));
                }
            }
            let range = match &e.voltage_range {
                Some(v) => Some(numeric("energy.voltage_range", v, |t| parse_uint(t, 0, u32::MAX as u64))? as u32),
                None => None,
            };
            if let Some(r) = range {
                if !p.ranges.iter().any(|x| x.id == r) {
                    let ids: Vec<String> = p.ranges.iter().map(|x| x.id.to_string()).collect();
                    return Err(format!(
                        "energy.voltage_range: {} has no range {r} (it has {})",
                        p.name,
                        ids.join(", ")
                    ));
                }
            }
            s.voltage_v = e.voltage_v;
            s.voltage_range = range;
            s.profile = Some(p);
        } else if energy_measure_given && s.measure.energy {
            return Err("measure.energy: energy accounting needs [energy] profile".into());
        }
        if !s.io_raw.is_empty() {
            s.io = Some(crate::scenario_io::parse_io_scenario(&s.io_raw, base).map_err(|e| e.to_string())?);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Scenario::parse(text, Path::new(".")).unwrap_err()
    }

    #[test]
    fn errors_name_the_key() {
        assert!(err("bogus = 1").starts_with("bogus: unknown key"));
        assert!(err("[energy]\nprofile = \"foo\"").starts_with("energy.profile: unknown profile \"foo\""));
        assert!(err("clock = true").starts_with("clock: "));
        assert!(err("[energy]\nprofile = \"stm32l053\"\nvolts = 3").starts_with("energy: unknown field"));
        assert!(err("[memory]\nflash = \"12Q\"").starts_with("memory.flash: "));
        assert!(err("[categories]\nkernel = [\"bad:x\"]").starts_with("categories.kernel: "));
        assert!(err("rtos = \"ucos\"").starts_with("rtos: unknown RTOS 'ucos'"));
        assert!(err("rtos = 3").starts_with("rtos: expected a string or a table"));
        assert!(err("[rtos]\ncurrent = \"a\"\nnom = \"b\"").starts_with("rtos: unknown field `nom`"));
        assert!(err("[rtos]\nname = \"b\"").starts_with("rtos: missing field `current`"));
        assert!(err("[rtos]\ncurrent = \"a..b\"").starts_with("rtos: current: "));
        assert_eq!(
            err("[stack]\ncheck = \"loud\""),
            "stack.check: unknown stack check 'loud' (known: warn, fault, off)"
        );
        assert_eq!(err("[stack]\nlimit = -4"), "stack.limit: -4 is not a 32-bit address");
        assert_eq!(err("[stack]\nlimit = \"0xg\""), "stack.limit: '0xg' is not a 32-bit address");
        assert_eq!(err("[stack]\nlimit = \"12\""), "stack.limit: '12' is neither a symbol nor a 0x address");
        assert!(err("[stack]\nlimt = 4").starts_with("stack: unknown field `limt`"));
    }

    #[test]
    fn stack_limits_are_addresses_or_symbols() {
        use crate::stack_guard::StackLimit;
        let ok = |t: &str| Scenario::parse(t, Path::new(".")).unwrap().stack;
        assert_eq!(ok("[stack]\nlimit = 536934400").limit, Some(StackLimit::Address(0x2000_f800)));
        assert_eq!(ok("[stack]\nlimit = \"0x2000f800\"").limit, Some(StackLimit::Address(0x2000_f800)));
        assert_eq!(ok("[stack]\nlimit = \"__guard\"").limit, Some(StackLimit::Symbol("__guard".into())));
        assert_eq!(ok("[stack]\ncheck = \"fault\"").check, Some(crate::stack::StackCheck::Fault));
        assert_eq!(ok("clock = 1").limit, None);
    }

    #[test]
    fn toml_numbers_get_the_command_line_checks() {
        // 2^32 + 64 KiB used to be truncated to 64 KiB; 2^32 + 25 MHz is above the range.
        assert!(err("[memory]\nflash = 4295032832").contains("between 1 KiB and 256 MiB"));
        assert!(err("[memory]\nsram = 1000").contains("between 1 KiB and 256 MiB"));
        assert!(err("clock = 100000000000").contains("from 1 Hz to 17 GHz"));
        assert!(err("clock = -5").starts_with("clock: "));
        assert!(err("clock = 1.5").starts_with("clock: "));
        assert_eq!(
            err("[memory]\nflash_wait_states = -1"),
            "memory.flash_wait_states: -1 is not a non-negative integer"
        );
        assert_eq!(err("[memory]\nflash_wait_states = 16"), "memory.flash_wait_states: 16 is out of range 0..=15");
        assert_eq!(
            err("[energy]\nprofile = \"stm32l053\"\nvoltage_range = -1"),
            "energy.voltage_range: -1 is not a non-negative integer"
        );
        let ok = |t: &str| Scenario::parse(t, Path::new(".")).unwrap();
        assert_eq!(ok("clock = 25e6").clock_hz, Some(25_000_000));
        assert_eq!(ok("clock = \"25MHz\"").clock_hz, Some(25_000_000));
        assert_eq!(ok("[memory]\nflash = 65536\nflash_wait_states = \"3\"").flash_size, Some(65536));
    }

    #[test]
    fn io_keys_are_parsed_by_scenario_io() {
        let s = Scenario::parse(
            "clock = \"16MHz\"\n[[stimulus]]\nname = \"s\"\nkind = \"periodic\"\nperiod = \"1ms\"\nline = 0\n[energy]\nprofile = \"nrf51822\"\n",
            Path::new("."),
        )
        .unwrap();
        assert_eq!(s.clock_hz, Some(16_000_000));
        assert!(s.io_raw.contains_key("stimulus"));
        assert_eq!(s.io.as_ref().map(|io| io.stimuli.len()), Some(1));
        assert_eq!(s.profile.unwrap().name, "nrf51822");
        let r = Scenario::parse("[rtos]\ncurrent = \"k.cpus[0].cur\"\nname = \"label\"\n", Path::new(".")).unwrap();
        assert_eq!(r.rtos.map(|r| r.symbol), Some("k".to_string()));
        let r = Scenario::parse("rtos = \"freertos\"\n", Path::new(".")).unwrap();
        assert_eq!(r.rtos.map(|r| r.label), Some("freertos".to_string()));
        // The I/O keys are checked like the rest: one line naming the key.
        assert!(err("[[stimulus]]\nname = \"s\"\nkind = \"poisson\"\nrate_hz = 0\n").contains("stimulus[0].rate_hz"));
    }
}
