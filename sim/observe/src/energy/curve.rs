//! A current that depends on the clock, as a profile gives it: either a line
//! (`static_ua + ua_per_mhz * f`) or datasheet points (`points = [[MHz, uA], ...]`),
//! interpolated linearly between points and extended along the nearest segment outside them;
//! a single point is taken as proportional to the clock (a pure uA/MHz figure).

use serde::Deserialize;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Curve {
    pub ua_per_mhz: Option<f64>,
    pub static_ua: Option<f64>,
    /// [clock in MHz, current in uA], strictly increasing in clock.
    pub points: Option<Vec<[f64; 2]>>,
    pub source: String,
}

impl Curve {
    /// Checks the form (a line or points, not both) and the numbers. One-line error.
    pub fn check(&self, key: &str) -> Result<(), String> {
        let line = self.ua_per_mhz.is_some() || self.static_ua.is_some();
        match (&self.points, line) {
            (Some(_), true) => return Err(format!("{key}: give either points or ua_per_mhz/static_ua, not both")),
            (None, false) => return Err(format!("{key}: needs points = [[MHz, uA], ...] or ua_per_mhz/static_ua")),
            _ => {}
        }
        let nums: Vec<f64> = match &self.points {
            Some(p) => p.iter().flatten().copied().collect(),
            None => vec![self.ua_per_mhz.unwrap_or(0.0), self.static_ua.unwrap_or(0.0)],
        };
        if nums.iter().any(|v| !v.is_finite() || *v < 0.0 || *v > 1e6) {
            return Err(format!("{key}: currents and clocks must be finite, non-negative and below 1e6"));
        }
        if let Some(p) = &self.points {
            if p.is_empty() {
                return Err(format!("{key}: points is empty"));
            }
            if p.windows(2).any(|w| w[1][0] <= w[0][0]) {
                return Err(format!("{key}: points must be in strictly increasing clock order"));
            }
            if p.len() == 1 && p[0][0] == 0.0 {
                return Err(format!("{key}: a single point needs a clock above 0 MHz"));
            }
        }
        Ok(())
    }

    /// (static uA, uA/MHz) of the line in use at `mhz`. The static part may be negative
    /// (a datasheet segment that rises faster than proportionally); `ua_at` is never below 0.
    pub fn line_at(&self, mhz: f64) -> (f64, f64) {
        let Some(p) = &self.points else {
            return (self.static_ua.unwrap_or(0.0), self.ua_per_mhz.unwrap_or(0.0));
        };
        if p.len() == 1 {
            return (0.0, p[0][1] / p[0][0]);
        }
        // The segment containing `mhz`, or the first/last one outside the points.
        let i = p.partition_point(|q| q[0] <= mhz).clamp(1, p.len() - 1);
        let (a, b) = (p[i - 1], p[i]);
        let slope = (b[1] - a[1]) / (b[0] - a[0]);
        (a[1] - slope * a[0], slope)
    }

    /// The current at `mhz`, in uA (0 if a segment extended below its points would go negative).
    pub fn ua_at(&self, mhz: f64) -> f64 {
        let (s, k) = self.line_at(mhz);
        (s + k * mhz).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(p: &[[f64; 2]]) -> Curve {
        Curve { ua_per_mhz: None, static_ua: None, points: Some(p.to_vec()), source: String::new() }
    }

    #[test]
    fn points_interpolate_and_extend() {
        let c = pts(&[[8.0, 1550.0], [16.0, 3100.0], [32.0, 6300.0]]);
        assert_eq!(c.ua_at(16.0), 3100.0);
        assert_eq!(c.ua_at(24.0), 4700.0);
        assert_eq!(c.ua_at(12.0), 2325.0);
        assert_eq!(c.ua_at(4.0), 775.0, "below the points: the first segment");
        assert_eq!(pts(&[[16.0, 800.0]]).ua_at(8.0), 400.0, "one point: proportional");
        let line = Curve { ua_per_mhz: Some(50.0), static_ua: Some(2.6), points: None, source: String::new() };
        assert_eq!(line.line_at(99.0), (2.6, 50.0));
    }

    #[test]
    fn bad_curves_are_rejected() {
        assert!(pts(&[]).check("k").unwrap_err().contains("empty"));
        assert!(pts(&[[2.0, 1.0], [1.0, 2.0]]).check("k").unwrap_err().contains("increasing"));
        assert!(pts(&[[2.0, -1.0]]).check("k").unwrap_err().contains("non-negative"));
        let both = Curve { ua_per_mhz: Some(1.0), ..pts(&[[1.0, 1.0]]) };
        assert!(both.check("k").unwrap_err().contains("not both"));
    }
}
