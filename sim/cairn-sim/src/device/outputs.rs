//! A device's `--trace` and `--vcd`, written once the run has ended, in the device's one
//! time.
//!
//! The trace has a process per processor holding exactly what its single-processor trace
//! would (each machine's `TraceLog::device_part`, whose time stamps are already global: a
//! processor's cycle counter runs from the start of the device, through its time off),
//! then the bus: each frame a slice on its sender's "bus tx" track from its start to its
//! arrival, a flow to every receiver's "bus rx" track, where a slice lasts until the frame
//! leaves the RX FIFO, and the injected faults as instants. The parts are joined in file
//! order, never in the order the scheduler happened to run them, so the file does not
//! depend on `--quantum`.
//!
//! The waveform has a scope per processor (power state, exception lines, and in sub-scopes
//! its marker pins, ports, ADC channels and stimuli) and one for the bus, in picoseconds.

use super::bus::FrameRecord;
use super::cosim::{Device, State};
use crate::observe::io_waves::io_waves;
use crate::observe::vcd::{clean, exception_name, ident};
use crate::time::cycle_to_ps;
use crate::trace::us_of_ps;
use std::collections::HashMap;
use std::io::Write;

const TX_TID: u64 = 5;
const RX_TID: u64 = 6;
/// Further bus lanes, above every task track (16 + a 16-bit key).
const MORE_LANES: u64 = 70_000;

/// Slices on one track must nest, and a frame's can overlap the one before (a delayed
/// frame; several frames in an RX FIFO): each goes to the first lane free at its start.
#[derive(Default)]
struct Lanes {
    ends: Vec<u64>,
}

impl Lanes {
    /// The lane for a slice from `from` to `to` (given in order of `from`), and whether it
    /// is new.
    fn take(&mut self, from: u64, to: u64) -> (usize, bool) {
        match self.ends.iter().position(|&e| e <= from) {
            Some(k) => {
                self.ends[k] = to;
                (k, false)
            }
            None => {
                self.ends.push(to);
                (self.ends.len() - 1, true)
            }
        }
    }
}

fn lane_tid(rx: bool, k: usize) -> u64 {
    match (rx, k) {
        (false, 0) => TX_TID,
        (true, 0) => RX_TID,
        _ => MORE_LANES + 2 * k as u64 + rx as u64,
    }
}

fn lane_name(rx: bool, k: usize) -> String {
    let base = if rx { "bus rx" } else { "bus tx" };
    if k == 0 {
        base.into()
    } else {
        format!("{base} {}", k + 1)
    }
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn ts(ps: u64) -> String {
    us_of_ps(ps as u128)
}

fn frame_name(r: &FrameRecord, names: &[&str]) -> String {
    let dst = r.dst.map_or("all", |i| names[i]);
    match r.power {
        Some(on) => format!("power {} → {dst}", if on { "on" } else { "off" }),
        None => format!("frame #{} → {dst} ({} B)", r.id, r.bytes),
    }
}

/// What a frame rule did to a frame, as the stats name it.
pub fn frame_fault_action(r: &FrameRecord) -> &'static str {
    if r.dropped {
        "drop"
    } else if r.corrupt {
        "corrupt"
    } else {
        "delay"
    }
}

