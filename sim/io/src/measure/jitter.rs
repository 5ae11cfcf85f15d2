//! Inter-arrival jitter: for consecutive events at t[i-1], t[i] the interval is
//! d[i] = t[i] - t[i-1] and the jitter is d[i] - P for the expected period P. Fed one event
//! at a time; the jitter values go into a bounded [`Dist`], from which the interval (the
//! same values shifted by P) and the absolute jitter are derived.

use super::dist::{secs, summary_of, Dist};
use serde_json::{json, Value};

#[derive(Clone, Debug)]
pub struct Jitter {
    expected_ps: i64,
    events: u64,
    last_ps: Option<i128>,
    dev: Dist,
    abs_sum: i128,
    abs_min: i64,
    abs_max: i64,
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

impl Jitter {
    pub fn new(expected_ps: u64, bin_ps: u64) -> Jitter {
        Jitter {
            expected_ps: clamp_i64(expected_ps as i128),
            events: 0,
            last_ps: None,
            dev: Dist::new(bin_ps),
            abs_sum: 0,
            abs_min: i64::MAX,
            abs_max: 0,
        }
    }

    /// One event at `t_ps` (events come in time order).
    pub fn event(&mut self, t_ps: u64) {
        let t = t_ps as i128;
        self.events += 1;
        if let Some(last) = self.last_ps.replace(t) {
            let dev = clamp_i64(t - last - self.expected_ps as i128);
            self.dev.add(dev);
            let a = dev.unsigned_abs().min(i64::MAX as u64) as i64;
            self.abs_sum += a as i128;
            self.abs_min = self.abs_min.min(a);
            self.abs_max = self.abs_max.max(a);
        }
    }

    pub fn dist(&self) -> &Dist {
        &self.dev
    }

    pub fn json(&mut self, source: &str) -> Value {
        let p = self.expected_ps;
        let n = self.dev.count();
        let (sum, grid) = (self.dev.sum(), self.dev.grid());
        let (min, max) = (self.dev.min().unwrap_or(0), self.dev.max().unwrap_or(0));
        let table = self.dev.table();
        let interval = summary_of(table, n, sum + n as i128 * p as i128, min + p, max + p, p, grid);
        let jitter = summary_of(table, n, sum, min, max, 0, grid);
        let mut abs: Vec<(i64, u64)> = table.iter().map(|&(v, c)| (v.saturating_abs(), c)).collect();
        abs.sort_unstable();
        abs.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 += b.1;
            }
            same
        });
        let abs_jitter = summary_of(&abs, n, self.abs_sum, self.abs_min, self.abs_max, 0, grid);
        json!({
            "source": source,
            "events": self.events,
            "expected_period_s": secs(p as i128),
            "interval": interval,
            "jitter": jitter,
            "abs_jitter": abs_jitter,
            "max_abs_jitter_s": secs(if n > 0 { self.abs_max as i128 } else { 0 }),
            "histogram": self.dev.histogram(),
        })
    }
}
