//! ADC channel signal sources: analytic (sine, noise, step, ramp) or recorded (WAV, CSV).
//! A channel's value at time t is its source's value at `t - delay` (microphone arrays:
//! one source, a different delay per channel). Recorded sources are sample-and-hold and
//! read as 0 before their first sample and after their last.

use super::prng::{hashed_normal, splitmix64};
use crate::input_file::{read_input, read_input_text, DATA_LIMIT};
use crate::periph::adc::AnalogIn;
use crate::time::PS_PER_S;
use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Sine {
        freq_hz: f64,
        amplitude: f64,
        offset: f64,
        phase_rad: f64,
    },
    /// Gaussian noise, a fresh value every `1 / bandwidth` seconds (sample-and-hold).
    Noise {
        stddev: f64,
        offset: f64,
        sample_ps: u64,
        stream: u64,
    },
    Step {
        at_ps: u64,
        low: f64,
        high: f64,
    },
    Ramp {
        offset: f64,
        slope_per_s: f64,
    },
    /// Recorded samples at a fixed rate (WAV or evenly spaced CSV).
    Samples {
        rate_hz: f64,
        values: Vec<f64>,
    },
    /// Recorded (time_ps, value) pairs in increasing time (CSV).
    Points {
        points: Vec<(u64, f64)>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub source: Source,
    pub delay_ps: u64,
}

impl Channel {
    /// Source value at absolute time `t_ps`; `seed` feeds noise sources.
    pub fn value(&self, t_ps: u64, seed: u64) -> f64 {
        let Some(t) = t_ps.checked_sub(self.delay_ps) else {
            // Before the delayed signal starts.
            return match &self.source {
                Source::Step { low, .. } => *low,
                _ => 0.0,
            };
        };
        let secs = t as f64 / PS_PER_S as f64;
        match &self.source {
            Source::Sine { freq_hz, amplitude, offset, phase_rad } => {
                offset + amplitude * (2.0 * std::f64::consts::PI * freq_hz * secs + phase_rad).sin()
            }
            Source::Noise { stddev, offset, sample_ps, stream } => {
                let slot = t / (*sample_ps).max(1);
                offset + stddev * hashed_normal(splitmix64(seed ^ stream.wrapping_mul(0x9E37)) ^ slot)
            }
            Source::Step { at_ps, low, high } => {
                if t >= *at_ps {
                    *high
                } else {
                    *low
                }
            }
            Source::Ramp { offset, slope_per_s } => offset + slope_per_s * secs,
            Source::Samples { rate_hz, values } => {
                let i = (secs * rate_hz).floor();
                if i >= 0.0 && (i as usize) < values.len() {
                    values[i as usize]
                } else {
                    0.0
                }
            }
            Source::Points { points } => {
                let i = points.partition_point(|(pt, _)| *pt <= t);
                if i == 0 || (i == points.len() && points.len() > 1 && t > points[i - 1].0 + last_gap(points)) {
                    0.0
                } else {
                    points[i - 1].1
                }
            }
        }
    }
}

/// Hold time of the last CSV point: the spacing of the last two points.
fn last_gap(points: &[(u64, f64)]) -> u64 {
    let n = points.len();
    points[n - 1].0 - points[n - 2].0
}

