//! A down-counter evaluated lazily from the cycle counter: the model behind SysTick
//! and the CMSDK timers. The counter goes v0, v0-1, ..., 1, 0, R, R-1, ..., 0, R, ...
//! one step per tick, so with reload R the period is R+1 ticks. A "zero event" is the
//! step from 1 to 0; a counter started at 0 reloads on its first tick without an event.

#[derive(Clone, Debug)]
pub struct Countdown {
    /// Counting enabled.
    pub running: bool,
    /// Reload value R.
    pub reload: u32,
    /// Cycles per tick (>= 1).
    pub div: u64,
    base_cycle: u64,
    base_value: u32,
    /// Zero events already accounted for in `flag` (as a tick index relative to base).
    flag_tick: u64,
    /// Sticky: a zero event happened since the last `take_flag`.
    flag: bool,
}

impl Countdown {
    pub fn new(div: u64) -> Countdown {
        Countdown {
            running: false,
            reload: 0,
            div: div.max(1),
            base_cycle: 0,
            base_value: 0,
            flag_tick: 0,
            flag: false,
        }
    }

    fn ticks(&self, now: u64) -> u64 {
        if !self.running || now < self.base_cycle {
            0
        } else {
            (now - self.base_cycle) / self.div
        }
    }

    /// Number of zero events in ticks 1..=t after the base.
    fn zeros_upto(&self, t: u64) -> u64 {
        let v0 = self.base_value as u64;
        let period = self.reload as u64 + 1;
        let first = (v0 >= 1 && t >= v0) as u64;
        let later = if self.reload > 0 && t >= v0 + period { (t - v0) / period } else { 0 };
        first + later
    }

    /// Counter value at cycle `now`.
    pub fn value(&self, now: u64) -> u32 {
        let e = self.ticks(now);
        let v0 = self.base_value as u64;
        if e <= v0 {
            (v0 - e) as u32
        } else if self.reload == 0 {
            0
        } else {
            let k = (e - v0 - 1) % (self.reload as u64 + 1);
            self.reload - k as u32
        }
    }

    fn fold_flag(&mut self, now: u64) {
        let t = self.ticks(now);
        if self.zeros_upto(t) > self.zeros_upto(self.flag_tick) {
            self.flag = true;
        }
        self.flag_tick = t;
    }

    /// Re-anchor the model at `now` with its current value (before changing parameters).
    fn rebase(&mut self, now: u64) {
        self.fold_flag(now);
        let v = self.value(now);
        // Keep the phase of the tick divider: anchor on the last tick boundary.
        let t = self.ticks(now);
        self.base_cycle += t * self.div;
        if !self.running || now < self.base_cycle {
            self.base_cycle = now;
        }
        self.base_value = v;
        self.flag_tick = 0;
    }

    pub fn set_running(&mut self, now: u64, running: bool) {
        if running == self.running {
            return;
        }
        self.rebase(now);
        self.running = running;
        self.base_cycle = now;
        self.flag_tick = 0;
    }

    pub fn set_reload(&mut self, now: u64, reload: u32) {
        self.rebase(now);
        self.reload = reload;
    }

    pub fn set_value(&mut self, now: u64, value: u32) {
        self.rebase(now);
        self.base_cycle = now;
        self.base_value = value;
        self.flag_tick = 0;
    }

    pub fn set_div(&mut self, now: u64, div: u64) {
        self.rebase(now);
        self.base_cycle = now;
        self.div = div.max(1);
    }

    /// Whether a zero event happened since the last call; clears the flag.
    pub fn take_flag(&mut self, now: u64) -> bool {
        self.fold_flag(now);
        std::mem::take(&mut self.flag)
    }

    /// Cycle of the first zero event strictly after `now`, if any.
    pub fn next_zero(&self, now: u64) -> Option<u64> {
        if !self.running {
            return None;
        }
        let t = self.ticks(now);
        let v0 = self.base_value as u64;
        let tick = if v0 >= 1 && t < v0 {
            v0
        } else if self.reload > 0 {
            let period = self.reload as u64 + 1;
            let done = if t >= v0 { (t - v0) / period } else { 0 };
            v0 + period * (done + 1)
        } else {
            return None;
        };
        let at = self.base_cycle + tick * self.div;
        if at > now {
            Some(at)
        } else {
            // `now` sits inside the zero tick (div > 1): the event is already due.
            Some(now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_is_reload_plus_one() {
        let mut c = Countdown::new(1);
        c.set_reload(0, 3);
        c.set_value(0, 0);
        c.set_running(0, true);
        let vals: Vec<u32> = (0..10).map(|t| c.value(t)).collect();
        assert_eq!(vals, vec![0, 3, 2, 1, 0, 3, 2, 1, 0, 3]);
        assert_eq!(c.next_zero(0), Some(4));
        assert_eq!(c.next_zero(4), Some(8));
        assert!(!c.take_flag(3));
        assert!(c.take_flag(4));
        assert!(!c.take_flag(7));
        assert!(c.take_flag(8));
    }

    #[test]
    fn starts_from_value() {
        let mut c = Countdown::new(1);
        c.set_reload(100, 9);
        c.set_value(100, 2);
        c.set_running(100, true);
        assert_eq!(c.value(101), 1);
        assert_eq!(c.next_zero(100), Some(102));
        assert_eq!(c.value(103), 9);
        assert_eq!(c.next_zero(102), Some(112));
    }

    #[test]
    fn stopped_counter_freezes() {
        let mut c = Countdown::new(1);
        c.set_reload(0, 10);
        c.set_value(0, 10);
        c.set_running(0, true);
        c.set_running(4, false);
        assert_eq!(c.value(1000), 6);
        assert_eq!(c.next_zero(1000), None);
        c.set_running(2000, true);
        assert_eq!(c.value(2006), 0);
        assert_eq!(c.next_zero(2000), Some(2006));
    }

    #[test]
    fn divided_clock() {
        let mut c = Countdown::new(25);
        c.set_reload(0, 4);
        c.set_value(0, 4);
        c.set_running(0, true);
        assert_eq!(c.value(24), 4);
        assert_eq!(c.value(25), 3);
        assert_eq!(c.next_zero(0), Some(100));
    }
}
