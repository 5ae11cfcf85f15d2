//! Idle metrics (MANTIS/TinyOS I_t and I_p): an idle period is one sleep of the core, from
//! the WFI/WFE that put it to sleep to the event that wakes it. Kept as integer sums so the
//! statistics are exact and cheap; updated only at sleep/wake (never per instruction).

#[derive(Clone, Debug, Default)]
pub struct IdleStats {
    /// Cycle at which the current sleep began.
    pub since: Option<u64>,
    pub periods: u64,
    pub sum: u64,
    pub sum_sq: u128,
}

impl IdleStats {
    pub fn begin(&mut self, now: u64) {
        if self.since.is_none() {
            self.since = Some(now);
        }
    }

    /// The sleep ends at `now`; returns its length. A sleep of zero cycles (the wake-up event
    /// was due the moment the core went to sleep) is not an idle period.
    pub fn end(&mut self, now: u64) -> u64 {
        let Some(s) = self.since.take() else { return 0 };
        let d = now - s;
        if d > 0 {
            self.periods += 1;
            self.sum += d;
            self.sum_sq += d as u128 * d as u128;
        }
        d
    }

    /// (mean, population standard deviation) of closed periods in seconds.
    pub fn mean_stddev_s(&self, clock_hz: u64) -> (f64, f64) {
        if self.periods == 0 {
            return (0.0, 0.0);
        }
        let n = self.periods as f64;
        let mean = self.sum as f64 / n;
        // Variance from exact integer sums: (n*sum_sq - sum^2) / n^2.
        let num = (self.periods as u128 * self.sum_sq).saturating_sub(self.sum as u128 * self.sum as u128);
        let var = num as f64 / (n * n);
        let hz = clock_hz as f64;
        (mean / hz, var.sqrt() / hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_stddev_of_periods() {
        let mut s = IdleStats::default();
        for (from, to) in [(0, 100), (200, 500), (600, 800)] {
            s.begin(from);
            s.begin(from + 1); // already asleep: the period keeps its start
            s.end(to);
        }
        assert_eq!(s.end(900), 0, "not asleep: nothing");
        s.begin(950);
        assert_eq!(s.end(950), 0, "a zero-cycle sleep is not a period");
        assert_eq!((s.periods, s.sum), (3, 600));
        let (mean, sd) = s.mean_stddev_s(100);
        assert!((mean - 2.0).abs() < 1e-12);
        // Periods 100, 300, 200 cycles: population stddev = sqrt(20000/3) cycles.
        assert!((sd - (20000.0f64 / 3.0).sqrt() / 100.0).abs() < 1e-12);
    }
}
