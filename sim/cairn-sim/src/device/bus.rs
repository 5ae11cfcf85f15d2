//! The inter-processor bus, after mPlatform's CPLD bus: TDMA slots in a fixed order, one
//! frame per slot, a throughput and a fixed controller latency, unicast and broadcast,
//! hardware flow control (a frame goes only when every receiver's RX FIFO has room for it,
//! counting the frames already on their way there), and module power control.
//!
//! Times are global picoseconds. The bus decides a slot from what its controllers asked
//! up to the slot's start, and everything it decides arrives at least `lookahead()` later:
//! that is what lets the device scheduler run the processors apart for that long and still
//! be exact (device/cosim.rs).

use super::faults::{FaultRule, FrameFaults};
use crate::periph::bus_ctrl::{Frame, Request, BROADCAST};
use crate::time::PS_PER_S;
use crate::units::{numeric, parse_byte_rate, parse_duration_ps, parse_uint, toml_float};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct BusParams {
    pub throughput: u64,
    pub slot_ps: u64,
    /// Processor index of each slot's owner, in TDMA order.
    pub order: Vec<usize>,
    pub latency_ps: u64,
    pub header_bytes: u32,
    pub max_frame: u32,
    pub tx_fifo: u32,
    pub rx_fifo: u32,
    pub byte_energy_nj: f64,
    pub idle_power_uw: f64,
}

const KEYS: &str =
    "throughput, slot, slot_order, latency, header_bytes, max_frame, tx_fifo, rx_fifo, byte_energy_nj, idle_power_uw";

impl BusParams {
    pub fn parse(t: &toml::Table, names: &[&str]) -> Result<BusParams, String> {
        let mut p = BusParams {
            throughput: 64_000_000,
            slot_ps: 8_000_000,
            order: (0..names.len()).collect(),
            latency_ps: 500_000,
            header_bytes: 4,
            max_frame: 256,
            tx_fifo: 4,
            rx_fifo: 4,
            byte_energy_nj: 0.0,
            idle_power_uw: 0.0,
        };
        let dur = |k: &str, v: &toml::Value| -> Result<u64, String> {
            let ps = numeric(&format!("bus.{k}"), v, parse_duration_ps)?;
            u64::try_from(ps).ok().filter(|&p| p < 1 << 50).ok_or_else(|| format!("bus.{k}: too long"))
        };
        let count = |k: &str, v: &toml::Value, lo: u64, hi: u64| -> Result<u32, String> {
            numeric(&format!("bus.{k}"), v, |s| parse_uint(s, lo, hi)).map(|n| n as u32)
        };
        let float = |k: &str, v: &toml::Value| {
            toml_float(&format!("bus.{k}"), v, |x| x.is_finite() && x >= 0.0, "a number ≥ 0")
        };
        for (k, v) in t {
            match k.as_str() {
                "throughput" => p.throughput = numeric("bus.throughput", v, parse_byte_rate)?,
                "slot" => p.slot_ps = dur(k, v)?,
                "latency" => p.latency_ps = dur(k, v)?,
                "header_bytes" => p.header_bytes = count(k, v, 1, 64)?,
                "max_frame" => p.max_frame = count(k, v, 1, 65_536)?,
                "tx_fifo" => p.tx_fifo = count(k, v, 1, 1024)?,
                "rx_fifo" => p.rx_fifo = count(k, v, 1, 1024)?,
                "byte_energy_nj" => p.byte_energy_nj = float(k, v)?,
                "idle_power_uw" => p.idle_power_uw = float(k, v)?,
                "slot_order" => {
                    let list = v.as_array().ok_or("bus.slot_order: expected a list of processor names")?;
                    p.order = list
                        .iter()
                        .map(|n| {
                            let s = n.as_str().ok_or("bus.slot_order: expected a list of processor names")?;
                            names
                                .iter()
                                .position(|x| *x == s)
                                .ok_or_else(|| format!("bus.slot_order: no processor is named '{s}'"))
                        })
                        .collect::<Result<_, String>>()?;
                    if p.order.is_empty() {
                        return Err("bus.slot_order: needs at least one slot".into());
                    }
                }
                other => return Err(format!("bus.{other}: unknown key (known: {KEYS})")),
            }
        }
        if p.slot_ps == 0 {
            return Err("bus.slot: must be longer than 0".into());
        }
        let need = p.wire_ps(p.max_frame as usize);
        if need > p.slot_ps {
            return Err(format!(
                "bus.slot: {} ps cannot carry a frame of max_frame {} bytes (+{} header) at {} B/s: it needs {} ps",
                p.slot_ps, p.max_frame, p.header_bytes, p.throughput, need
            ));
        }
        Ok(p)
    }

