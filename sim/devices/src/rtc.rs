//! A 32.768 kHz real-time clock driven by the module's own crystal, whose frequency error
//! (ppm) is what clock synchronisation between modules has to correct. The count is a
//! function of the processor's cycle: `floor(cycle ÷ clock × f_rtc)`, exact in integers
//! (frequencies in µHz).

use super::device::{Device, Effect};
use super::io_event::EventLog;

pub const NOMINAL_HZ: u64 = 32_768;
const CTRL_ALARM_IE: u32 = 1;
const STATUS_ALARM: u32 = 1;

pub struct Rtc {
    clock_hz: u64,
    /// The crystal's true frequency in µHz.
    rtc_uhz: u64,
    alarm: u32,
    ctrl: u32,
    fired: bool,
    /// The absolute tick at which the alarm fires next, when armed.
    alarm_tick: Option<u64>,
}

impl Rtc {
    pub fn new(clock_hz: u64) -> Rtc {
        Rtc { clock_hz, rtc_uhz: NOMINAL_HZ * 1_000_000, alarm: 0, ctrl: 0, fired: false, alarm_tick: None }
    }

    /// The crystal's frequency error. Out-of-range values are the caller's to refuse.
    pub fn set_ppm(&mut self, ppm: f64) {
        self.rtc_uhz = (NOMINAL_HZ as f64 * (1_000_000.0 + ppm)).round() as u64;
    }

    pub fn frequency_uhz(&self) -> u64 {
        self.rtc_uhz
    }

    /// Ticks since the start of the run at `cycle`.
    pub fn ticks(&self, cycle: u64) -> u64 {
        (cycle as u128 * self.rtc_uhz as u128 / (self.clock_hz as u128 * 1_000_000)) as u64
    }

    /// The first cycle at which the count is `tick`.
    fn cycle_of_tick(&self, tick: u64) -> u64 {
        let c = (tick as u128 * self.clock_hz as u128 * 1_000_000).div_ceil(self.rtc_uhz as u128);
        c.min(u64::MAX as u128) as u64
    }

    fn arm(&mut self, now: u64) {
        let t = self.ticks(now);
        let low = t & 0xFFFF_FFFF;
        let base = t - low;
        let next =
            if self.alarm as u64 > low { base + self.alarm as u64 } else { base + (1 << 32) + self.alarm as u64 };
        self.alarm_tick = Some(next);
    }

    fn update(&mut self, now: u64) {
        if let Some(t) = self.alarm_tick {
            if self.cycle_of_tick(t) <= now {
                self.fired = true;
                self.arm(now);
            }
        }
    }
}

impl Device for Rtc {
    fn read(&mut self, off: u32, _size: u32, now: u64, _log: &mut EventLog) -> u32 {
        self.update(now);
        match off {
            0x00 => self.ticks(now) as u32,
            0x04 => self.alarm,
            0x08 => self.ctrl,
            0x0C => self.fired as u32,
            0x10 => NOMINAL_HZ as u32,
            _ => 0,
        }
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, now: u64, _log: &mut EventLog) -> Effect {
        self.update(now);
        match off {
            0x04 => {
                self.alarm = value;
                self.arm(now);
            }
            0x08 => self.ctrl = value & CTRL_ALARM_IE,
            0x0C if value & STATUS_ALARM != 0 => self.fired = false,
            _ => {}
        }
        Effect::None
    }

    fn irq_lines(&mut self, now: u64) -> u32 {
        self.update(now);
        (self.fired && self.ctrl & CTRL_ALARM_IE != 0) as u32
    }

    fn next_event(&self, _now: u64) -> Option<u64> {
        match self.alarm_tick {
            Some(t) if !self.fired && self.ctrl & CTRL_ALARM_IE != 0 => Some(self.cycle_of_tick(t)),
            _ => None,
        }
    }

    fn process_due(&mut self, now: u64, _log: &mut EventLog) {
        self.update(now);
    }

    fn reset(&mut self) {
        self.alarm = 0;
        self.ctrl = 0;
        self.fired = false;
        self.alarm_tick = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_at_the_crystals_true_frequency() {
        let mut r = Rtc::new(48_000_000);
        assert_eq!(r.ticks(48_000_000), 32_768);
        r.set_ppm(20.0);
        // 20 ppm fast: 0.65536 ticks more per second; 100 s gain 65 ticks.
        assert_eq!(r.ticks(4_800_000_000) - 3_276_800, 65);
        r.set_ppm(-20.0);
        assert_eq!(3_276_800 - r.ticks(4_800_000_000), 66);
    }

    #[test]
    fn alarm_fires_when_the_count_reaches_it() {
        let mut r = Rtc::new(32_768 * 4);
        let log = &mut EventLog::default();
        r.write(0x08, 1, 4, 0, log);
        r.write(0x04, 10, 4, 0, log);
        assert_eq!(r.next_event(0), Some(40));
        assert_eq!(r.irq_lines(39), 0);
        assert_eq!(r.irq_lines(40), 1);
        r.write(0x0C, 1, 4, 41, log);
        assert_eq!(r.irq_lines(41), 0);
        // Re-armed for the next time the count wraps to 10.
        assert_eq!(r.next_event(41), Some(((1u64 << 32) + 10) * 4));
    }
}
