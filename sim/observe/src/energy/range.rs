//! Voltage ranges: a part whose core regulator has several output voltages (the STM32L0's
//! VCORE ranges 1-3) draws a different current at the same clock in each, allows a different
//! top clock, and needs different flash wait states. A profile lists its ranges lowest-power
//! first; the range in use is the first that can run the clock, unless the scenario or the
//! command line forces one. A part without ranges has one range without a clock limit.

use super::curve::Curve;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// The number the part's documents give the range (STM32L0: 1 = 1.8 V ... 3 = 1.2 V).
    pub id: u32,
    /// Highest clock the range can run, Hz; none = no limit.
    pub max_hz: Option<u64>,
    /// Flash: no wait state up to this clock, `wait_states_above` above it.
    pub zero_wait_max_hz: u64,
    pub wait_states_above: u32,
    pub source: String,
    /// Run current (all instruction classes at factor 1) and Sleep-mode current.
    pub run: Curve,
    pub sleep: Curve,
}

impl Range {
    pub fn runs(&self, clock_hz: u64) -> bool {
        self.max_hz.is_none_or(|m| clock_hz <= m)
    }

    pub fn wait_states(&self, clock_hz: u64) -> u32 {
        if clock_hz > self.zero_wait_max_hz {
            self.wait_states_above
        } else {
            0
        }
    }
}

/// The range to use at `clock_hz`: `forced` if it exists and can run the clock, else the
/// first (lowest-power) range that can. The error is one line.
pub fn select(ranges: &[Range], clock_hz: u64, forced: Option<u32>) -> Result<&Range, String> {
    let mhz = clock_hz as f64 / 1e6;
    let ids = || ranges.iter().map(|r| r.id.to_string()).collect::<Vec<_>>().join(", ");
    if let Some(id) = forced {
        let r = ranges
            .iter()
            .find(|r| r.id == id)
            .ok_or_else(|| format!("voltage range {id}: no such range (the part has {})", ids()))?;
        if !r.runs(clock_hz) {
            let max = r.max_hz.unwrap_or(0) as f64 / 1e6;
            return Err(format!("voltage range {id} runs at most {max} MHz, not {mhz} MHz"));
        }
        return Ok(r);
    }
    ranges.iter().find(|r| r.runs(clock_hz)).ok_or_else(|| {
        let max = ranges.iter().filter_map(|r| r.max_hz).max().unwrap_or(0) as f64 / 1e6;
        format!("no voltage range runs a {mhz} MHz clock (at most {max} MHz)")
    })
}

/// A peripheral figure that is either one value or one per range id (`{ "1" = x, ... }`).
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum PerRange {
    One(f64),
    ByRange(BTreeMap<String, f64>),
}

impl PerRange {
    /// The value for range `id`; None if a per-range table lacks it.
    pub fn get(&self, id: u32) -> Option<f64> {
        match self {
            PerRange::One(v) => Some(*v),
            PerRange::ByRange(m) => m.get(&id.to_string()).copied(),
        }
    }

    pub fn values(&self) -> Vec<f64> {
        match self {
            PerRange::One(v) => vec![*v],
            PerRange::ByRange(m) => m.values().copied().collect(),
        }
    }

    /// Every range has a value, and no value names a range the part lacks.
    pub fn check(&self, key: &str, ranges: &[Range]) -> Result<(), String> {
        if let PerRange::ByRange(m) = self {
            for r in ranges {
                if !m.contains_key(&r.id.to_string()) {
                    return Err(format!("{key}: no value for range {}", r.id));
                }
            }
            if let Some(k) = m.keys().find(|k| !ranges.iter().any(|r| r.id.to_string() == **k)) {
                return Err(format!("{key}: \"{k}\" is not a range of this part"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(id: u32, max_hz: Option<u64>) -> Range {
        let c = Curve { ua_per_mhz: Some(1.0), static_ua: None, points: None, source: String::new() };
        Range { id, max_hz, zero_wait_max_hz: 0, wait_states_above: 0, source: String::new(), run: c.clone(), sleep: c }
    }

    #[test]
    fn lowest_power_range_that_runs_the_clock() {
        let rs = [range(3, Some(4_200_000)), range(2, Some(16_000_000)), range(1, Some(32_000_000))];
        assert_eq!(select(&rs, 4_200_000, None).unwrap().id, 3);
        assert_eq!(select(&rs, 4_200_001, None).unwrap().id, 2);
        assert_eq!(select(&rs, 25_000_000, None).unwrap().id, 1);
        assert_eq!(select(&rs, 4_000_000, Some(1)).unwrap().id, 1);
        assert_eq!(select(&rs, 48_000_000, None).unwrap_err(), "no voltage range runs a 48 MHz clock (at most 32 MHz)");
        assert_eq!(select(&rs, 32_000_000, Some(3)).unwrap_err(), "voltage range 3 runs at most 4.2 MHz, not 32 MHz");
        assert!(select(&rs, 1_000_000, Some(4)).unwrap_err().starts_with("voltage range 4: no such range"));
        assert_eq!(select(&[range(1, None)], 1_000_000_000, None).unwrap().id, 1);
    }
}