    /// Time on the wire of a frame with `len` payload bytes.
    pub fn wire_ps(&self, len: usize) -> u64 {
        ((self.header_bytes as u128 + len as u128) * PS_PER_S as u128).div_ceil(self.throughput as u128) as u64
    }

    /// The least time from a slot's start to the arrival of anything sent in it.
    pub fn lookahead(&self) -> u64 {
        self.wire_ps(0) + self.latency_ps
    }

    fn round_ps(&self) -> u64 {
        self.slot_ps * self.order.len() as u64
    }

    /// Start of the first slot owned by processor `p` that begins at or after `t`.
    pub fn next_slot_of(&self, p: usize, t: u64) -> Option<u64> {
        let round = self.round_ps();
        let r = t / round;
        let mut best: Option<u64> = None;
        for (k, &owner) in self.order.iter().enumerate() {
            if owner != p {
                continue;
            }
            let mut s = r * round + k as u64 * self.slot_ps;
            if s < t {
                s += round;
            }
            best = Some(best.map_or(s, |b| b.min(s)));
        }
        best
    }
}

/// What the bus hands to a processor, at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Frame(Frame),
    TxDone,
    PowerOn,
    PowerOff,
}

/// One frame on the wire, for the statistics, the trace and the tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameRecord {
    pub id: u64,
    pub src: usize,
    /// None: broadcast.
    pub dst: Option<usize>,
    /// The processors whose RX FIFO it reached: a broadcast's are known only when it goes
    /// (the modules powered then); none for a dropped frame or a power frame.
    pub receivers: Vec<usize>,
    pub bytes: usize,
    pub power: Option<bool>,
    pub queued_ps: u64,
    pub start_ps: u64,
    pub arrival_ps: u64,
    pub dropped: bool,
    pub corrupt: bool,
    pub fault_rule: Option<usize>,
    /// Slots of its sender it waited because a receiver's FIFO was full.
    pub stalls: u64,
}

struct Queued {
    at: u64,
    dst: u8,
    data: Vec<u8>,
    power: Option<bool>,
    stalls: u64,
}

#[derive(Default, Clone, Debug)]
pub struct BusStats {
    pub frames: u64,
    pub bytes: u64,
    pub wire_ps: u64,
    pub latency_ps_sum: u128,
    pub latency_ps_max: u64,
    pub stalls: u64,
    pub dropped: u64,
    pub corrupted: u64,
    pub delayed: u64,
    pub power_frames: u64,
}

pub struct Bus {
    pub params: BusParams,
    addresses: Vec<u8>,
    queues: Vec<VecDeque<Queued>>,
    /// Frames in each processor's RX FIFO or on their way to it.
    rx_held: Vec<u32>,
    /// The bus's view of each processor's power, as of the last slot decided.
    powered: Vec<bool>,
    /// Requests not yet applied: (time, processor, sequence, request).
    inputs: Vec<(u64, usize, u64, Request)>,
    seq: u64,
    /// Power changes that take effect at a time (arrivals of power frames, wake-ups).
    power_changes: Vec<(u64, usize, bool)>,
    /// Index of the first slot not yet decided.
    next_slot: u64,
    faults: FrameFaults,
    pub stats: BusStats,
    pub log: Vec<FrameRecord>,
    /// Each processor's frames arrived or on their way, (arrival, frame id), to tell which
    /// one a pop takes.
    held: Vec<Vec<(u64, u64)>>,
    /// Frames taken out of an RX FIFO: (time, processor, frame id), for the waveform's
    /// FIFO occupancy and the trace.
    pub pops: Vec<(u64, usize, u64)>,
}

