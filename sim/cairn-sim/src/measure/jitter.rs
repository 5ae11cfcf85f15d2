//! Inter-arrival jitter: for consecutive events at t[i-1], t[i] the interval is
//! d[i] = t[i] - t[i-1] and the jitter is d[i] - P for the expected period P.

use super::dist::{histogram, secs, summary};
use super::signals::ps;
use serde_json::{json, Value};

pub fn jitter_json(times: &[(u64, u32)], expected_ps: u64, clock_hz: u64, bin_ps: u64, source: &str) -> Value {
    let t: Vec<i128> = times.iter().map(|&(c, _)| ps(c, clock_hz)).collect();
    let intervals: Vec<i128> = t.windows(2).map(|w| w[1] - w[0]).collect();
    let dev: Vec<i128> = intervals.iter().map(|d| d - expected_ps as i128).collect();
    let abs: Vec<i128> = dev.iter().map(|d| d.abs()).collect();
    let max_abs = abs.iter().copied().max().unwrap_or(0);
    json!({
        "source": source,
        "events": times.len(),
        "expected_period_s": secs(expected_ps as i128),
        "interval": summary(&intervals),
        "jitter": summary(&dev),
        "abs_jitter": summary(&abs),
        "max_abs_jitter_s": secs(max_abs),
        "histogram": histogram(&dev, bin_ps),
    })
}
