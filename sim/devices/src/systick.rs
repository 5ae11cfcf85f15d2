//! ARMv6-M SysTick (CSR/RVR/CVR/CALIB at 0xE000E010).

use super::countdown::Countdown;

pub struct SysTick {
    pub enable: bool,
    pub tickint: bool,
    /// CLKSOURCE: true = core clock, false = reference clock.
    pub clksource: bool,
    pub counter: Countdown,
    /// Core cycles per reference-clock tick.
    ref_div: u64,
    /// Cycle up to which exception requests have been delivered.
    seen: u64,
}

impl SysTick {
    pub fn new(clock_hz: u64, ref_hz: u64) -> SysTick {
        let ref_div = (clock_hz / ref_hz.max(1)).max(1);
        SysTick { enable: false, tickint: false, clksource: false, counter: Countdown::new(ref_div), ref_div, seen: 0 }
    }

    /// CALIB: TENMS for the reference clock, NOREF clear, SKEW set when 10 ms is not a whole number of ticks.
    fn calib(&self, clock_hz: u64) -> u32 {
        let ref_hz = clock_hz / self.ref_div;
        let tenms = ref_hz / 100;
        let skew = !ref_hz.is_multiple_of(100) as u32;
        (skew << 30) | (tenms.saturating_sub(1) as u32 & 0x00ff_ffff)
    }

    pub fn read(&mut self, off: u32, now: u64, clock_hz: u64) -> u32 {
        match off {
            0x0 => {
                let flag = self.counter.take_flag(now) as u32;
                (flag << 16) | ((self.clksource as u32) << 2) | ((self.tickint as u32) << 1) | self.enable as u32
            }
            0x4 => self.counter.reload,
            0x8 => self.counter.value(now),
            0xC => self.calib(clock_hz),
            _ => 0,
        }
    }

    pub fn write(&mut self, off: u32, value: u32, now: u64) {
        match off {
            0x0 => {
                let tickint = value & 2 != 0;
                if tickint && !self.tickint {
                    // Wraps while TICKINT was clear requested nothing.
                    self.seen = self.seen.max(now);
                }
                self.tickint = tickint;
                let clksource = value & 4 != 0;
                if clksource != self.clksource {
                    self.clksource = clksource;
                    self.counter.set_div(now, if clksource { 1 } else { self.ref_div });
                }
                self.enable = value & 1 != 0;
                self.counter.set_running(now, self.enable);
            }
            0x4 => self.counter.set_reload(now, value & 0x00ff_ffff),
            0x8 => {
                // Any write clears the counter and COUNTFLAG.
                self.counter.set_value(now, 0);
                self.counter.take_flag(now);
            }
            _ => {}
        }
    }

    /// Cycle at which SysTick next requests its exception, if it will.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        if self.enable && self.tickint {
            self.counter.next_zero(now)
        } else {
            None
        }
    }

    /// Whether SysTick requested its exception in (last call, now].
    pub fn take_due(&mut self, now: u64) -> bool {
        let due = matches!(self.next_event(self.seen), Some(t) if t <= now);
        self.seen = now;
        due
    }
}