impl Bus {
    pub fn new(params: BusParams, addresses: Vec<u8>, powered: Vec<bool>, faults: &[FaultRule], seed: u64) -> Bus {
        let n = addresses.len();
        Bus {
            params,
            addresses,
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            rx_held: vec![0; n],
            powered,
            inputs: Vec::new(),
            seq: 0,
            power_changes: Vec::new(),
            next_slot: 0,
            faults: FrameFaults::new(faults, seed),
            stats: BusStats::default(),
            log: Vec::new(),
            held: vec![Vec::new(); n],
            pops: Vec::new(),
        }
    }

    /// A controller's request, at time `at` (ps).
    pub fn request(&mut self, at: u64, p: usize, r: Request) {
        self.seq += 1;
        self.inputs.push((at, p, self.seq, r));
    }

    /// A processor powered off (by itself or by a fault) at `at`.
    pub fn note_power(&mut self, at: u64, p: usize, on: bool) {
        self.power_changes.push((at, p, on));
    }

    /// Whether processor `p` has frames waiting to go.
    pub fn has_queued(&self, p: usize) -> bool {
        !self.queues[p].is_empty()
    }

    /// Whether a frame can go without anything else happening first: one whose receivers
    /// have room, or requests and power changes not yet applied that may make room.
    pub fn can_progress(&self) -> bool {
        !self.inputs.is_empty() || !self.power_changes.is_empty() || self.a_head_can_go()
    }

    /// Whether the first frame queued by some processor has room at all its receivers.
    fn a_head_can_go(&self) -> bool {
        self.queues.iter().enumerate().any(|(p, q)| q.front().is_some_and(|f| self.can_go(p, f)))
    }

    /// Decide every slot that starts before `until`, given all requests made before it.
    /// Returns what arrives where and when: each at least `lookahead()` after its slot.
    pub fn advance(&mut self, until: u64) -> Vec<(u64, usize, Output)> {
        self.inputs.sort_by_key(|(t, p, s, _)| (*t, *p, *s));
        self.power_changes.sort_by_key(|(t, p, _)| (*t, *p));
        let mut out = Vec::new();
        let mut next_input = 0usize;
        let slot = self.params.slot_ps;
        let n = self.params.order.len() as u64;
        loop {
            let start = self.next_slot.saturating_mul(slot);
            if start >= until {
                break;
            }
            while next_input < self.inputs.len() && self.inputs[next_input].0 <= start {
                let (t, p, _, r) = self.inputs[next_input].clone();
                self.apply(t, p, r);
                next_input += 1;
            }
            self.apply_power_changes(start);
            self.wake_stalled(start, &mut out);
            let owner = self.params.order[(self.next_slot % n) as usize];
            if !self.a_head_can_go() {
                // Nothing can go before the next request or power change: jump to its slot,
                // counting the stalls of the frames that wait (one per slot of their sender).
                let resume = self.inputs.get(next_input).map_or(until, |i| i.0.min(until));
                let resume = self.power_changes.first().map_or(resume, |c| c.0.min(resume));
                let target = resume.div_ceil(slot).max(self.next_slot + 1);
                self.count_stalls(self.next_slot, target);
                self.next_slot = target;
                continue;
            }
            if let Some(f) = self.queues[owner].front() {
                if self.can_go(owner, f) {
                    let f = self.queues[owner].pop_front().expect("checked");
                    self.transmit(start, owner, f, &mut out);
                } else {
                    self.queues[owner].front_mut().expect("checked").stalls += 1;
                    self.stats.stalls += 1;
                }
            }
            self.next_slot += 1;
        }
        self.inputs.drain(..next_input);
        out
    }

