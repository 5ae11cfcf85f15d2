//! The rules a board description must satisfy: windows inside the 32-bit space, aligned to
//! their size, overlapping neither each other, the memories nor the core's system space;
//! interrupt numbers that the core has, each driven by one device; unique names; at most
//! one device of each Cairn kind (a scenario addresses them by kind); bus windows that
//! overlap nothing but the devices on them.

use super::{BoardSpec, DeviceSpec};

/// External interrupts of an ARMv6-M core (NVIC lines 0..31).
pub const IRQ_LINES: u32 = 32;
/// The ARMv6-M system space (SCS, SysTick, NVIC, SCB and the rest of the PPB).
const SYSTEM_SPACE: (u64, u64) = (0xE000_0000, 0x1_0000_0000);

pub fn check(b: &BoardSpec) -> Result<(), String> {
    let mut windows: Vec<(u64, u64, String)> = vec![
        (b.flash.base as u64, b.flash.base as u64 + b.flash.size as u64, "memory.flash".into()),
        (b.sram.base as u64, b.sram.base as u64 + b.sram.size as u64, "memory.sram".into()),
        (SYSTEM_SPACE.0, SYSTEM_SPACE.1, "the core's system space".into()),
    ];
    let mut irq_owner: [Option<&str>; IRQ_LINES as usize] = [None; IRQ_LINES as usize];
    for (i, d) in b.devices.iter().enumerate() {
        let key = format!("device '{}'", d.name);
        if b.devices[..i].iter().any(|o| o.name == d.name) {
            return Err(format!("{key}: the name is used twice"));
        }
        check_irqs(d, &key, &mut irq_owner)?;
        if d.kind.name().starts_with("cairn-") {
            if let Some(o) = b.devices[..i].iter().find(|o| o.kind == d.kind) {
                return Err(format!("{key}: a board has one {} (device '{}' is one)", d.kind.name(), o.name));
            }
        }
        let size = d.kind.window_bytes() as u64;
        let base = d.base as u64;
        if !base.is_multiple_of(size) {
            return Err(format!("{key}: base 0x{:08x} is not aligned to its 0x{size:x}-byte window", d.base));
        }
        windows.push((base, base + size, key));
    }
    if b.flash.size == 0 || b.sram.size == 0 {
        return Err("memory: flash and sram need a size".into());
    }
    disjoint(&windows)?;
    // Bus windows may hold devices, but overlap no memory, the system space or each other.
    let mut spaces: Vec<(u64, u64, String)> = windows[..3].to_vec();
    for bus in &b.buses {
        let key = format!("bus '{}'", bus.name);
        if bus.size == 0 {
            return Err(format!("{key}: size must not be 0"));
        }
        if b.buses.iter().filter(|o| o.name == bus.name).count() > 1 {
            return Err(format!("{key}: the name is used twice"));
        }
        spaces.push((bus.base as u64, bus.base as u64 + bus.size as u64, key));
    }
    disjoint(&spaces)
}

fn disjoint(windows: &[(u64, u64, String)]) -> Result<(), String> {
    for (i, a) in windows.iter().enumerate() {
        if a.1 > 1 << 32 {
            return Err(format!("{}: ends past the 4 GiB address space", a.2));
        }
        if let Some(b) = windows[..i].iter().find(|b| a.0 < b.1 && b.0 < a.1) {
            return Err(format!("{}: window 0x{:08x}..0x{:08x} overlaps {}", a.2, a.0, a.1 - 1, b.2));
        }
    }
    Ok(())
}

fn check_irqs<'a>(d: &'a DeviceSpec, key: &str, owner: &mut [Option<&'a str>]) -> Result<(), String> {
    let want = d.kind.irq_lines();
    if d.irq.len() != want {
        return Err(format!("{key}: a {} drives {want} interrupt line(s), irq lists {}", d.kind.name(), d.irq.len()));
    }
    for &n in &d.irq {
        if n >= IRQ_LINES {
            return Err(format!("{key}: irq {n} is out of range 0..={}", IRQ_LINES - 1));
        }
        if let Some(other) = owner[n as usize] {
            return Err(format!("{key}: irq {n} is already driven by device '{other}'"));
        }
        owner[n as usize] = Some(&d.name);
    }
    Ok(())
}
