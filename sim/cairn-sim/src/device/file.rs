//! The device file: N processors (each a single-processor scenario plus its name, core,
//! bus address, initial power and crystal error), the bus between them and the faults to
//! inject. Everything is checked here, before any ELF runs: each error is one line naming
//! the key (the caller puts the file's name in front).

use super::bus::BusParams;
use super::faults::{FaultRule, FrameMatch, ModuleTrigger};
use crate::input_file::{read_input_text, TEXT_LIMIT};
use crate::scenario::Scenario;
use crate::toml_error::{one_line, shown};
use crate::units::{numeric, parse_duration_ps, parse_uint, toml_float};
use std::path::{Path, PathBuf};

pub const CORES: &[&str] = &["cortex-m0plus"];

pub struct ProcessorSpec {
    pub name: String,
    pub core: String,
    pub address: u8,
    pub power_on: bool,
    pub rtc_ppm: f64,
    pub scenario: Scenario,
    pub firmware: PathBuf,
}

pub struct DeviceFile {
    pub name: String,
    pub bus: BusParams,
    pub processors: Vec<ProcessorSpec>,
    pub faults: Vec<FaultRule>,
}

/// Whether a TOML scenario text describes a device (it has `[[processor]]` tables).
pub fn is_device(text: &str) -> bool {
    text.parse::<toml::Table>().is_ok_and(|t| t.contains_key("processor"))
}

impl DeviceFile {
    pub fn load(path: &Path) -> Result<DeviceFile, String> {
        let text = read_input_text(path, TEXT_LIMIT)?;
        let base = path.parent().unwrap_or(Path::new("."));
        DeviceFile::parse(&text, base).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str, base: &Path) -> Result<DeviceFile, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| one_line(&e.to_string()))?;
        let mut name = String::from("device");
        let mut bus_table = toml::Table::new();
        let mut procs = Vec::new();
        let mut fault_tables = Vec::new();
        for (key, v) in table {
            match key.as_str() {
                "name" => name = v.as_str().ok_or("name: expected a string")?.to_string(),
                "bus" => bus_table = v.as_table().cloned().ok_or("bus: expected a table")?,
                "processor" => procs = array_of_tables("processor", v)?,
                "fault" => fault_tables = array_of_tables("fault", v)?,
                other => return Err(format!("{other}: unknown key (known: name, bus, processor, fault)")),
            }
        }
        if procs.is_empty() {
            return Err("processor: a device needs at least one [[processor]]".into());
        }
        if procs.len() > 255 {
            return Err("processor: at most 255 processors".into());
        }
        let mut processors: Vec<ProcessorSpec> = Vec::new();
        for (i, t) in procs.into_iter().enumerate() {
            let p = processor(i, t, base)?;
            if let Some(k) = processors.iter().position(|o| o.name == p.name) {
                return Err(format!("processor.{}.name: the name is used twice (processors {k} and {i})", p.name));
            }
            if let Some(o) = processors.iter().find(|o| o.address == p.address) {
                return Err(format!("processor.{}.address: {} is also processor '{}'s", p.name, p.address, o.name));
            }
            processors.push(p);
        }
        let names: Vec<&str> = processors.iter().map(|p| p.name.as_str()).collect();
        let bus = BusParams::parse(&bus_table, &names)?;
        let faults =
            fault_tables.into_iter().enumerate().map(|(i, t)| fault(i, t, &names)).collect::<Result<Vec<_>, _>>()?;
        Ok(DeviceFile { name, bus, processors, faults })
    }
}

fn array_of_tables(key: &str, v: toml::Value) -> Result<Vec<toml::Table>, String> {
    let toml::Value::Array(items) = v else { return Err(format!("{key}: expected [[{key}]] tables")) };
    items
        .into_iter()
        .map(|i| i.as_table().cloned().ok_or_else(|| format!("{key}: expected [[{key}]] tables")))
        .collect()
}

fn processor(index: usize, mut t: toml::Table, base: &Path) -> Result<ProcessorSpec, String> {
    let name = match t.remove("name") {
        Some(toml::Value::String(s)) if valid_name(&s) => s,
        Some(toml::Value::String(s)) => {
            return Err(format!("processor[{index}].name: '{s}' is not a name (letters, digits, '-', '_')"))
        }
        Some(_) => return Err(format!("processor[{index}].name: expected a string")),
        None => return Err(format!("processor[{index}].name: missing (every processor needs a name)")),
    };
    let key = |k: &str| format!("processor.{name}.{k}");
    let core = match t.remove("core") {
        None => CORES[0].to_string(),
        Some(toml::Value::String(c)) if CORES.contains(&c.as_str()) => c,
        Some(v) => return Err(format!("{}: {} is not a core (known: {})", key("core"), shown(&v), CORES.join(", "))),
    };
    let address = match t.remove("address") {
        None if index < 255 => index as u8,
        None => return Err(format!("{}: give one (0 to 254)", key("address"))),
        Some(v) => numeric(&key("address"), &v, |s| parse_uint(s, 0, 254))? as u8,
    };
    let power_on = match t.remove("power") {
        None => true,
        Some(toml::Value::String(s)) if s == "on" => true,
        Some(toml::Value::String(s)) if s == "off" => false,
        Some(v) => return Err(format!("{}: {}: expected \"on\" or \"off\"", key("power"), shown(&v))),
    };
    let rtc_ppm = match t.remove("rtc_ppm") {
        None => 0.0,
        Some(v) => {
            toml_float(&key("rtc_ppm"), &v, |p| p.is_finite() && p.abs() <= 1000.0, "a number of ppm within ±1000")?
        }
    };
    let scenario = Scenario::from_table(t, base).map_err(|e| format!("processor.{name}.{e}"))?;
    let Some(firmware) = scenario.firmware.clone() else {
        return Err(format!("{}: missing (every processor runs its own ELF)", key("firmware")));
    };
    if !firmware.is_file() {
        return Err(format!("{}: {}: no such file", key("firmware"), firmware.display()));
    }
    Ok(ProcessorSpec { name, core, address, power_on, rtc_ppm, scenario, firmware })
}

fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 32 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn processor_index(key: &str, v: &toml::Value, names: &[&str]) -> Result<usize, String> {
    let s = v.as_str().ok_or_else(|| format!("{key}: expected a processor name"))?;
    names.iter().position(|n| *n == s).ok_or_else(|| format!("{key}: no processor is named '{s}'"))
}

fn fault(i: usize, mut t: toml::Table, names: &[&str]) -> Result<FaultRule, String> {
    let key = |k: &str| format!("fault[{i}].{k}");
    let action = match t.remove("action") {
        Some(toml::Value::String(a)) => a,
        Some(_) => return Err(format!("{}: expected a string", key("action"))),
        None => return Err(format!("{}: missing (drop, corrupt, delay, power_off or reset)", key("action"))),
    };
    let duration = |k: &str, v: &toml::Value| -> Result<u64, String> {
        let ps = numeric(&key(k), v, parse_duration_ps)?;
        u64::try_from(ps).map_err(|_| format!("{}: too long", key(k)))
    };
    let rule = match action.as_str() {
        "drop" | "corrupt" | "delay" => {
            let mut m = FrameMatch::default();
            let mut delay_ps = None;
            for (k, v) in std::mem::take(&mut t) {
                match k.as_str() {
                    "probability" => {
                        m.probability =
                            Some(toml_float(&key(&k), &v, |p| (0.0..=1.0).contains(&p), "a number from 0 to 1")?)
                    }
                    "every" => m.every = Some(numeric(&key(&k), &v, |s| parse_uint(s, 1, u32::MAX as u64))?),
                    "src" => m.src = Some(processor_index(&key(&k), &v, names)?),
                    "dst" => m.dst = Some(processor_index(&key(&k), &v, names)?),
                    "first_bytes" => {
                        let list = v.as_array().ok_or_else(|| format!("{}: expected a list of bytes", key(&k)))?;
                        m.first_bytes = list
                            .iter()
                            .map(|b| numeric(&key(&k), b, |s| parse_uint(s, 0, 255)).map(|b| b as u8))
                            .collect::<Result<_, _>>()?;
                    }
                    "delay" if action == "delay" => delay_ps = Some(duration(&k, &v)?),
                    other => return Err(format!("{}: unknown key for a frame rule", key(other))),
                }
            }
            match action.as_str() {
                "drop" => FaultRule::Drop(m),
                "corrupt" => FaultRule::Corrupt(m),
                _ => FaultRule::Delay(m, delay_ps.ok_or_else(|| format!("{}: missing", key("delay")))?),
            }
        }
        "power_off" | "reset" => {
            let mut target = None;
            let mut at = None;
            let mut word = None;
            let mut count = 1u64;
            let mut mask = u32::MAX;
            for (k, v) in std::mem::take(&mut t) {
                match k.as_str() {
                    "processor" => target = Some(processor_index(&key(&k), &v, names)?),
                    "at" => at = Some(duration(&k, &v)?),
                    "on_trace" => word = Some(numeric(&key(&k), &v, |s| parse_uint(s, 0, u32::MAX as u64))? as u32),
                    "count" => count = numeric(&key(&k), &v, |s| parse_uint(s, 1, u64::MAX))?,
                    "trace_mask" => mask = numeric(&key(&k), &v, |s| parse_uint(s, 0, u32::MAX as u64))? as u32,
                    other => return Err(format!("{}: unknown key for a module rule", key(other))),
                }
            }
            let target = target.ok_or_else(|| format!("{}: missing", key("processor")))?;
            let trigger = match (at, word) {
                (Some(ps), None) => ModuleTrigger::At(ps),
                (None, Some(w)) => ModuleTrigger::TraceWord { word: w, mask, count },
                _ => return Err(format!("{}: give `at` or `on_trace` (one of them)", key("at"))),
            };
            if action == "reset" {
                FaultRule::Reset(target, trigger)
            } else {
                FaultRule::PowerOff(target, trigger)
            }
        }
        other => return Err(format!("{}: '{other}' (known: drop, corrupt, delay, power_off, reset)", key("action"))),
    };
    Ok(rule)
}