    /// A unicast frame held back by a powered-off module's full FIFO powers that module on,
    /// as one that lands does (the CPLD, always powered, sees its address): otherwise the
    /// module would never drain its FIFO and the sender would wait for ever.
    fn wake_stalled(&mut self, start: u64, out: &mut Vec<(u64, usize, Output)>) {
        for p in 0..self.queues.len() {
            let Some(f) = self.queues[p].front() else { continue };
            if f.power.is_some() || f.dst == BROADCAST {
                continue;
            }
            let Some(r) = self.index_of(f.dst) else { continue };
            let waking = self.power_changes.iter().any(|&(_, q, on)| q == r && on);
            if self.powered[r] || waking || self.rx_held[r] < self.params.rx_fifo {
                continue;
            }
            let at = start + self.params.wire_ps(0) + self.params.latency_ps;
            self.power_changes.push((at, r, true));
            self.power_changes.sort_by_key(|(t, p, _)| (*t, *p));
            out.push((at, r, Output::PowerOn));
        }
    }

    fn count_stalls(&mut self, from: u64, to: u64) {
        let n = self.params.order.len() as u64;
        for p in 0..self.queues.len() {
            if self.queues[p].is_empty() {
                continue;
            }
            let per_round = self.params.order.iter().filter(|&&o| o == p).count() as u64;
            // Slots of p in [from, to): whole rounds plus the partial ends.
            let mut k = 0;
            let mut s = from;
            while s < to && !s.is_multiple_of(n) {
                k += (self.params.order[(s % n) as usize] == p) as u64;
                s += 1;
            }
            let whole = (to - s) / n;
            k += whole * per_round;
            s += whole * n;
            while s < to {
                k += (self.params.order[(s % n) as usize] == p) as u64;
                s += 1;
            }
            self.queues[p].front_mut().expect("not empty").stalls += k;
            self.stats.stalls += k;
        }
    }

    fn apply(&mut self, t: u64, p: usize, r: Request) {
        match r {
            Request::Send { dst, data } => {
                self.queues[p].push_back(Queued { at: t, dst, data, power: None, stalls: 0 })
            }
            Request::Pop => {
                self.rx_held[p] = self.rx_held[p].saturating_sub(1);
                self.note_pop(t, p);
            }
            Request::Power { target, on } => {
                if target == self.addresses[p] {
                    // Its own power: the processor stopped at once (the scheduler saw it).
                    self.power_changes.push((t, p, on));
                    self.power_changes.sort_by_key(|(t, p, _)| (*t, *p));
                } else {
                    self.queues[p].push_back(Queued {
                        at: t,
                        dst: target,
                        data: Vec::new(),
                        power: Some(on),
                        stalls: 0,
                    });
                }
            }
        }
    }

    /// The controller's FIFO hands frames out in arrival order (a delayed frame can arrive
    /// after one sent later).
    fn note_pop(&mut self, t: u64, p: usize) {
        let held = &mut self.held[p];
        if let Some(k) = (0..held.len()).filter(|&k| held[k].0 <= t).min_by_key(|&k| held[k]) {
            let (_, id) = held.swap_remove(k);
            self.pops.push((t, p, id));
        }
    }

    /// At the end of the run: record the pops requested after the last slot decided.
    pub fn settle(&mut self) {
        self.inputs.sort_by_key(|(t, p, s, _)| (*t, *p, *s));
        for (t, p, _, r) in std::mem::take(&mut self.inputs) {
            if r == Request::Pop {
                self.note_pop(t, p);
            }
        }
    }

    fn apply_power_changes(&mut self, now: u64) {
        let due = self.power_changes.partition_point(|c| c.0 <= now);
        for (_, p, on) in self.power_changes.drain(..due) {
            self.powered[p] = on;
        }
    }

    /// Processor `p`'s module address.
    pub fn address(&self, p: usize) -> u8 {
        self.addresses[p]
    }

    fn index_of(&self, addr: u8) -> Option<usize> {
        self.addresses.iter().position(|&a| a == addr)
    }

    /// The processors a frame from `src` to `dst` lands in.
    fn receivers(&self, src: usize, f: &Queued) -> Vec<usize> {
        if f.power.is_some() {
            return Vec::new();
        }
        if f.dst == BROADCAST {
            (0..self.addresses.len()).filter(|&p| p != src && self.powered[p]).collect()
        } else {
            self.index_of(f.dst).into_iter().collect()
        }
    }

    fn can_go(&self, src: usize, f: &Queued) -> bool {
        self.receivers(src, f).iter().all(|&r| self.rx_held[r] < self.params.rx_fifo)
    }

