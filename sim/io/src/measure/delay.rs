//! Stimulus->response delay: each firing of a stimulus is paired with one response event
//! by the entry's rule (see MatchRule); delay = response time - firing time. A firing with
//! no response is "unanswered"; a deadline miss is a delay > deadline or an unanswered
//! firing.
//!
//! [`Delay`] pairs the events as they come, in time order, in bounded memory: `next` keeps
//! one undecided firing, `fifo` and `sequence` the firings still waiting for a response,
//! at most [`WAITING_CAP`] of them (the oldest is given up, counted as unanswered and
//! reported as `given_up`, when a firing would exceed it). [`pair`] is the definition on
//! whole lists that the streaming pairing reproduces (tests check one against the other).

use super::dist::{secs, Dist};
use crate::scenario_io::MatchRule;
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};

/// Firings a `fifo` or `sequence` entry keeps waiting for their response.
pub const WAITING_CAP: usize = 65_536;

/// For each firing, the index of its response (if any); firings and responses are
/// (time, value) lists in time order.
pub fn pair(stims: &[(u64, u32)], resps: &[(u64, u32)], rule: MatchRule) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(stims.len());
    match rule {
        MatchRule::Next => {
            let mut j = 0;
            for (i, &(s, _)) in stims.iter().enumerate() {
                while j < resps.len() && resps[j].0 < s {
                    j += 1;
                }
                let before_next = stims.get(i + 1).is_none_or(|&(n, _)| j < resps.len() && resps[j].0 < n);
                if j < resps.len() && before_next {
                    out.push(Some(j));
                    j += 1;
                } else {
                    out.push(None);
                }
            }
        }
        MatchRule::Fifo => {
            let mut j = 0;
            for &(s, _) in stims {
                while j < resps.len() && resps[j].0 < s {
                    j += 1;
                }
                if j < resps.len() {
                    out.push(Some(j));
                    j += 1;
                } else {
                    out.push(None);
                }
            }
        }
        MatchRule::Sequence => {
            // Responses by value, in time order. Firings come in time order too, so a
            // response earlier than this firing can answer no later firing either.
            let mut by_value: BTreeMap<u32, VecDeque<usize>> = Default::default();
            for (j, &(_, v)) in resps.iter().enumerate() {
                by_value.entry(v).or_default().push_back(j);
            }
            for &(s, seq) in stims {
                let q = by_value.get_mut(&seq);
                let hit = q.and_then(|q| {
                    while q.front().is_some_and(|&j| resps[j].0 < s) {
                        q.pop_front();
                    }
                    q.pop_front()
                });
                out.push(hit);
            }
        }
    }
    out
}

pub struct DelayInput<'a> {
    pub stimulus: &'a str,
    pub response: &'a str,
    pub rule: MatchRule,
    pub deadline_ps: Option<u64>,
}

/// One `[[io.delay]]` entry, fed firings and responses in time order. Times are
/// picoseconds; `cycle` (the event's cycle) only groups events of one instant: at one
/// cycle, firings are paired before responses, as a response at the firing's own cycle
/// answers it.
#[derive(Clone, Debug)]
pub struct Delay {
    rule: MatchRule,
    deadline_ps: Option<u64>,
    stimuli: u64,
    answered: u64,
    late: u64,
    given_up: u64,
    delays: Dist,
    /// Responses at `deferred_cycle`, (time, value), not yet paired.
    deferred: Vec<(u64, u32)>,
    deferred_cycle: u64,
    /// `next`: the last firing (undecided) and the first response at or after it.
    pending: Option<u64>,
    cand: Option<u64>,
    /// `fifo`: firings waiting for a response, oldest first.
    waiting: VecDeque<u64>,
    /// `sequence`: waiting firings by (sequence number, firing index) -> time, and
    /// (firing index, sequence number) of firings since the oldest one still waiting.
    by_seq: BTreeMap<(u32, u64), u64>,
    order: VecDeque<(u64, u32)>,
}

