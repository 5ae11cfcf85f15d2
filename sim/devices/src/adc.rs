//! Cairn ADC: its register block and its conversions. The values converted come from
//! whatever is wired to its inputs ([`AnalogIn`]: the scenario's signal sources), so the
//! device knows nothing of scenario files. With CTRL.PERIODIC every channel is sampled at
//! `rate_hz` on the global grid k / rate and STATUS.READY is set (STATUS.OVERRUN if READY
//! was still set); otherwise a read of DATA[n] converts channel n at that cycle.

use super::io_event::{EventLog, IoKind};
use crate::time::{cycle_to_ps, ps_to_cycle, PS_PER_S};

pub const CHANNELS: usize = 8;
pub const CTRL: u32 = 0x00;
pub const STATUS: u32 = 0x04;
pub const CLEAR: u32 = 0x08;
pub const NCHAN: u32 = 0x0C;
pub const RATE_HZ: u32 = 0x10;
pub const BITS: u32 = 0x14;
/// DATA[n] at 0x20 + 4n.
pub const DATA_BASE: u32 = 0x20;

pub const CTRL_PERIODIC: u32 = 1;
pub const CTRL_IRQ_EN: u32 = 2;
pub const STATUS_READY: u32 = 1;
pub const STATUS_OVERRUN: u32 = 2;

#[derive(Clone, Debug, Default)]
pub struct AdcRegs {
    pub ctrl: u32,
    pub status: u32,
    pub data: [u32; CHANNELS],
}

impl AdcRegs {
    pub fn data_index(off: u32) -> Option<usize> {
        let i = off.checked_sub(DATA_BASE)? / 4;
        (i < CHANNELS as u32).then_some(i as usize)
    }

    pub fn periodic(&self) -> bool {
        self.ctrl & CTRL_PERIODIC != 0
    }

    pub fn irq(&self) -> bool {
        self.ctrl & CTRL_IRQ_EN != 0 && self.status & STATUS_READY != 0
    }

    /// A periodic conversion of all channels completed.
    pub fn complete(&mut self) {
        if self.status & STATUS_READY != 0 {
            self.status |= STATUS_OVERRUN;
        }
        self.status |= STATUS_READY;
    }
}

/// The ADC's fixed configuration (the scenario's `[adc]`) as plain numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct AdcConfig {
    /// Periodic conversion rate (used when firmware sets CTRL.PERIODIC); 0 = on read only.
    pub rate_hz: f64,
    pub bits: u32,
    /// Input range mapped to codes 0 ..= 2^bits - 1.
    pub range: (f64, f64),
    /// Channels wired to an input (at most CHANNELS).
    pub channels: usize,
}

/// What the ADC's inputs are wired to: the value of channel `ch` at time `ps`, in the units
/// of [`AdcConfig::range`].
pub trait AnalogIn {
    fn value(&self, ch: usize, ps: u64) -> f64;
}

/// The ADC device: registers, configuration, inputs and the periodic schedule.
#[derive(Default)]
pub struct Adc {
    pub regs: AdcRegs,
    wiring: Option<(AdcConfig, Box<dyn AnalogIn>)>,
    clock_hz: u64,
    /// Next periodic conversion index k (instant k / rate).
    next_k: u64,
    /// Conversions performed (on read and periodic), for energy accounting.
    pub conversions: u64,
}

impl Adc {
    /// Wire the inputs and set the configuration (at scenario installation); `None`
    /// leaves the ADC unwired (every conversion reads 0 and logs nothing).
    pub fn connect(&mut self, wiring: Option<(AdcConfig, Box<dyn AnalogIn>)>, clock_hz: u64) {
        self.wiring = wiring;
        self.clock_hz = clock_hz;
    }

    fn config(&self) -> Option<&AdcConfig> {
        self.wiring.as_ref().map(|w| &w.0)
    }

    fn channels(&self) -> usize {
        self.config().map_or(0, |c| c.channels)
    }