    fn transmit(&mut self, start: u64, src: usize, f: Queued, out: &mut Vec<(u64, usize, Output)>) {
        let receivers = self.receivers(src, &f);
        let dst_index = if f.dst == BROADCAST { None } else { self.index_of(f.dst) };
        let fate = if f.power.is_some() { Default::default() } else { self.faults.fate(src, dst_index, &f.data) };
        let arrival = start + self.params.wire_ps(f.data.len()) + self.params.latency_ps + fate.delay_ps;
        self.stats.frames += 1;
        self.stats.bytes += (self.params.header_bytes as usize + f.data.len()) as u64;
        self.stats.wire_ps += self.params.wire_ps(f.data.len());
        let latency = arrival - f.at;
        self.stats.latency_ps_sum += latency as u128;
        self.stats.latency_ps_max = self.stats.latency_ps_max.max(latency);
        self.stats.dropped += fate.drop as u64;
        self.stats.corrupted += (fate.corrupt && !fate.drop) as u64;
        self.stats.delayed += (fate.delay_ps > 0) as u64;
        let id = self.log.len() as u64;
        let landed = if fate.drop { Vec::new() } else { receivers.clone() };
        for &r in &landed {
            self.held[r].push((arrival, id));
        }
        self.log.push(FrameRecord {
            id,
            src,
            dst: dst_index,
            receivers: landed,
            bytes: f.data.len(),
            power: f.power,
            queued_ps: f.at,
            start_ps: start,
            arrival_ps: arrival,
            dropped: fate.drop,
            corrupt: fate.corrupt,
            fault_rule: fate.rule,
            stalls: f.stalls,
        });
        if let Some(on) = f.power {
            self.stats.power_frames += 1;
            if let Some(t) = dst_index {
                self.power_changes.push((arrival, t, on));
                self.power_changes.sort_by_key(|(t, p, _)| (*t, *p));
                out.push((arrival, t, if on { Output::PowerOn } else { Output::PowerOff }));
            }
            return;
        }
        out.push((arrival, src, Output::TxDone));
        if fate.drop {
            return;
        }
        let mut data = f.data;
        if fate.corrupt {
            // One flipped bit in the payload (or in the header, for an empty frame).
            if let Some(b) = data.first_mut() {
                *b ^= 0x01;
            }
        }
        for r in receivers {
            self.rx_held[r] += 1;
            if f.dst != BROADCAST && !self.powered[r] {
                // A unicast frame powers its destination on (the CPLD stays powered).
                self.powered[r] = true;
                out.push((arrival, r, Output::PowerOn));
            }
            let frame = Frame { src: self.addresses[src], dst: f.dst, data: data.clone(), corrupt: fate.corrupt };
            out.push((arrival, r, Output::Frame(frame)));
        }
    }

