//! Interrupt-line stimulus generators. Firing times are integer picoseconds; the machine
//! converts each one to the first cycle at or after it and raises the line there.
//!
//! - periodic: `start + k * period`, k = 0, 1, ...
//! - poisson: exponential gaps of mean `1 / rate` (a Poisson process of rate `rate`)
//! - geometric (SimBed's AP-IPC): every `interval` the line fires with probability `p`,
//!   candidate instants `start + k * interval`; the gaps are geometric multiples of it.
//!   The number of skipped candidates is drawn directly (inversion), which has exactly the
//!   distribution of independent per-candidate trials.

use super::prng::Prng;
use crate::time::PS_PER_S;

#[derive(Clone, Debug, PartialEq)]
pub enum StimulusKind {
    Periodic { period_ps: u64 },
    Poisson { rate_hz: f64 },
    Geometric { interval_ps: u64, probability: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct StimulusSpec {
    pub name: String,
    /// Stimulus controller line (0..LINES): raises IRQ `STIM_IRQ_BASE + line`.
    pub line: u8,
    pub kind: StimulusKind,
    /// First candidate instant (periodic, geometric) or origin of the first gap (poisson).
    pub start_ps: u64,
    /// Stop after this many firings.
    pub count: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct Generator {
    pub spec: StimulusSpec,
    rng: Prng,
    /// Candidate index (periodic/geometric) of the pending firing.
    k: u64,
    next_ps: Option<u64>,
    pub fired: u64,
}

impl Generator {
    /// `stream` distinguishes generators of one run (their index in the scenario).
    pub fn new(spec: StimulusSpec, seed: u64, stream: u64) -> Generator {
        let mut g = Generator { spec, rng: Prng::new(seed, stream), k: 0, next_ps: None, fired: 0 };
        g.next_ps = g.draw(g.spec.start_ps);
        g
    }

    /// Time of the next firing, if any.
    pub fn peek(&self) -> Option<u64> {
        self.next_ps
    }

    /// Consume the pending firing and schedule the following one.
    pub fn advance(&mut self) {
        let Some(prev) = self.next_ps else { return };
        self.fired += 1;
        if self.spec.count.is_some_and(|c| self.fired >= c) {
            self.next_ps = None;
            return;
        }
        self.k += 1;
        self.next_ps = self.draw(prev);
    }

    fn draw(&mut self, prev: u64) -> Option<u64> {
        if self.spec.count == Some(0) {
            return None;
        }
        match self.spec.kind {
            StimulusKind::Periodic { period_ps } => {
                period_ps.checked_mul(self.k).and_then(|d| d.checked_add(self.spec.start_ps))
            }
            StimulusKind::Poisson { rate_hz } => {
                let gap = self.rng.exponential(PS_PER_S as f64 / rate_hz).round();
                // Two firings never share an instant: the controller counts each one.
                let gap = if gap.is_finite() { (gap as u64).max(1) } else { u64::MAX };
                prev.checked_add(gap)
            }
            StimulusKind::Geometric { interval_ps, probability } => {
                // Candidates skipped before the next firing: geometric with success p, drawn
                // by inversion (floor(ln U / ln(1 - p))) so a tiny p costs one draw, not 1/p.
                if probability < 1.0 {
                    let u = 1.0 - self.rng.next_f64(); // (0, 1]
                    let skip = (u.ln() / (-probability).ln_1p()).floor();
                    self.k = self.k.saturating_add(if skip < u64::MAX as f64 { skip as u64 } else { u64::MAX });
                }
                interval_ps.checked_mul(self.k).and_then(|d| d.checked_add(self.spec.start_ps))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: StimulusKind) -> StimulusSpec {
        StimulusSpec { name: "s".into(), line: 0, kind, start_ps: 0, count: None }
    }

    fn times(g: &mut Generator, n: usize) -> Vec<u64> {
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(g.peek().unwrap());
            g.advance();
        }
        v
    }

    #[test]
    fn periodic_is_exact() {
        let mut s = spec(StimulusKind::Periodic { period_ps: 1_000_000 });
        s.start_ps = 5;
        s.count = Some(3);
        let mut g = Generator::new(s, 0, 0);
        assert_eq!(times(&mut g, 3), vec![5, 1_000_005, 2_000_005]);
        assert_eq!(g.peek(), None);
    }

    #[test]
    fn poisson_rate_within_four_sigma() {
        // 10,000 events at 1 kHz: the elapsed time is a sum of exponentials with mean
        // 10 s and standard deviation sqrt(10,000) ms = 0.1 s.
        for seed in [0, 1, 42] {
            let mut g = Generator::new(spec(StimulusKind::Poisson { rate_hz: 1000.0 }), seed, 0);
            let t = *times(&mut g, 10_000).last().unwrap() as f64 / PS_PER_S as f64;
            assert!((t - 10.0).abs() < 0.4, "seed {seed}: {t}");
        }
    }

    #[test]
    fn geometric_probability_within_four_sigma() {
        // Candidates until 10,000 firings: each candidate fires with p = 0.25, so the
        // number of candidates is negative-binomial with mean 40,000, sd sqrt(n(1-p))/p.
        let interval = 1_000_000;
        let mut g = Generator::new(spec(StimulusKind::Geometric { interval_ps: interval, probability: 0.25 }), 9, 0);
        let ts = times(&mut g, 10_000);
        assert!(ts.iter().all(|t| t % interval == 0));
        let candidates = (ts.last().unwrap() / interval + 1) as f64;
        let sd = (10_000.0f64 * 0.75).sqrt() / 0.25;
        assert!((candidates - 40_000.0).abs() < 4.0 * sd, "{candidates}");
    }

    #[test]
    fn reproducible_per_seed_and_seeds_differ() {
        let k = StimulusKind::Poisson { rate_hz: 500.0 };
        let a = times(&mut Generator::new(spec(k.clone()), 3, 0), 50);
        let b = times(&mut Generator::new(spec(k.clone()), 3, 0), 50);
        let c = times(&mut Generator::new(spec(k.clone()), 4, 0), 50);
        let d = times(&mut Generator::new(spec(k), 3, 1), 50);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