    fn period_ps(&self) -> Option<f64> {
        let a = self.config()?;
        (a.rate_hz > 0.0).then(|| PS_PER_S as f64 / a.rate_hz)
    }

    fn grid_cycle(&self, k: u64) -> u64 {
        let ps = self.period_ps().map(|p| (p * k as f64).round()).unwrap_or(f64::MAX);
        if ps >= u64::MAX as f64 {
            u64::MAX
        } else {
            ps_to_cycle(ps as u64, self.clock_hz)
        }
    }

    /// Cycle of the next periodic conversion (u64::MAX = none).
    pub fn next_at(&self) -> u64 {
        if self.regs.periodic() && self.period_ps().is_some() {
            self.grid_cycle(self.next_k)
        } else {
            u64::MAX
        }
    }

    fn convert(&mut self, ch: usize, cycle: u64, log: &mut EventLog) -> u32 {
        let Some((a, input)) = self.wiring.as_ref() else { return 0 };
        if ch >= a.channels {
            return 0;
        }
        let v = input.value(ch, cycle_to_ps(cycle, self.clock_hz));
        let code = to_code(v, a.range.0, a.range.1, a.bits);
        self.regs.data[ch] = code;
        self.conversions += 1;
        log.log(cycle, IoKind::Adc, ch as u8, code);
        code
    }

    /// The periodic conversion due at `cycle` (its `next_at`): every channel, then READY.
    pub fn periodic_conversion(&mut self, cycle: u64, log: &mut EventLog) {
        self.next_k += 1;
        for ch in 0..self.channels() {
            self.convert(ch, cycle, log);
        }
        self.regs.complete();
    }

    /// Events one conversion of every channel logs at most.
    pub fn events_per_conversion(&self) -> usize {
        self.channels()
    }

    pub fn read(&mut self, off: u32, now: u64, log: &mut EventLog) -> u32 {
        let nchan = self.channels();
        if let Some(ch) = AdcRegs::data_index(off) {
            if ch >= nchan {
                return 0;
            }
            return if self.regs.periodic() { self.regs.data[ch] } else { self.convert(ch, now, log) };
        }
        match off {
            CTRL => self.regs.ctrl,
            STATUS => self.regs.status,
            NCHAN => nchan as u32,
            RATE_HZ => self.config().map_or(0, |a| a.rate_hz.round() as u32),
            BITS => self.config().map_or(0, |a| a.bits),
            _ => 0,
        }
    }

    pub fn write(&mut self, off: u32, value: u32, now: u64) {
        match off {
            CTRL => {
                let was = self.regs.periodic();
                self.regs.ctrl = value & (CTRL_PERIODIC | CTRL_IRQ_EN);
                if self.regs.periodic() && !was {
                    // Conversions stay on the global grid k / rate: the first is the next grid instant.
                    let mut k = self.period_ps().map_or(0, |p| (cycle_to_ps(now, self.clock_hz) as f64 / p) as u64);
                    while self.grid_cycle(k) <= now {
                        k += 1;
                    }
                    self.next_k = k;
                }
            }
            CLEAR => self.regs.status &= !value,
            _ => {}
        }
    }
}

/// Map a value in [lo, hi] to an unsigned `bits`-bit code (clamped, rounded).
pub fn to_code(v: f64, lo: f64, hi: f64, bits: u32) -> u32 {
    let max = ((1u64 << bits.clamp(1, 32)) - 1) as f64;
    let x = ((v - lo) / (hi - lo) * max).round();
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= max {
        max as u32
    } else {
        x as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(to_code(-1.0, -1.0, 1.0, 12), 0);
        assert_eq!(to_code(1.0, -1.0, 1.0, 12), 4095);
        assert_eq!(to_code(0.0, -1.0, 1.0, 12), 2048);
        assert_eq!(to_code(7.0, -1.0, 1.0, 12), 4095);
        assert_eq!(to_code(f64::NAN, -1.0, 1.0, 12), 0);
    }
}
