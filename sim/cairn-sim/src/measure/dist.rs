//! Distribution summaries shared by jitter and delay: nearest-rank percentiles and a
//! fixed-width histogram (SimBed's probability-density graphs), all on integer
//! picoseconds so results are exact and deterministic.

use crate::stimuli::PS_PER_S;
use serde_json::{json, Value};

pub fn secs(ps: i128) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// Nearest-rank percentile `p` (0 < p <= 100) of sorted values.
pub fn percentile(sorted: &[i128], p: u32) -> i128 {
    let n = sorted.len();
    let rank = (p as usize * n).div_ceil(100).clamp(1, n);
    sorted[rank - 1]
}

/// count, min, mean, p50, p90, p99, max (seconds) of values in picoseconds.
pub fn summary(values: &[i128]) -> Value {
    if values.is_empty() {
        return json!({ "count": 0 });
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let mean = v.iter().sum::<i128>() as f64 / v.len() as f64;
    json!({
        "count": v.len(),
        "min_s": secs(v[0]),
        "mean_s": mean / PS_PER_S as f64,
        "p50_s": secs(percentile(&v, 50)),
        "p90_s": secs(percentile(&v, 90)),
        "p99_s": secs(percentile(&v, 99)),
        "max_s": secs(v[v.len() - 1]),
    })
}

/// Histogram with bins [k*w, (k+1)*w); only non-empty bins are listed, in order.
pub fn histogram(values: &[i128], bin_ps: u64) -> Value {
    let w = bin_ps.max(1) as i128;
    let mut bins: std::collections::BTreeMap<i128, u64> = Default::default();
    for &x in values {
        *bins.entry(x.div_euclid(w)).or_default() += 1;
    }
    let list: Vec<Value> =
        bins.iter().map(|(k, c)| json!({ "from_s": secs(k * w), "to_s": secs((k + 1) * w), "count": c })).collect();
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
    }

    #[test]
    fn histogram_bins_negative_values_downwards() {
        let h = histogram(&[-1, 0, 999_999, 1_000_000], 1_000_000);
        let bins = h["bins"].as_array().unwrap();
        assert_eq!(bins.len(), 3);
        assert_eq!(bins[0]["from_s"], -1e-6);
        assert_eq!(bins[1]["count"], 2);
    }
}
