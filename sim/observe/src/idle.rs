//! Idle metrics (MANTIS/TinyOS I_t and I_p): an idle period is one sleep of the core, from
//! the WFI/WFE that put it to sleep to the event that wakes it. Kept as integer sums so the
//! statistics are exact and cheap; updated only at sleep/wake (never per instruction).

#[derive(Clone, Debug, Default)]
pub struct IdleStats {
    pub periods: u64,
    pub sum: u64,
    pub sum_sq: u128,
}

impl IdleStats {
    /// A sleep of `cycles` ended (the core knows when it began). A sleep of zero cycles (the
    /// wake-up event was due the moment the core went to sleep) is not an idle period.
    pub fn record(&mut self, cycles: u64) {
        if cycles > 0 {
            self.periods += 1;
            self.sum += cycles;
            self.sum_sq += cycles as u128 * cycles as u128;
        }
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
            s.record(to - from);
        }
        s.record(0); // a zero-cycle sleep is not a period
        assert_eq!((s.periods, s.sum), (3, 600));
        let (mean, sd) = s.mean_stddev_s(100);
        assert!((mean - 2.0).abs() < 1e-12);
        // Periods 100, 300, 200 cycles: population stddev = sqrt(20000/3) cycles.
        assert!((sd - (20000.0f64 / 3.0).sqrt() / 100.0).abs() < 1e-12);
    }
}