impl Delay {
    pub fn new(rule: MatchRule, deadline_ps: Option<u64>, bin_ps: u64) -> Delay {
        Delay {
            rule,
            deadline_ps,
            stimuli: 0,
            answered: 0,
            late: 0,
            given_up: 0,
            delays: Dist::new(bin_ps),
            deferred: Vec::new(),
            deferred_cycle: 0,
            pending: None,
            cand: None,
            waiting: VecDeque::new(),
            by_seq: BTreeMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Firings kept waiting (memory-bounding state, for tests).
    pub fn waiting(&self) -> usize {
        self.waiting.len() + self.order.len()
    }

    pub fn firing(&mut self, t_ps: u64, cycle: u64, seq: u32) {
        if !self.deferred.is_empty() && self.deferred_cycle != cycle {
            self.flush_responses();
        }
        self.stimuli += 1;
        match self.rule {
            MatchRule::Next => {
                if let (Some(s), Some(r)) = (self.pending.take(), self.cand.take()) {
                    self.answer(s, r);
                }
                self.pending = Some(t_ps);
            }
            MatchRule::Fifo => {
                self.waiting.push_back(t_ps);
                if self.waiting.len() > WAITING_CAP {
                    self.waiting.pop_front();
                    self.given_up += 1;
                }
            }
            MatchRule::Sequence => {
                let idx = self.stimuli;
                self.by_seq.insert((seq, idx), t_ps);
                self.order.push_back((idx, seq));
                if self.order.len() > WAITING_CAP {
                    if let Some((i, s)) = self.order.pop_front() {
                        if self.by_seq.remove(&(s, i)).is_some() {
                            self.given_up += 1;
                        }
                    }
                }
                self.trim_order();
            }
        }
    }

    pub fn response(&mut self, t_ps: u64, cycle: u64, value: u32) {
        if !self.deferred.is_empty() && self.deferred_cycle != cycle {
            self.flush_responses();
        }
        self.deferred_cycle = cycle;
        self.deferred.push((t_ps, value));
    }

    fn flush_responses(&mut self) {
        let deferred = std::mem::take(&mut self.deferred);
        for &(r, v) in &deferred {
            match self.rule {
                MatchRule::Next => {
                    if self.pending.is_some() && self.cand.is_none() {
                        self.cand = Some(r);
                    }
                }
                MatchRule::Fifo => {
                    if let Some(s) = self.waiting.pop_front() {
                        self.answer(s, r);
                    }
                }
                MatchRule::Sequence => {
                    let first = self.by_seq.range((v, 0)..=(v, u64::MAX)).next().map(|(&k, &s)| (k, s));
                    if let Some((k, s)) = first {
                        self.by_seq.remove(&k);
                        self.answer(s, r);
                    }
                }
            }
        }
        self.deferred = deferred;
        self.deferred.clear();
        if self.rule == MatchRule::Sequence {
            self.trim_order();
        }
    }

    /// Drop answered firings from the front of `order`.
    fn trim_order(&mut self) {
        while let Some(&(i, s)) = self.order.front() {
            if self.by_seq.contains_key(&(s, i)) {
                break;
            }
            self.order.pop_front();
        }
    }

    fn answer(&mut self, s: u64, r: u64) {
        let d = r as i128 - s as i128;
        self.answered += 1;
        if self.deadline_ps.is_some_and(|dl| d > dl as i128) {
            self.late += 1;
        }
        self.delays.add(d.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
    }

    /// Pair what is still open as at the end of the run: the last `next` firing takes its
    /// candidate response; firings still waiting stay unanswered.
    pub fn finish(&mut self) {
        self.flush_responses();
        if let (Some(s), Some(r)) = (self.pending.take(), self.cand.take()) {
            self.answer(s, r);
        }
    }

    /// The entry's stats (call `finish` first).
    pub fn json(&mut self, d: &DelayInput) -> Value {
        let unanswered = self.stimuli - self.answered;
        let mut v = json!({
            "stimulus": d.stimulus,
            "response": d.response,
            "match": match d.rule {
                MatchRule::Next => "next",
                MatchRule::Fifo => "fifo",
                MatchRule::Sequence => "sequence",
            },
            "stimuli": self.stimuli,
            "answered": self.answered,
            "unanswered": unanswered,
            "delay": self.delays.summary(),
            "histogram": self.delays.histogram(),
        });
        if let Some(dl) = d.deadline_ps {
            let (late, stims) = (self.late, self.stimuli);
            v["deadline"] = json!({
                "deadline_s": secs(dl as i128),
                "late": late,
                "misses": late + unanswered,
                "miss_ratio": if stims == 0 { 0.0 } else { (late + unanswered) as f64 / stims as f64 },
            });
        }
        if self.given_up > 0 {
            v["given_up"] = json!(self.given_up);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stimuli::prng::Prng;

    #[test]
    fn rules() {
        let s = [(10, 1), (20, 2), (30, 3)];
        let r = [(12, 1), (15, 9), (33, 3)];
        assert_eq!(pair(&s, &r, MatchRule::Next), vec![Some(0), None, Some(2)]);
        assert_eq!(pair(&s, &r, MatchRule::Fifo), vec![Some(0), Some(2), None]);
        assert_eq!(pair(&s, &r, MatchRule::Sequence), vec![Some(0), None, Some(2)]);
    }

    /// Streaming pairing = `pair` on the whole lists, for random streams with many ties
    /// (firings and responses at one cycle, in either order).
    #[test]
    fn streaming_pairs_like_the_definition() {
        for seed in 0..400u64 {
            let mut rng = Prng::new(seed, 7);
            let n = (rng.next_u64() % 40) as usize;
            // (cycle, is_firing, value), time-ordered; ties keep arbitrary order.
            let mut cycle = 0u64;
            let mut ev: Vec<(u64, bool, u32)> = Vec::new();
            let mut seq = 0u32;
            for _ in 0..n {
                cycle += rng.next_u64() % 3;
                let firing = rng.next_u64().is_multiple_of(2);
                let value = if firing {
                    seq += 1 + rng.next_u64().is_multiple_of(4) as u32;
                    if rng.next_u64().is_multiple_of(8) {
                        seq = 1;
                    }
                    seq
                } else {
                    (rng.next_u64() % (seq as u64 + 2)) as u32
                };
                ev.push((cycle, firing, value));
            }
            let stims: Vec<(u64, u32)> = ev.iter().filter(|e| e.1).map(|e| (e.0, e.2)).collect();
            let resps: Vec<(u64, u32)> = ev.iter().filter(|e| !e.1).map(|e| (e.0, e.2)).collect();
            for rule in [MatchRule::Next, MatchRule::Fifo, MatchRule::Sequence] {
                let pairs = pair(&stims, &resps, rule);
                let mut want: Vec<i64> = stims
                    .iter()
                    .zip(&pairs)
                    .filter_map(|(&(s, _), p)| p.map(|j| (resps[j].0 - s) as i64 * 40))
                    .collect();
                want.sort_unstable();
                let mut d = Delay::new(rule, Some(40), 40);
                for &(c, firing, v) in &ev {
                    if firing {
                        d.firing(c * 40, c, v);
                    } else {
                        d.response(c * 40, c, v);
                    }
                }
                d.finish();
                let got: Vec<i64> =
                    d.delays.table().iter().flat_map(|&(v, c)| std::iter::repeat_n(v, c as usize)).collect();
                assert_eq!(got, want, "seed {seed} {rule:?} {ev:?}");
                assert_eq!(d.stimuli as usize, stims.len());
                assert_eq!(d.late as usize, want.iter().filter(|&&x| x > 40).count());
            }
        }
    }

    /// A firmware that never answers: waiting firings stay bounded.
    #[test]
    fn unanswered_firings_are_given_up_beyond_the_cap() {
        for rule in [MatchRule::Fifo, MatchRule::Sequence] {
            let mut d = Delay::new(rule, None, 1000);
            let n = WAITING_CAP as u64 + 10;
            for k in 1..=n {
                d.firing(k * 1000, k, k as u32);
                assert!(d.waiting() <= WAITING_CAP + 1);
            }
            d.response(n * 1000 + 5, n + 1, n as u32);
            d.finish();
            let v = d.json(&DelayInput { stimulus: "s", response: "r", rule, deadline_ps: None });
            assert_eq!(v["given_up"], 10, "{rule:?}");
            assert_eq!(v["answered"], 1);
            assert_eq!(v["unanswered"], n - 1);
        }
    }
}
