//! Exact integer energy arithmetic. A current is `static + per_mhz * f`, held in picoamps;
//! the energy of `n` cycles at clock `f` and supply `V` is
//!
//! ```text
//! E[fJ] = floor(n * V[mV] * (static[pA] * 1e6 + per_mhz[pA/MHz] * f[Hz]) / (f[Hz] * 1e6))
//! ```
//!
//! computed in u128, so every bucket's energy is an exact function of its integer cycle
//! count and totals are plain integer sums of their parts.

use super::profile::{Profile, SleepState};
use super::Class;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Current {
    pub static_pa: u128,
    pub pa_per_mhz: u128,
}

impl Current {
    pub fn per_mhz(ua_per_mhz: f64) -> Current {
        Current { static_pa: 0, pa_per_mhz: pa(ua_per_mhz) }
    }

    pub fn of_state(s: &SleepState) -> Current {
        Current { static_pa: pa(s.static_ua), pa_per_mhz: pa(s.ua_per_mhz) }
    }
}

/// uA -> pA, rounded once when the profile is loaded.
fn pa(ua: f64) -> u128 {
    (ua * 1e6).round().max(0.0) as u128
}

/// Everything needed to turn counters into joules for one run.
#[derive(Clone, Debug)]
pub struct Rates {
    pub clock_hz: u64,
    pub voltage_mv: u64,
    pub class: [Current; Class::COUNT],
    /// Inter-instruction overhead per executed instruction, fJ, at `voltage_mv`.
    pub overhead_fj: u128,
    pub sleep: Current,
    pub deep_sleep: Current,
    /// Wake-up latency in cycles per sleep state (0 = none) and the current drawn meanwhile.
    pub wakeup_cycles: [u64; 2],
    pub wakeup_current: [Current; 2],
    pub uart: Option<(Current, u64)>,
    pub timer: Option<Current>,
    /// Energy of one ADC conversion, fJ, at `voltage_mv`.
    pub adc_fj_per_conversion: Option<u128>,
}

impl Rates {
    pub fn new(p: &Profile, clock_hz: u64, voltage_v: Option<f64>) -> Rates {
        let v = voltage_v.unwrap_or(p.supply.voltage_v);
        let voltage_mv = (v * 1000.0).round() as u64;
        let profile_mv = ((p.supply.voltage_v * 1000.0).round() as u64).max(1);
        let c = &p.classes;
        let mut class = [Current::default(); Class::COUNT];
        for (cls, ua) in [
            (Class::Alu, c.alu),
            (Class::Mul, c.mul),
            (Class::Load, c.load),
            (Class::Store, c.store),
            (Class::Branch, c.branch),
            (Class::Multi, c.multi),
            (Class::System, c.system),
            (Class::Sleep, c.sleep),
            (Class::Exception, c.exception),
        ] {
            class[cls as usize] = Current::per_mhz(ua);
        }
        let run = Current::per_mhz(p.run.ua_per_mhz);
        let wake = |s: &SleepState| -> (u64, Current) {
            let cycles = (s.wakeup_us * clock_hz as f64 / 1e6).ceil() as u64;
            let cur = if s.wakeup_ua < 0.0 { run } else { Current { static_pa: pa(s.wakeup_ua), pa_per_mhz: 0 } };
            (cycles, cur)
        };
        let (ws, wcs) = wake(&p.sleep);
        let (wd, wcd) = wake(&p.deep_sleep);
        Rates {
            clock_hz: clock_hz.max(1),
            voltage_mv,
            class,
            // The overhead is an energy at the profile's voltage; like the currents' energy it
            // scales linearly with the supply.
            overhead_fj: (c.overhead_fj as u128).saturating_mul(voltage_mv as u128) / profile_mv as u128,
            sleep: Current::of_state(&p.sleep),
            deep_sleep: Current::of_state(&p.deep_sleep),
            wakeup_cycles: [ws, wd],
            wakeup_current: [wcs, wcd],
            uart: p.peripherals.uart.as_ref().map(|u| (Current::per_mhz(u.ua_per_mhz), u.baud.max(1))),
            timer: p.peripherals.timer.as_ref().map(|t| Current::per_mhz(t.ua_per_mhz)),
            // pA x mV x ps = 1e-27 J = 1e-12 fJ.
            adc_fj_per_conversion: p.peripherals.adc.as_ref().map(|a| {
                let ps = (a.conversion_us * 1e6).round().max(0.0) as u128;
                pa(a.ua).saturating_mul(voltage_mv as u128).saturating_mul(ps) / 1_000_000_000_000
            }),
        }
    }

    /// Energy of `cycles` cycles at current `c`, in fJ (floored).
    pub fn fj(&self, cycles: u64, c: Current) -> u128 {
        let f = self.clock_hz as u128;
        // Saturating: realistic inputs stay far below u128::MAX (about 1e38); absurd ones
        // (a 1 A current at a THz clock for years) must not overflow.
        let per = c.static_pa.saturating_mul(1_000_000).saturating_add(c.pa_per_mhz.saturating_mul(f));
        let num = (cycles as u128).saturating_mul(self.voltage_mv as u128).saturating_mul(per);
        num / (f * 1_000_000)
    }
}

impl Rates {
    /// Currents in uA for the trace's counter track: awake (ALU class), sleep, deep sleep,
    /// wake-up from deep sleep.
    pub fn currents_ua(&self) -> [f64; 4] {
        let f = self.clock_hz as f64 / 1e6;
        let ua = |c: Current| (c.static_pa as f64 + c.pa_per_mhz as f64 * f) / 1e6;
        [ua(self.class[Class::Alu as usize]), ua(self.sleep), ua(self.deep_sleep), ua(self.wakeup_current[1])]
    }
}
