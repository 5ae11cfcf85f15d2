//! Distribution summaries shared by jitter and delay: nearest-rank percentiles and a
//! fixed-width histogram (SimBed's probability-density graphs), all on integer
//! picoseconds so results are exact and deterministic.
//!
//! A [`Dist`] is fed one value at a time and keeps, in bounded memory, the distinct values
//! with their counts: the count, sum, minimum and maximum are always exact, and so are the
//! percentiles and the histogram while there are at most [`DISTINCT_CAP`] distinct values
//! (cycle-quantized times rarely have more). Beyond that the values are rounded down to a
//! grid, the histogram's bin width first, then twice that, and so on, until they fit: the
//! summary then carries `resolution_s` (the grid) and the histogram that grid as its bin width.

use crate::time::PS_PER_S;
use serde_json::{json, Value};

/// Distinct values a distribution keeps exactly (16 bytes each, plus as many 8-byte values
/// waiting to be merged): about 1.5 MiB per distribution at most.
pub const DISTINCT_CAP: usize = 65_536;
/// Values collected before the first merge into the sorted table.
const PENDING_MIN: usize = 1024;

pub fn secs(ps: i128) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// Nearest-rank percentile `p` (0 < p <= 100) of sorted values.
pub fn percentile(sorted: &[i128], p: u32) -> i128 {
    let n = sorted.len();
    let rank = (p as usize * n).div_ceil(100).clamp(1, n);
    sorted[rank - 1]
}

/// Value at nearest rank `p` of a sorted (value, count) table holding `n` values.
fn percentile_counts(table: &[(i64, u64)], n: u64, p: u32) -> i64 {
    let rank = (p as u128 * n as u128).div_ceil(100).clamp(1, n as u128);
    let mut seen = 0u128;
    for &(v, c) in table {
        seen += c as u128;
        if seen >= rank {
            return v;
        }
    }
    table.last().map_or(0, |&(v, _)| v)
}

/// The multiset of values of a distribution, exact or on a grid.
#[derive(Clone, Debug)]
pub struct Dist {
    n: u64,
    sum: i128,
    min: i64,
    max: i64,
    /// Distinct values (multiples of `grid`) and their counts, in increasing order.
    table: Vec<(i64, u64)>,
    /// Values added since the last merge into `table`.
    pending: Vec<i64>,
    /// 1 while exact; otherwise values are rounded down to multiples of this (ps).
    grid: i64,
    /// The histogram bin width (ps), the first grid when values no longer fit.
    bin: i64,
}

impl Dist {
    pub fn new(bin_ps: u64) -> Dist {
        Dist {
            n: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
            table: Vec::new(),
            pending: Vec::new(),
            grid: 1,
            bin: bin_ps.clamp(1, i64::MAX as u64) as i64,
        }
    }

