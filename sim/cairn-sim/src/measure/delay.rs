//! Stimulus->response delay: each firing of a stimulus is paired with one response event
//! by the entry's rule (see MatchRule); delay = response time - firing time. A firing with
//! no response is "unanswered"; a deadline miss is a delay > deadline or an unanswered
//! firing.

use super::dist::{histogram, secs, summary};
use super::signals::ps;
use crate::scenario_io::MatchRule;
use serde_json::{json, Value};

/// For each firing, the index of its response (if any).
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
            let mut by_value: std::collections::BTreeMap<u32, std::collections::VecDeque<usize>> = Default::default();
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
    pub bin_ps: u64,
    pub clock_hz: u64,
}

pub fn delay_json(stims: &[(u64, u32)], resps: &[(u64, u32)], d: &DelayInput) -> Value {
    let pairs = pair(stims, resps, d.rule);
    let delays: Vec<i128> = stims
        .iter()
        .zip(&pairs)
        .filter_map(|(&(s, _), p)| p.map(|j| ps(resps[j].0, d.clock_hz) - ps(s, d.clock_hz)))
        .collect();
    let unanswered = pairs.iter().filter(|p| p.is_none()).count();
    let mut v = json!({
        "stimulus": d.stimulus,
        "response": d.response,
        "match": match d.rule {
            MatchRule::Next => "next",
            MatchRule::Fifo => "fifo",
            MatchRule::Sequence => "sequence",
        },
        "stimuli": stims.len(),
        "answered": delays.len(),
        "unanswered": unanswered,
        "delay": summary(&delays),
        "histogram": histogram(&delays, d.bin_ps),
    });
    if let Some(dl) = d.deadline_ps {
        let late = delays.iter().filter(|&&x| x > dl as i128).count();
        v["deadline"] = json!({
            "deadline_s": secs(dl as i128),
            "late": late,
            "misses": late + unanswered,
            "miss_ratio": if stims.is_empty() { 0.0 } else { (late + unanswered) as f64 / stims.len() as f64 },
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let s = [(10, 1), (20, 2), (30, 3)];
        let r = [(12, 1), (15, 9), (33, 3)];
        assert_eq!(pair(&s, &r, MatchRule::Next), vec![Some(0), None, Some(2)]);
        assert_eq!(pair(&s, &r, MatchRule::Fifo), vec![Some(0), Some(2), None]);
        assert_eq!(pair(&s, &r, MatchRule::Sequence), vec![Some(0), None, Some(2)]);
    }
}