    /// Energy of the bus over `total_ps`: bytes on the wire plus idle power.
    pub fn energy_j(&self, total_ps: u64) -> f64 {
        self.stats.bytes as f64 * self.params.byte_energy_nj * 1e-9
            + self.params.idle_power_uw * 1e-6 * total_ps as f64 / PS_PER_S as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(n: usize) -> BusParams {
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let t: toml::Table =
            "throughput = \"64MB/s\"\nslot = \"8us\"\nlatency = \"500ns\"\nrx_fifo = 2".parse().unwrap();
        BusParams::parse(&t, &names).unwrap()
    }

    fn send(dst: u8, len: usize) -> Request {
        Request::Send { dst, data: vec![7; len] }
    }

    #[test]
    fn a_frame_waits_for_its_senders_slot_then_takes_the_wire_time_and_latency() {
        let p = params(2);
        assert_eq!(p.wire_ps(8), 187_500);
        assert_eq!(p.lookahead(), 62_500 + 500_000);
        let mut bus = Bus::new(p, vec![0, 1], vec![true, true], &[], 0);
        // Processor 1 owns slots starting at 8us, 24us, ...; it queues at 9us.
        bus.request(9_000_000, 1, send(0, 8));
        let out = bus.advance(40_000_000);
        let arrival = 24_000_000 + 187_500 + 500_000;
        assert_eq!(out[0], (arrival, 1, Output::TxDone));
        assert!(matches!(&out[1], (a, 0, Output::Frame(f)) if *a == arrival && f.src == 1 && f.data.len() == 8));
        assert_eq!(bus.stats.latency_ps_max, arrival - 9_000_000);
    }

    #[test]
    fn flow_control_holds_the_sender_until_the_receiver_pops() {
        let mut bus = Bus::new(params(2), vec![0, 1], vec![true, true], &[], 0);
        for _ in 0..3 {
            bus.request(0, 0, send(1, 4));
        }
        let out = bus.advance(100_000_000);
        let frames = out.iter().filter(|o| matches!(o.2, Output::Frame(_))).count();
        assert_eq!(frames, 2, "rx_fifo = 2");
        assert!(bus.stats.stalls > 0);
        bus.request(100_000_001, 1, Request::Pop);
        let out = bus.advance(200_000_000);
        // Processor 0's next slot at or after the pop: 112us.
        assert_eq!(
            out.iter().filter(|o| matches!(o.2, Output::Frame(_))).map(|o| o.0).next(),
            Some(112_000_000 + 125_000 + 500_000)
        );
    }

    #[test]
    fn broadcast_reaches_every_other_powered_module_and_unicast_wakes() {
        let mut bus = Bus::new(params(3), vec![0, 1, 2], vec![true, true, false], &[], 0);
        bus.request(0, 0, send(BROADCAST, 1));
        let out = bus.advance(1_000);
        let to: Vec<usize> = out.iter().filter(|o| matches!(o.2, Output::Frame(_))).map(|o| o.1).collect();
        assert_eq!(to, vec![1]);
        bus.request(2_000_000, 0, send(2, 1));
        let out = bus.advance(30_000_000);
        assert!(out.iter().any(|o| o.1 == 2 && o.2 == Output::PowerOn));
        assert!(out.iter().any(|o| o.1 == 2 && matches!(o.2, Output::Frame(_))));
    }

    #[test]
    fn a_unicast_held_by_a_powered_off_modules_full_fifo_wakes_it() {
        let mut bus = Bus::new(params(2), vec![0, 1], vec![true, true], &[], 0);
        for _ in 0..3 {
            bus.request(0, 0, send(1, 4));
        }
        let out = bus.advance(50_000_000);
        assert_eq!(out.iter().filter(|o| matches!(o.2, Output::Frame(_))).count(), 2);
        assert!(!out.iter().any(|o| o.2 == Output::PowerOn));
        // Module 1 powers itself off with its FIFO full; the third frame still waits.
        bus.note_power(50_000_000, 1, false);
        let out = bus.advance(100_000_000);
        let wake: Vec<u64> = out.iter().filter(|o| o.1 == 1 && o.2 == Output::PowerOn).map(|o| o.0).collect();
        assert_eq!(wake.len(), 1, "{out:?}");
        assert!(wake[0] > 50_000_000);
        // Once it runs and pops, the frame goes.
        bus.request(wake[0] + 1, 1, Request::Pop);
        let out = bus.advance(200_000_000);
        assert_eq!(out.iter().filter(|o| matches!(o.2, Output::Frame(_))).count(), 1);
        assert!(!out.iter().any(|o| o.2 == Output::PowerOn));
    }

    #[test]
    fn impossible_parameters_are_refused_with_the_key() {
        let t: toml::Table = "slot = \"1us\"\nmax_frame = 256".parse().unwrap();
        let e = BusParams::parse(&t, &["a"]).unwrap_err();
        assert!(e.starts_with("bus.slot: "), "{e}");
        let t: toml::Table = "slot_order = [\"a\", \"z\"]".parse().unwrap();
        assert_eq!(BusParams::parse(&t, &["a"]).unwrap_err(), "bus.slot_order: no processor is named 'z'");
        let t: toml::Table = "throughput = \"0MB/s\"".parse().unwrap();
        assert!(BusParams::parse(&t, &["a"]).unwrap_err().starts_with("bus.throughput: "));
        let t: toml::Table = "tx_fifo = 0".parse().unwrap();
        assert!(BusParams::parse(&t, &["a"]).unwrap_err().starts_with("bus.tx_fifo: "));
    }
}