    pub fn add(&mut self, v: i64) {
        self.n += 1;
        self.sum += v as i128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.pending.push(v);
        if self.pending.len() >= PENDING_MIN.max(self.table.len()) {
            self.merge();
        }
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn sum(&self) -> i128 {
        self.sum
    }

    pub fn min(&self) -> Option<i64> {
        (self.n > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<i64> {
        (self.n > 0).then_some(self.max)
    }

    /// The grid values are rounded to (1 = exact).
    pub fn grid(&self) -> i64 {
        self.grid
    }

    /// Memory-bounding state, for tests: (distinct values kept, values pending a merge).
    pub fn stored(&self) -> (usize, usize) {
        (self.table.len(), self.pending.len())
    }

    /// Merge pending values into the table, coarsening the grid if it grew too large.
    fn merge(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let g = self.grid;
        let mut p = std::mem::take(&mut self.pending);
        if g > 1 {
            for v in p.iter_mut() {
                *v = v.div_euclid(g) * g;
            }
        }
        p.sort_unstable();
        let mut merged = Vec::with_capacity(self.table.len() + p.len());
        let mut t = self.table.iter().copied().peekable();
        let mut i = 0;
        while i < p.len() || t.peek().is_some() {
            let next_p = p.get(i).copied();
            let take_table = match (t.peek(), next_p) {
                (Some(&(tv, _)), Some(pv)) => tv <= pv,
                (Some(_), None) => true,
                _ => false,
            };
            let (v, c) = if take_table {
                t.next().unwrap_or((0, 0))
            } else {
                let v = p[i];
                let mut c = 0u64;
                while i < p.len() && p[i] == v {
                    c += 1;
                    i += 1;
                }
                (v, c)
            };
            match merged.last_mut() {
                Some((lv, lc)) if *lv == v => *lc += c,
                _ => merged.push((v, c)),
            }
        }
        p.clear();
        self.pending = p;
        self.table = merged;
        while self.table.len() > DISTINCT_CAP {
            self.coarsen();
        }
    }

    /// Next grid: the bin width, then doubling; until the table holds half the cap.
    fn coarsen(&mut self) {
        loop {
            self.grid = if self.grid < self.bin { self.bin } else { self.grid.saturating_mul(2) };
            let g = self.grid;
            let mut out: Vec<(i64, u64)> = Vec::with_capacity(self.table.len());
            for &(v, c) in &self.table {
                let q = v.div_euclid(g) * g;
                match out.last_mut() {
                    Some((lv, lc)) if *lv == q => *lc += c,
                    _ => out.push((q, c)),
                }
            }
            self.table = out;
            if self.table.len() <= DISTINCT_CAP / 2 || g == i64::MAX {
                return;
            }
        }
    }

    /// The (value, count) table with everything merged.
    pub fn table(&mut self) -> &[(i64, u64)] {
        self.merge();
        &self.table
    }

    /// count, min, mean, p50, p90, p99, max in seconds; `resolution_s` when not exact.
    pub fn summary(&mut self) -> Value {
        let (n, sum, min, max, grid) = (self.n, self.sum, self.min, self.max, self.grid);
        summary_of(self.table(), n, sum, min, max, 0, grid)
    }

    /// Histogram of the values; bins of the bin width (or of the grid when coarser).
    pub fn histogram(&mut self) -> Value {
        let w = self.bin.max(self.grid);
        histogram_of(self.table(), 0, w)
    }
}

/// Summary of the values in `table` shifted by `shift` (exact count `n`, `sum`, `min` and
/// `max` of the shifted values are given separately, as the table may be on a grid).
pub fn summary_of(table: &[(i64, u64)], n: u64, sum: i128, min: i64, max: i64, shift: i64, grid: i64) -> Value {
    if n == 0 {
        return json!({ "count": 0 });
    }
    let mean = sum as f64 / n as f64;
    let pct = |p| secs(percentile_counts(table, n, p) as i128 + shift as i128);
    let mut v = json!({
        "count": n,
        "min_s": secs(min as i128),
        "mean_s": mean / PS_PER_S as f64,
        "p50_s": pct(50),
        "p90_s": pct(90),
        "p99_s": pct(99),
        "max_s": secs(max as i128),
    });
    if grid > 1 {
        v["resolution_s"] = json!(secs(grid as i128));
    }
    v
}

/// Histogram with bins [k*w, (k+1)*w) of the values in `table` shifted by `shift`; only
/// non-empty bins are listed, in order.
pub fn histogram_of(table: &[(i64, u64)], shift: i64, bin_ps: i64) -> Value {
    let w = bin_ps.max(1) as i128;
    let mut list: Vec<Value> = Vec::new();
    let mut cur: Option<(i128, u64)> = None;
    let flush = |list: &mut Vec<Value>, (k, c): (i128, u64)| {
        list.push(json!({ "from_s": secs(k * w), "to_s": secs((k + 1) * w), "count": c }));
    };
    for &(v, c) in table {
        let k = (v as i128 + shift as i128).div_euclid(w);
        match cur {
            Some((ck, cc)) if ck == k => cur = Some((ck, cc + c)),
            Some(prev) => {
                flush(&mut list, prev);
                cur = Some((k, c));
            }
            None => cur = Some((k, c)),
        }
    }
    if let Some(prev) = cur {
        flush(&mut list, prev);
    }
    json!({ "bin_width_s": secs(w), "bins": list })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<i128> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), 50);
        assert_eq!(percentile(&v, 99), 99);
        assert_eq!(percentile(&v, 100), 100);
        assert_eq!(percentile(&[7], 90), 7);
        let t: Vec<(i64, u64)> = (1..=100).map(|v| (v, 1)).collect();
        assert_eq!(percentile_counts(&t, 100, 50), 50);
        assert_eq!(percentile_counts(&t, 100, 99), 99);
        assert_eq!(percentile_counts(&[(7, 1)], 1, 90), 7);
        assert_eq!(percentile_counts(&[(1, 2), (5, 2)], 4, 50), 1);
        assert_eq!(percentile_counts(&[(1, 2), (5, 2)], 4, 90), 5);
    }

