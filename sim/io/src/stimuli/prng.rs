//! A tiny, documented PRNG so stimulus streams never change under a dependency upgrade:
//! SplitMix64 (Steele, Lea, Flood 2014) seeds xoshiro256** (Blackman, Vigna 2018).
//! Each stimulus and noise channel gets its own stream derived from (run seed, stream id),
//! so adding a stimulus does not perturb the others.

/// One SplitMix64 step: also used as a stateless hash for time-indexed noise.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from the top 53 bits of `x`.
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[derive(Clone, Debug)]
pub struct Prng {
    s: [u64; 4],
}

impl Prng {
    /// Stream `stream` of run seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Prng {
        let mut x = seed ^ splitmix64(stream.wrapping_add(0x5EED));
        let mut s = [0u64; 4];
        for w in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            *w = splitmix64(x);
        }
        Prng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }

    /// Exponentially distributed with the given mean (inverse-CDF method).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - u lies in (0, 1], so the logarithm is finite.
        -(1.0 - self.next_f64()).ln() * mean
    }
}

/// Standard normal value that depends only on `key` (Box-Muller on two hashed uniforms):
/// ADC noise sampled at a given time is the same whatever the order of reads.
pub fn hashed_normal(key: u64) -> f64 {
    let a = splitmix64(key);
    let b = splitmix64(a ^ 0xD1B5_4A32_D192_ED03);
    let u1 = 1.0 - unit_f64(a);
    let u2 = unit_f64(b);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| 0).scan(Prng::new(1, 0), |p, _: u64| Some(p.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(Prng::new(1, 0), |p, _: u64| Some(p.next_u64())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(Prng::new(2, 0), |p, _: u64| Some(p.next_u64())).collect();
        let d: Vec<u64> = (0..4).map(|_| 0).scan(Prng::new(1, 1), |p, _: u64| Some(p.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut p = Prng::new(7, 3);
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| p.next_f64()).sum::<f64>() / n as f64;
        // sigma of the mean = sqrt(1/12 / n) ~ 0.0009; allow 4 sigma.
        assert!((mean - 0.5).abs() < 0.0037, "{mean}");
    }

    #[test]
    fn hashed_normal_has_unit_variance() {
        let n = 50_000u64;
        let xs: Vec<f64> = (0..n).map(hashed_normal).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.02, "{mean}");
        assert!((var - 1.0).abs() < 0.03, "{var}");
    }
}
