//! Exact integer energy arithmetic. A current is `static + per_mhz * f`, held in picoamps;
//! the energy of `n` cycles at clock `f` and supply `V` is
//!
//! ```text
//! E[fJ] = floor(n * V[mV] * (static[pA] * 1e6 + per_mhz[pA/MHz] * f[Hz]) / (f[Hz] * 1e6))
//! ```
//!
//! computed in u128, so every bucket's energy is an exact function of its integer cycle
//! count and totals are plain integer sums of their parts.

use super::curve::Curve;
use super::profile::Profile;
use super::range::Range;
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

    /// A curve's current at `clock_hz`, times `factor`. The line in use keeps its static and
    /// per-MHz parts when the static part is not negative (so a `static_ua + ua_per_mhz`
    /// profile charges exactly that); a datasheet segment with a negative intercept is folded
    /// into a per-MHz figure at this clock.
    pub fn of_curve(c: &Curve, clock_hz: u64, factor: f64) -> Current {
        let mhz = clock_hz as f64 / 1e6;
        let (s, k) = c.line_at(mhz);
        if s >= 0.0 {
            Current { static_pa: pa(s * factor), pa_per_mhz: pa(k * factor) }
        } else {
            Current { static_pa: 0, pa_per_mhz: pa(c.ua_at(mhz) / mhz.max(1e-6) * factor) }
        }
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
    /// The voltage range in use (its id, as the part's documents number it).
    pub range_id: u32,
    pub class: [Current; Class::COUNT],
    /// Inter-instruction overhead per executed instruction, fJ, at `voltage_mv`.
    pub overhead_fj: u128,
    pub sleep: Current,
    pub deep_sleep: Current,
    /// Added to deep sleep while a timer that can wake the core runs (the part's RTC).
    pub rtc: Current,
    /// Wake-up latency in cycles per sleep state (0 = none) and the current drawn meanwhile.
    pub wakeup_cycles: [u64; 2],
    pub wakeup_current: [Current; 2],
    pub uart: Option<(Current, u64)>,
    pub timer: Option<Current>,
    /// Energy of one ADC conversion, fJ, at `voltage_mv`.
    pub adc_fj_per_conversion: Option<u128>,
}

impl Rates {
    /// Rates at `clock_hz` in voltage range `range` (one of `p.ranges`, see `Profile::range`).
    pub fn new(p: &Profile, range: &Range, clock_hz: u64, voltage_v: Option<f64>) -> Rates {
        let v = voltage_v.unwrap_or(p.supply.voltage_v);
        let voltage_mv = (v * 1000.0).round() as u64;
        let profile_mv = ((p.supply.voltage_v * 1000.0).round() as u64).max(1);
        let c = &p.classes;
        let mut class = [Current::default(); Class::COUNT];
        for (cls, factor) in [
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
            class[cls as usize] = Current::of_curve(&range.run, clock_hz, factor);
        }
        let run = Current::of_curve(&range.run, clock_hz, 1.0);
        let wake = |us: f64, extra: u64, ua: f64| -> (u64, Current) {
            let cycles = (us * clock_hz as f64 / 1e6).ceil() as u64 + extra;
            let cur = if ua < 0.0 { run } else { Current { static_pa: pa(ua), pa_per_mhz: 0 } };
            (cycles, cur)
        };
        let (s, d) = (&p.sleep, &p.deep_sleep);
        let (ws, wcs) = wake(s.wakeup_us, s.wakeup_cycles, s.wakeup_ua);
        let (wd, wcd) = wake(d.wakeup_us, d.wakeup_cycles, d.wakeup_ua);
        let per = &p.peripherals;
        let per_range = |v: &super::range::PerRange| Current::per_mhz(v.get(range.id).unwrap_or(0.0));
        Rates {
            clock_hz: clock_hz.max(1),
            voltage_mv,
            range_id: range.id,
            class,
            // The overhead is an energy at the profile's voltage; like the currents' energy it
            // scales linearly with the supply.
            overhead_fj: (c.overhead_fj as u128).saturating_mul(voltage_mv as u128) / profile_mv as u128,
            sleep: Current::of_curve(&range.sleep, clock_hz, 1.0),
            deep_sleep: Current { static_pa: pa(d.static_ua), pa_per_mhz: pa(d.ua_per_mhz) },
            rtc: Current { static_pa: pa(d.rtc_ua), pa_per_mhz: 0 },
            wakeup_cycles: [ws, wd],
            wakeup_current: [wcs, wcd],
            uart: per.uart.as_ref().map(|u| (per_range(&u.ua_per_mhz), u.baud.max(1))),
            timer: per.timer.as_ref().map(|t| per_range(&t.ua_per_mhz)),
            // pA x mV x ps = 1e-27 J = 1e-12 fJ.
            adc_fj_per_conversion: per.adc.as_ref().map(|a| {
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
