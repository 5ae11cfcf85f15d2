//! Scenario-driven inputs: the seeded PRNG, interrupt-line stimulus generators and ADC
//! signal sources. Everything here is a pure function of (scenario, seed, time), so a run
//! is reproducible bit for bit.
pub mod adc_source;
pub mod irq_gen;
pub mod prng;

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