/// Read one channel of a WAV file as floats in [-1, 1] (integer formats) or as stored
/// (float formats). Returns (sample rate, samples).
pub fn read_wav(path: &Path, channel: u16) -> Result<(f64, Vec<f64>), String> {
    let bytes = read_input(path, DATA_LIMIT)?;
    let mut r = hound::WavReader::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let spec = r.spec();
    if channel >= spec.channels {
        return Err(format!("{} has {} channel(s), no channel {channel}", path.display(), spec.channels));
    }
    let nch = spec.channels as usize;
    let ch = channel as usize;
    let bad = |e: hound::Error| format!("{}: {e}", path.display());
    let values: Vec<f64> = match spec.sample_format {
        hound::SampleFormat::Float => {
            let all: Result<Vec<f32>, _> = r.samples::<f32>().collect();
            all.map_err(bad)?.iter().skip(ch).step_by(nch).map(|&v| v as f64).collect()
        }
        hound::SampleFormat::Int => {
            let full = (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f64;
            let all: Result<Vec<i32>, _> = r.samples::<i32>().collect();
            all.map_err(bad)?.iter().skip(ch).step_by(nch).map(|&v| v as f64 / full).collect()
        }
    };
    Ok((spec.sample_rate as f64, values))
}

/// Read a CSV of `time_s,value[,value...]` rows (an optional header line is skipped),
/// taking value column `column` (1 = the first after time).
pub fn read_csv(path: &Path, column: usize) -> Result<Vec<(u64, f64)>, String> {
    let text = read_input_text(path, DATA_LIMIT)?;
    parse_csv(&text, column).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse_csv(text: &str, column: usize) -> Result<Vec<(u64, f64)>, String> {
    let mut points: Vec<(u64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let time = cells[0].parse::<f64>();
        if time.is_err() && points.is_empty() && n == 0 {
            continue; // header
        }
        let time = time.map_err(|_| format!("line {}: bad time '{}'", n + 1, cells[0]))?;
        if !(time.is_finite() && time >= 0.0) {
            return Err(format!("line {}: time must be >= 0", n + 1));
        }
        let cell = cells.get(column).ok_or_else(|| format!("line {}: no column {column}", n + 1))?;
        let v = cell.parse::<f64>().map_err(|_| format!("line {}: bad value '{cell}'", n + 1))?;
        let t = (time * PS_PER_S as f64).round() as u64;
        if points.last().is_some_and(|(pt, _)| *pt >= t) {
            return Err(format!("line {}: times must increase", n + 1));
        }
        points.push((t, v));
    }
    if points.is_empty() {
        return Err("no data rows".into());
    }
    Ok(points)
}

/// The scenario's channels wired to the ADC's inputs; noise is drawn from `seed`.
pub struct AdcInputs {
    pub channels: Vec<Channel>,
    pub seed: u64,
}

impl AnalogIn for AdcInputs {
    fn value(&self, ch: usize, ps: u64) -> f64 {
        self.channels[ch].value(ps, self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sine_and_delay() {
        let c = Channel {
            source: Source::Sine { freq_hz: 1000.0, amplitude: 2.0, offset: 0.5, phase_rad: 0.0 },
            delay_ps: 0,
        };
        // Quarter period of 1 kHz = 250 us: peak.
        assert!((c.value(250_000_000, 0) - 2.5).abs() < 1e-12);
        let d = Channel { delay_ps: 250_000_000, ..c.clone() };
        assert!((d.value(500_000_000, 0) - 2.5).abs() < 1e-12);
        assert_eq!(d.value(100, 0), 0.0);
    }

    #[test]
    fn csv_hold_and_header() {
        let pts = parse_csv("time_s,a,b\n0,1,10\n0.001,2,20\n", 2).unwrap();
        assert_eq!(pts, vec![(0, 10.0), (1_000_000_000, 20.0)]);
        let c = Channel { source: Source::Points { points: pts }, delay_ps: 0 };
        assert_eq!(c.value(999_999_999, 0), 10.0);
        assert_eq!(c.value(1_500_000_000, 0), 20.0);
        assert_eq!(c.value(2_000_000_001, 0), 0.0);
        assert!(parse_csv("0,1\n0,2\n", 1).is_err());
        assert!(parse_csv("0,x\n", 1).is_err());
    }

    #[test]
    fn noise_is_a_function_of_time_and_seed() {
        let c = Channel { source: Source::Noise { stddev: 1.0, offset: 0.0, sample_ps: 1000, stream: 0 }, delay_ps: 0 };
        assert_eq!(c.value(5000, 1), c.value(5999, 1));
        assert_ne!(c.value(5000, 1), c.value(5000, 2));
    }
}