    #[test]
    fn histogram_bins_negative_values_downwards() {
        let mut d = Dist::new(1_000_000);
        for v in [-1, 0, 999_999, 1_000_000] {
            d.add(v);
        }
        let h = d.histogram();
        let bins = h["bins"].as_array().unwrap();
        assert_eq!(bins.len(), 3);
        assert_eq!(bins[0]["from_s"], -1e-6);
        assert_eq!(bins[1]["count"], 2);
    }

    /// Same answers as sorting every value, fed in any order, with many merges.
    #[test]
    fn exact_while_distinct_values_fit() {
        let mut rng = crate::stimuli::prng::Prng::new(3, 0);
        let mut all: Vec<i128> = Vec::new();
        let mut d = Dist::new(1000);
        for _ in 0..20_000 {
            let v = (rng.next_u64() % 5000) as i64 - 2500;
            all.push(v as i128);
            d.add(v);
        }
        all.sort_unstable();
        assert_eq!(d.grid(), 1);
        for p in [1, 50, 90, 99, 100] {
            let n = d.count();
            assert_eq!(percentile_counts(d.table(), n, p) as i128, percentile(&all, p));
        }
        assert_eq!(d.sum(), all.iter().sum::<i128>());
        let s = d.summary();
        assert_eq!(s["count"], 20_000);
        assert!(s.get("resolution_s").is_none());
    }

    /// Too many distinct values: bounded table, exact count/min/max/mean, percentiles
    /// within the grid, and the histogram on that grid.
    #[test]
    fn coarsens_to_the_bin_width_when_values_do_not_fit() {
        let mut d = Dist::new(1000);
        let n = 3 * DISTINCT_CAP as i64;
        for v in 0..n {
            d.add(v * 7);
        }
        let (kept, pending) = d.stored();
        assert!(kept <= DISTINCT_CAP && pending <= DISTINCT_CAP, "{kept} {pending}");
        assert!(d.grid() >= 1000 && d.grid() % 1000 == 0);
        let g = d.grid() as f64 / 1e12;
        let s = d.summary();
        assert_eq!(s["count"], n as u64);
        assert_eq!(s["min_s"], 0.0);
        assert_eq!(s["max_s"], secs(((n - 1) * 7) as i128));
        assert_eq!(s["resolution_s"], g);
        let exact_p50 = ((n / 2 - 1) * 7) as f64 / 1e12;
        let p50 = s["p50_s"].as_f64().unwrap();
        assert!(p50 <= exact_p50 && exact_p50 - p50 < g, "{p50} {exact_p50} {g}");
        let h = d.histogram();
        assert_eq!(h["bin_width_s"], g);
        let total: u64 = h["bins"].as_array().unwrap().iter().map(|b| b["count"].as_u64().unwrap()).sum();
        assert_eq!(total, n as u64);
    }
}
