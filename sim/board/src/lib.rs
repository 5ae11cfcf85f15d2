//! Boards as data: a board file (TOML, `sim/boards/*.toml`, embedded in the binary) names
//! the core, its clock, where flash and SRAM are, and which devices sit at which addresses
//! with which interrupt lines — in the spirit of Renode's platform files. The file is the
//! truth: the machine builds its address decoder and interrupt wiring from it
//! (cairn-sim's `devices.rs`). A crate of its own: it knows the device kinds, not the
//! machine.

mod check;
mod kind;

pub use check::IRQ_LINES;
pub use kind::{DeviceKind, KINDS};

use cairn_input::toml_error::one_line;
use cairn_input::units::{numeric, parse_hz, parse_size};
use serde::Deserialize;

/// Boards shipped with cairn-sim, by name.
const EMBEDDED: &[(&str, &str)] = &[("mps2-an385", include_str!("../../boards/mps2-an385.toml"))];

pub fn embedded_names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(n, _)| *n).collect()
}

/// Core types a board can name.
pub const CORES: &[&str] = &["cortex-m0plus"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: u32,
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSpec {
    pub name: String,
    pub kind: DeviceKind,
    pub base: u32,
    /// External interrupt numbers, one per line of the kind.
    pub irq: Vec<u32>,
}

/// A peripheral bus window: an access in it that hits no device reads as zero and ignores
/// writes (outside every window and device it is a bus error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusSpec {
    pub name: String,
    pub base: u32,
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSpec {
    pub name: String,
    pub core: String,
    pub clock_hz: u64,
    pub systick_ref_hz: u64,
    pub flash: Region,
    pub sram: Region,
    pub devices: Vec<DeviceSpec>,
    pub buses: Vec<BusSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: u32,
    name: String,
    core: String,
    clock: toml::Value,
    systick_ref: toml::Value,
    memory: Memory,
    #[serde(default)]
    device: Vec<Device>,
    #[serde(default)]
    bus: Vec<Bus>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bus {
    name: String,
    base: u32,
    size: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Memory {
    flash: Mem,
    sram: Mem,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Mem {
    base: u32,
    size: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Device {
    name: String,
    kind: String,
    base: u32,
    #[serde(default)]
    irq: Vec<u32>,
}

impl BoardSpec {
    /// A shipped board by name. The error is one line.
    pub fn embedded(name: &str) -> Result<BoardSpec, String> {
        let Some((_, text)) = EMBEDDED.iter().find(|(n, _)| *n == name) else {
            return Err(format!("unknown board '{name}' (known: {})", embedded_names().join(", ")));
        };
        BoardSpec::parse(text).map_err(|e| format!("embedded board {name}: {e}"))
    }

    /// A board file given by path (`--board FILE.toml`), read with the TOML size limit.
    /// The error is one line naming the file.
    pub fn from_file(path: &std::path::Path) -> Result<BoardSpec, String> {
        let text = cairn_input::input_file::read_input_text(path, cairn_input::input_file::TEXT_LIMIT)?;
        BoardSpec::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parse and check a board file's text; errors are one line naming the key.
    pub fn parse(text: &str) -> Result<BoardSpec, String> {
        let f: File = toml::from_str(text).map_err(|e| one_line(&e.to_string()))?;
        if f.format != 1 {
            return Err(format!("format: unsupported board format {} (expected 1)", f.format));
        }
        if !CORES.contains(&f.core.as_str()) {
            return Err(format!("core: unknown core '{}' (known: {})", f.core, CORES.join(", ")));
        }
        let region = |key: &str, m: &Mem| -> Result<Region, String> {
            Ok(Region { base: m.base, size: numeric(&format!("{key}.size"), &m.size, parse_size)? })
        };
        let mut devices = Vec::with_capacity(f.device.len());
        for d in f.device {
            let kind = DeviceKind::by_name(&d.kind).ok_or_else(|| {
                let known: Vec<&str> = KINDS.iter().map(|k| k.name()).collect();
                format!("device '{}': unknown kind '{}' (known: {})", d.name, d.kind, known.join(", "))
            })?;
            devices.push(DeviceSpec { name: d.name, kind, base: d.base, irq: d.irq });
        }
        let mut buses = Vec::with_capacity(f.bus.len());
        for b in f.bus {
            let key = format!("bus '{}'", b.name);
            let size = numeric(&format!("{key}: size"), &b.size, parse_size)?;
            buses.push(BusSpec { name: b.name, base: b.base, size });
        }
        let spec = BoardSpec {
            name: f.name,
            core: f.core,
            clock_hz: numeric("clock", &f.clock, parse_hz)?,
            systick_ref_hz: numeric("systick_ref", &f.systick_ref, parse_hz)?,
            flash: region("memory.flash", &f.memory.flash)?,
            sram: region("memory.sram", &f.memory.sram)?,
            devices,
            buses,
        };
        check::check(&spec)?;
        Ok(spec)
    }

    /// Check the description again (after a run's options change the memory sizes).
    pub fn check(&self) -> Result<(), String> {
        check::check(self)
    }

    pub fn device(&self, name: &str) -> Option<&DeviceSpec> {
        self.devices.iter().find(|d| d.name == name)
    }
}
