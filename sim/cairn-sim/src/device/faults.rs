//! Faults injected on purpose, from the device file: frames dropped, corrupted or delayed
//! on the bus by rule, and modules powered off or reset at a time or at the N-th
//! occurrence of a trace-port word. Every rule's random choices come from its own stream of
//! the run's seed, so a run is repeatable and adding a rule does not change another's.

use crate::stimuli::prng::Prng;

/// Which frames a frame rule applies to: all of the given conditions hold.
#[derive(Clone, Debug, Default)]
pub struct FrameMatch {
    /// Processor indices of the sender and the destination (a broadcast matches no `dst`).
    pub src: Option<usize>,
    pub dst: Option<usize>,
    /// The payload starts with these bytes.
    pub first_bytes: Vec<u8>,
    /// Every N-th frame that matches the conditions above (the N-th, 2N-th, ...).
    pub every: Option<u64>,
    /// With this probability, for each frame that matches everything else.
    pub probability: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleTrigger {
    /// At this simulated time (ps).
    At(u64),
    /// At the `count`-th time the processor writes to its trace port a word whose bits in
    /// `mask` equal `word`'s (the kernel's event code is the top byte: mask 0xFF000000).
    TraceWord { word: u32, mask: u32, count: u64 },
}

#[derive(Clone, Debug)]
pub enum FaultRule {
    Drop(FrameMatch),
    Corrupt(FrameMatch),
    /// Deliver later by this many ps.
    Delay(FrameMatch, u64),
    PowerOff(usize, ModuleTrigger),
    Reset(usize, ModuleTrigger),
}

impl FaultRule {
    pub fn name(&self) -> &'static str {
        match self {
            FaultRule::Drop(_) => "drop",
            FaultRule::Corrupt(_) => "corrupt",
            FaultRule::Delay(..) => "delay",
            FaultRule::PowerOff(..) => "power_off",
            FaultRule::Reset(..) => "reset",
        }
    }
}

/// What the frame rules do to one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameFate {
    pub drop: bool,
    pub corrupt: bool,
    pub delay_ps: u64,
    /// The rule that decided each (for the record), by index in the device file.
    pub rule: Option<usize>,
}

/// The frame rules with their counters and random streams.
pub struct FrameFaults {
    rules: Vec<(usize, FaultRule)>,
    matched: Vec<u64>,
    prng: Vec<Prng>,
}

impl FrameFaults {
    pub fn new(all: &[FaultRule], seed: u64) -> FrameFaults {
        let rules: Vec<(usize, FaultRule)> = all
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r, FaultRule::Drop(_) | FaultRule::Corrupt(_) | FaultRule::Delay(..)))
            .map(|(i, r)| (i, r.clone()))
            .collect();
        let prng = rules.iter().map(|(i, _)| Prng::new(seed, 0xFA17_0000 + *i as u64)).collect();
        FrameFaults { matched: vec![0; rules.len()], rules, prng }
    }

    /// Decide a frame's fate: `dst` is None for a broadcast. Called once per frame, in the
    /// order frames go on the wire.
    pub fn fate(&mut self, src: usize, dst: Option<usize>, data: &[u8]) -> FrameFate {
        let mut f = FrameFate::default();
        for (k, (index, rule)) in self.rules.iter().enumerate() {
            let m = match rule {
                FaultRule::Drop(m) | FaultRule::Corrupt(m) | FaultRule::Delay(m, _) => m,
                _ => continue,
            };
            if m.src.is_some_and(|s| s != src)
                || m.dst.is_some_and(|d| Some(d) != dst)
                || !data.starts_with(&m.first_bytes)
            {
                continue;
            }
            self.matched[k] += 1;
            if m.every.is_some_and(|n| !self.matched[k].is_multiple_of(n)) {
                continue;
            }
            if let Some(p) = m.probability {
                if self.prng[k].next_f64() >= p {
                    continue;
                }
            }
            match rule {
                FaultRule::Drop(_) => f.drop = true,
                FaultRule::Corrupt(_) => f.corrupt = true,
                FaultRule::Delay(_, ps) => f.delay_ps += ps,
                _ => {}
            }
            f.rule.get_or_insert(*index);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_matching_frame_and_first_bytes() {
        let m = FrameMatch { src: Some(0), first_bytes: vec![0x45], every: Some(2), ..Default::default() };
        let mut f = FrameFaults::new(&[FaultRule::Drop(m)], 1);
        let fates: Vec<bool> = (0..6)
            .map(|i| {
                let data = if i == 2 { [0x46u8] } else { [0x45u8] };
                f.fate(0, Some(1), &data).drop
            })
            .collect();
        // Frames 0,1,3,4,5 match; the 2nd and 4th of them (frames 1 and 4) are dropped.
        assert_eq!(fates, [false, true, false, false, true, false]);
        assert!(!f.fate(1, Some(0), &[0x45]).drop, "another sender");
    }

    #[test]
    fn probability_follows_the_seed() {
        let run = |seed| {
            let m = FrameMatch { probability: Some(0.5), ..Default::default() };
            let mut f = FrameFaults::new(&[FaultRule::Corrupt(m)], seed);
            (0..64).map(|_| f.fate(0, None, &[]).corrupt).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let hits = run(7).iter().filter(|&&c| c).count();
        assert!((16..=48).contains(&hits), "{hits}");
    }
}
