//! Simulated time: integer picoseconds and core cycles, and the conversions between them.
//! Shared by the devices, the scenario drivers and the measurements, so it depends on
//! nothing.

/// Picoseconds per second: simulated time is kept in integer picoseconds.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// First cycle at or after time `ps` (cycle n starts at n / clock seconds).
pub fn ps_to_cycle(ps: u64, clock_hz: u64) -> u64 {
    let c = (ps as u128 * clock_hz as u128).div_ceil(PS_PER_S as u128);
    c.min(u64::MAX as u128) as u64
}

/// Start time of cycle `cycle` in picoseconds (rounded down).
pub fn cycle_to_ps(cycle: u64, clock_hz: u64) -> u64 {
    let ps = cycle as u128 * PS_PER_S as u128 / clock_hz.max(1) as u128;
    ps.min(u64::MAX as u128) as u64
}