/// Write the device trace: `parts` are the processors' `TraceLog::device_part` outputs, in
/// file order.
pub fn write_trace(d: &Device, parts: &[Vec<u8>], w: &mut impl Write) -> std::io::Result<()> {
    let names: Vec<&str> = d.procs.iter().map(|p| p.name.as_str()).collect();
    let n = d.procs.len() as u64;
    w.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        w.write_all(part)?;
    }
    let mut out = String::new();
    let lane_of = |out: &mut String, lanes: &mut [Lanes], p: usize, rx: bool, from: u64, to: u64| -> u64 {
        let (k, new) = lanes[p].take(from, to);
        let tid = lane_tid(rx, k);
        if new {
            out.push_str(&format!(
                ",\n{{\"ph\":\"M\",\"pid\":{},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":\"{}\"}}}}",
                p + 1,
                lane_name(rx, k)
            ));
        }
        tid
    };
    let mut tx_lanes: Vec<Lanes> = (0..n).map(|_| Lanes::default()).collect();
    let mut rx_lanes: Vec<Lanes> = (0..n).map(|_| Lanes::default()).collect();
    // The bus log is in order of start.
    for r in &d.bus.log {
        let pid = r.src + 1;
        let tid = lane_of(&mut out, &mut tx_lanes, r.src, false, r.start_ps, r.arrival_ps);
        out.push_str(&format!(
            ",\n{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{}}}",
            ts(r.start_ps),
            ts(r.arrival_ps - r.start_ps),
            json(&frame_name(r, &names))
        ));
        if let Some(rule) = r.fault_rule {
            let what = format!("{} of frame #{} (fault rule {rule})", frame_fault_action(r), r.id);
            out.push_str(&format!(
                ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"name\":\"injected fault\",\"args\":{{\"what\":{}}}}}",
                ts(r.start_ps),
                json(&what)
            ));
        }
        for &to in &r.receivers {
            out.push_str(&format!(
                ",\n{{\"ph\":\"s\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"id\":{},\"cat\":\"bus\",\"name\":\"frame\"}}",
                ts(r.start_ps),
                r.id * n + to as u64
            ));
        }
    }
    // Receivers: a slice from the arrival until the frame is popped (or the end), and the
    // flow's end in it.
    let popped: HashMap<(usize, u64), u64> = d.bus.pops.iter().map(|&(t, p, id)| ((p, id), t)).collect();
    let mut received: Vec<(u64, u64, usize)> =
        d.bus.log.iter().flat_map(|r| r.receivers.iter().map(move |&p| (r.arrival_ps, r.id, p))).collect();
    received.sort_unstable();
    for (arrival, id, p) in received {
        let r = &d.bus.log[id as usize];
        let until = popped.get(&(p, id)).copied().unwrap_or(d.now).max(arrival);
        let tid = lane_of(&mut out, &mut rx_lanes, p, true, arrival, until);
        let name = format!("frame #{id} from {} ({} B)", names[r.src], r.bytes);
        out.push_str(&format!(
            ",\n{{\"ph\":\"X\",\"pid\":{},\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{}}},\n\
             {{\"ph\":\"f\",\"bp\":\"e\",\"pid\":{},\"tid\":{tid},\"ts\":{},\"id\":{},\"cat\":\"bus\",\"name\":\"frame\"}}",
            p + 1,
            ts(arrival),
            ts(until - arrival),
            json(&name),
            p + 1,
            ts(arrival),
            id * n + p as u64
        ));
    }
    for f in &d.faults {
        let what = format!("{} (fault rule {})", f.action, f.rule);
        out.push_str(&format!(
            ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{},\"tid\":1,\"ts\":{},\"name\":\"injected fault\",\"args\":{{\"what\":{}}}}}",
            f.processor + 1,
            ts(f.at_ps),
            json(&what)
        ));
    }
    out.push_str("\n]}\n");
    w.write_all(out.as_bytes())
}

/// Exceptions 0..48 can be pending or active (as in the single-processor waveform).
const EXCEPTIONS: u32 = 48;

struct Signal {
    scope: usize,
    /// A sub-scope of the processor's (`gpio`, `ports` …), or "" for its own signals.
    sub: &'static str,
    name: String,
    width: u32,
}

/// A change: time (ps), rank among changes at that time (the last one wins), signal,
/// value (None: unknown, `x`).
type Change = (u64, u8, usize, Option<u64>);

fn bits_for(max: u64) -> u32 {
    (64 - max.leading_zeros()).max(1)
}

/// Write the device waveform. Each processor's machine must have recorded its timeline
/// (`Machine::record_timeline`) for the whole run.
pub fn write_vcd(d: &Device, w: &mut impl Write) -> std::io::Result<()> {
    let mut scopes: Vec<String> = Vec::new();
    let mut signals: Vec<Signal> = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    let add_in = |signals: &mut Vec<Signal>, scope: usize, sub: &'static str, name: String, width: u32| {
        signals.push(Signal { scope, sub, name, width });
        signals.len() - 1
    };
    let add =
        |signals: &mut Vec<Signal>, scope: usize, name: String, width: u32| add_in(signals, scope, "", name, width);
    for p in &d.procs {
        let scope = scopes.len();
        scopes.push(clean(&p.name));
        let clock = p.m.config.clock_hz;
        // 0 run, 1 sleep, 2 deep sleep (as alone), 3 off.
        let state = add(&mut signals, scope, "state".into(), 2);
        if let Some(tl) = p.m.io.timeline.as_ref() {
            for &(c, s) in &tl.power {
                changes.push((cycle_to_ps(c, clock), 0, state, Some(s as u64)));
            }
            let mask = (1u64 << EXCEPTIONS) - 1;
            let seen = tl.exceptions.iter().fold(0, |a, &(_, pe, ac)| a | ((pe | ac) & mask));
            for n in (0..EXCEPTIONS).filter(|n| seen >> n & 1 != 0) {
                let pending = add(&mut signals, scope, format!("{}_pending", exception_name(n)), 1);
                let active = add(&mut signals, scope, format!("{}_active", exception_name(n)), 1);
                for &(c, pe, ac) in &tl.exceptions {
                    let t = cycle_to_ps(c, clock);
                    changes.push((t, 0, pending, Some(pe >> n & 1)));
                    changes.push((t, 0, active, Some(ac >> n & 1)));
                }
            }
        }
        // The I/O is there only when its event log was kept (the CLI keeps it for --vcd).
        for wave in io_waves(&p.m.io.scenario, clock, &p.m.io.events) {
            let sig = add_in(&mut signals, scope, wave.scope, wave.name, wave.width);
            changes.extend(wave.changes.iter().map(|&(t, v)| (t, 0, sig, Some(v))));
        }
        let last = p.off_periods.len();
        for (k, &(from, to)) in p.off_periods.iter().enumerate() {
            changes.push((cycle_to_ps(from, clock), 1, state, Some(3)));
            // Still off at the end: no power-on to show.
            if !(k + 1 == last && p.state == State::Off) {
                changes.push((cycle_to_ps(to, clock), 1, state, Some(0)));
            }
        }
    }
    let bus = scopes.len();
    scopes.push("bus".into());
    let busy = add(&mut signals, bus, "busy".into(), 1);
    let src = add(&mut signals, bus, "src".into(), 8);
    let dst = add(&mut signals, bus, "dst".into(), 8);
    let len = add(&mut signals, bus, "len".into(), bits_for(d.bus.params.max_frame as u64));
    let rx: Vec<usize> = d
        .procs
        .iter()
        .map(|p| add(&mut signals, bus, format!("rx_{}", clean(&p.name)), bits_for(d.bus.params.rx_fifo as u64)))
        .collect();
    let mut fifo: Vec<Vec<(u64, i64)>> = vec![Vec::new(); d.procs.len()];
    for r in &d.bus.log {
        let end = r.start_ps + d.bus.params.wire_ps(r.bytes);
        let to = r.dst.map_or(crate::periph::bus_ctrl::BROADCAST, |i| d.bus.address(i));
        // A frame that starts when the one before leaves the wire wins that instant.
        for (sig, v) in [(busy, 1), (src, d.bus.address(r.src) as u64), (dst, to as u64), (len, r.bytes as u64)] {
            changes.push((r.start_ps, 1, sig, Some(v)));
        }
        changes.push((end, 0, busy, Some(0)));
        for sig in [src, dst, len] {
            changes.push((end, 0, sig, None));
        }
        for &p in &r.receivers {
            fifo[p].push((r.arrival_ps, 1));
        }
    }
    for &(t, p, _) in &d.bus.pops {
        fifo[p].push((t, -1));
    }
    for (p, mut deltas) in fifo.into_iter().enumerate() {
        deltas.sort_unstable();
        let mut n = 0i64;
        for (t, delta) in deltas {
            n += delta;
            changes.push((t, 0, rx[p], Some(n.max(0) as u64)));
        }
    }
    changes.sort_by_key(|c| (c.0, c.1));

    let idents: Vec<String> = (0..signals.len()).map(ident).collect();
    let top = match clean(&d.name) {
        s if s.is_empty() => "device".to_string(),
        s => s,
    };
    writeln!(w, "$date cairn-sim $end")?;
    writeln!(w, "$version cairn-sim {} $end", env!("CARGO_PKG_VERSION"))?;
    writeln!(w, "$comment device {top}: {} processors; time in ps from the start of the device $end", d.procs.len())?;
    writeln!(w, "$timescale 1ps $end")?;
    writeln!(w, "$scope module {top} $end")?;
    for (k, scope) in scopes.iter().enumerate() {
        writeln!(w, "$scope module {scope} $end")?;
        for sub in ["", "gpio", "ports", "adc", "stimulus"] {
            let members: Vec<usize> =
                (0..signals.len()).filter(|&i| signals[i].scope == k && signals[i].sub == sub).collect();
            if members.is_empty() {
                continue;
            }
            if !sub.is_empty() {
                writeln!(w, "$scope module {sub} $end")?;
            }
            for i in members {
                let s = &signals[i];
                writeln!(w, "$var wire {} {} {} $end", s.width, idents[i], s.name)?;
            }
            if !sub.is_empty() {
                writeln!(w, "$upscope $end")?;
            }
        }
        writeln!(w, "$upscope $end")?;
    }
    writeln!(w, "$upscope $end")?;
    writeln!(w, "$enddefinitions $end")?;
    let value = |w: &mut dyn Write, sig: usize, v: Option<u64>| -> std::io::Result<()> {
        let s = &signals[sig];
        match (s.width, v) {
            (1, Some(v)) => writeln!(w, "{}{}", v & 1, idents[sig]),
            (1, None) => writeln!(w, "x{}", idents[sig]),
            (_, Some(v)) => writeln!(w, "b{v:b} {}", idents[sig]),
            (width, None) => writeln!(w, "b{} {}", "x".repeat(width as usize), idents[sig]),
        }
    };
    let mut current: Vec<Option<u64>> = vec![Some(0); signals.len()];
    for sig in [src, dst, len] {
        current[sig] = None;
    }
    // Changes at 0 are initial values.
    let at_zero = changes.partition_point(|c| c.0 == 0);
    for &(_, _, sig, v) in &changes[..at_zero] {
        current[sig] = v;
    }
    writeln!(w, "#0")?;
    writeln!(w, "$dumpvars")?;
    for (sig, &v) in current.iter().enumerate() {
        value(w, sig, v)?;
    }
    writeln!(w, "$end")?;
    let mut i = at_zero;
    while i < changes.len() {
        let t = changes[i].0;
        let j = i + changes[i..].partition_point(|c| c.0 == t);
        // The last value of each signal at this instant, in signal order.
        let mut last: Vec<(usize, Option<u64>)> = Vec::new();
        for &(_, _, sig, v) in &changes[i..j] {
            match last.iter_mut().find(|e| e.0 == sig) {
                Some(e) => e.1 = v,
                None => last.push((sig, v)),
            }
        }
        last.sort_unstable_by_key(|e| e.0);
        let mut stamped = false;
        for (sig, v) in last {
            if current[sig] == v {
                continue;
            }
            if !stamped {
                stamped = true;
                writeln!(w, "#{t}")?;
            }
            current[sig] = v;
            value(w, sig, v)?;
        }
        i = j;
    }
    Ok(())
}
