//! `--vcd`: a Value Change Dump (IEEE 1364) of the marker GPIO pins, the I/O ports (as
//! 32-bit vectors), the ADC conversions (bits-wide codes), each stimulus's firing count, the exceptions' pending/active lines and
//! the power state (2-bit: 0 run, 1 sleep, 2 deep sleep). Timescale 1 ps; a change at
//! cycle n is at n * 10^12 / clock ps (exact when the clock period is a whole number of
//! ps, as at 25 MHz = 40,000 ps; otherwise rounded down).
//!
//! The header lists only the signals the run used, which is known only at its end, so the
//! changes go first, as they happen, into a body of compact records ([`VcdBody`], a
//! temporary file for the CLI) that names signals by slot; [`VcdBody::render`] then writes
//! the header and the body with the final identifiers. Memory does not grow with the run.

use super::timeline::{PowerState, Timeline};
use crate::measure::signals::sorted;
use crate::periph::adc::CHANNELS;
use crate::periph::io_event::{IoEvent, IoKind};
use crate::scenario_io::{IoScenario, PortDir};
use crate::time::cycle_to_ps;
use std::io::{Read, Write};

struct Signal {
    scope: &'static str,
    name: String,
    width: u32,
}

pub fn ident(i: usize) -> String {
    // Printable ASCII '!'..='~' as base-94 digits.
    let mut n = i;
    let mut s = String::new();
    loop {
        s.push((b'!' + (n % 94) as u8) as char);
        n /= 94;
        if n == 0 {
            break;
        }
        n -= 1;
    }
    s
}

pub fn exception_name(n: u32) -> String {
    match n {
        2 => "nmi".into(),
        3 => "hardfault".into(),
        11 => "svcall".into(),
        14 => "pendsv".into(),
        15 => "systick".into(),
        n if n >= 16 => format!("irq{}", n - 16),
        n => format!("exc{n}"),
    }
}

/// VCD identifiers allow no whitespace; keep names to a safe character set.
pub fn clean(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// Exceptions 0..48 can be pending or active.
const EXCEPTIONS: u32 = 48;
/// Ports and ADC channels, named in order of first appearance.
const DYNAMIC: usize = 8 + 8 + CHANNELS;
const TIME: u8 = 0;
const VALUE: u8 = 1;

#[derive(Clone, Copy)]
enum Dynamic {
    Out(u8),
    In(u8),
    Adc(u8),
}

/// The changes of a run, fed in time order. Signals are numbered by slot, in the order of
/// the final header: pins 0..32, stimuli, ports and ADC channels (by first appearance),
/// the power state, then pending/active pairs of exceptions 0..48.
pub struct VcdBody<W: Write> {
    out: W,
    clock_hz: u64,
    nstim: usize,
    level: u32,
    touched: u32,
    dynamic: Vec<Dynamic>,
    out_slot: [u8; 8],
    in_slot: [u8; 8],
    adc_slot: [u8; CHANNELS],
    seen: u64,
    exc: (u64, u64),
    /// The instant being collected: its cycle and the last value of each signal changed.
    cycle: u64,
    group: Vec<(u32, u64)>,
    /// Value of each slot as last written.
    current: Vec<u64>,
    written_ps: u64,
}

impl<W: Write> VcdBody<W> {
    pub fn new(out: W, sc: &IoScenario, clock_hz: u64) -> VcdBody<W> {
        let nstim = sc.stimuli.len();
        VcdBody {
            out,
            clock_hz,
            nstim,
            level: 0,
            touched: 0,
            dynamic: Vec::new(),
            out_slot: [u8::MAX; 8],
            in_slot: [u8::MAX; 8],
            adc_slot: [u8::MAX; CHANNELS],
            seen: 0,
            exc: (0, 0),
            cycle: 0,
            group: Vec::new(),
            current: vec![0; 32 + nstim + DYNAMIC + 1 + 2 * EXCEPTIONS as usize],
            written_ps: 0,
        }
    }

    fn dynamic_base(&self) -> u32 {
        (32 + self.nstim) as u32
    }

    fn power_slot(&self) -> u32 {
        self.dynamic_base() + DYNAMIC as u32
    }

    /// Signals the body holds (bounded: it does not grow with the run), for tests.
    pub fn slots(&self) -> usize {
        self.current.len() + self.group.capacity()
    }

    fn at(&mut self, cycle: u64) -> std::io::Result<()> {
        if cycle != self.cycle {
            self.flush()?;
            self.cycle = cycle;
        }
        Ok(())
    }

    fn set(&mut self, slot: u32, v: u64) {
        match self.group.iter_mut().find(|(s, _)| *s == slot) {
            Some(e) => e.1 = v,
            None => self.group.push((slot, v)),
        }
    }

    /// Write the collected instant: the signals whose final value differs, in slot order.
    fn flush(&mut self) -> std::io::Result<()> {
        if self.group.is_empty() {
            return Ok(());
        }
        self.group.sort_unstable_by_key(|&(s, _)| s);
        let mut time_written = false;
        for i in 0..self.group.len() {
            let (slot, v) = self.group[i];
            if self.current[slot as usize] == v {
                continue;
            }
            if !time_written {
                time_written = true;
                let t = cycle_to_ps(self.cycle, self.clock_hz);
                if t != self.written_ps {
                    self.written_ps = t;
                    self.out.write_all(&[TIME])?;
                    self.out.write_all(&t.to_le_bytes())?;
                }
            }
            self.current[slot as usize] = v;
            let mut rec = [0u8; 13];
            rec[0] = VALUE;
            rec[1..5].copy_from_slice(&slot.to_le_bytes());
            rec[5..].copy_from_slice(&v.to_le_bytes());
            self.out.write_all(&rec)?;
        }
        self.group.clear();
        Ok(())
    }

    fn dynamic_slot(&mut self, d: Dynamic) -> u32 {
        let table = match d {
            Dynamic::Out(i) => &mut self.out_slot[i as usize],
            Dynamic::In(i) => &mut self.in_slot[i as usize],
            Dynamic::Adc(i) => &mut self.adc_slot[i as usize],
        };
        if *table == u8::MAX {
            *table = self.dynamic.len() as u8;
            self.dynamic.push(d);
        }
        let rank = *table as u32;
        self.dynamic_base() + rank
    }

    pub fn io_event(&mut self, e: &IoEvent) -> std::io::Result<()> {
        self.at(e.cycle)?;
        let i = e.index as usize;
        match e.kind {
            IoKind::Gpio => {
                let changed = self.level ^ e.value;
                self.touched |= changed;
                self.level = e.value;
                let mut bits = changed;
                while bits != 0 {
                    let pin = bits.trailing_zeros();
                    bits &= bits - 1;
                    self.set(pin, (e.value >> pin & 1) as u64);
                }
            }
            IoKind::Output | IoKind::Input if i < 8 => {
                let d = if e.kind == IoKind::Output { Dynamic::Out(e.index) } else { Dynamic::In(e.index) };
                let slot = self.dynamic_slot(d);
                self.set(slot, e.value as u64);
            }
            IoKind::Stimulus if i < self.nstim => self.set(32 + i as u32, e.value as u64),
            IoKind::Adc if i < CHANNELS => {
                let slot = self.dynamic_slot(Dynamic::Adc(e.index));
                self.set(slot, e.value as u64);
            }
            _ => {}
        }
        Ok(())
    }

    pub fn power(&mut self, cycle: u64, state: PowerState) -> std::io::Result<()> {
        self.at(cycle)?;
        self.set(self.power_slot(), state as u64);
        Ok(())
    }

    pub fn exceptions(&mut self, cycle: u64, pending: u64, active: u64) -> std::io::Result<()> {
        self.at(cycle)?;
        let mask = (1u64 << EXCEPTIONS) - 1;
        let (p, a) = (pending & mask, active & mask);
        self.seen |= p | a;
        let base = self.power_slot() + 1;
        for (bits, now, off) in [(p ^ self.exc.0, p, 0), (a ^ self.exc.1, a, 1)] {
            let mut b = bits;
            while b != 0 {
                let n = b.trailing_zeros();
                b &= b - 1;
                self.set(base + 2 * n + off, now >> n & 1);
            }
        }
        self.exc = (p, a);
        Ok(())
    }

    /// Feed one batch of changes, each source in time order and none earlier than what was
    /// fed before; merged by cycle.
    pub fn feed(
        &mut self,
        events: &[IoEvent],
        power: &[(u64, PowerState)],
        exceptions: &[(u64, u64, u64)],
    ) -> std::io::Result<()> {
        let (mut i, mut j, mut k) = (0, 0, 0);
        loop {
            let ce = events.get(i).map_or(u64::MAX, |e| e.cycle);
            let cp = power.get(j).map_or(u64::MAX, |p| p.0);
            let cx = exceptions.get(k).map_or(u64::MAX, |x| x.0);
            if i < events.len() && ce <= cp && ce <= cx {
                self.io_event(&events[i])?;
                i += 1;
            } else if j < power.len() && cp <= cx {
                self.power(cp, power[j].1)?;
                j += 1;
            } else if k < exceptions.len() {
                let (_, p, a) = exceptions[k];
                self.exceptions(cx, p, a)?;
                k += 1;
            } else {
                return Ok(());
            }
        }
    }

    /// End the body: write the last instant and hand back the record stream.
    pub fn finish(mut self) -> std::io::Result<(W, VcdSignals)> {
        self.flush()?;
        let signals = VcdSignals { touched: self.touched, dynamic: self.dynamic, seen: self.seen, nstim: self.nstim };
        Ok((self.out, signals))
    }
}

/// What the header needs to know at the end of the run.
pub struct VcdSignals {
    touched: u32,
    dynamic: Vec<Dynamic>,
    seen: u64,
    nstim: usize,
}

impl VcdSignals {
    /// Write the VCD: header, initial values, then the body's records with final identifiers.
    /// `power` says whether the power state was recorded (`Machine::record_timeline`).
    pub fn render(
        &self,
        sc: &IoScenario,
        clock_hz: u64,
        power: bool,
        body: &mut impl Read,
        w: &mut impl Write,
    ) -> std::io::Result<()> {
        let mut signals: Vec<Signal> = Vec::new();
        let slots = 32 + self.nstim + DYNAMIC + 1 + 2 * EXCEPTIONS as usize;
        let mut index = vec![usize::MAX; slots];
        let mut touched = self.touched;
        for p in &sc.pins {
            touched |= 1 << p.index;
        }
        for pin in 0..32u8 {
            if touched >> pin & 1 != 0 {
                index[pin as usize] = signals.len();
                signals.push(Signal { scope: "gpio", name: clean(&sc.pin_name(pin)), width: 1 });
            }
        }
        for (i, s) in sc.stimuli.iter().enumerate() {
            index[32 + i] = signals.len();
            signals.push(Signal { scope: "stimulus", name: clean(&s.name), width: 32 });
        }
        let dynamic_base = 32 + self.nstim;
        for (rank, d) in self.dynamic.iter().enumerate() {
            index[dynamic_base + rank] = signals.len();
            signals.push(match *d {
                Dynamic::Out(i) => Signal { scope: "ports", name: clean(&sc.port_name(i, PortDir::Out)), width: 32 },
                Dynamic::In(i) => Signal { scope: "ports", name: clean(&sc.port_name(i, PortDir::In)), width: 32 },
                Dynamic::Adc(i) => {
                    Signal { scope: "adc", name: format!("ch{i}"), width: sc.adc.as_ref().map_or(32, |a| a.bits) }
                }
            });
        }
        let power_slot = dynamic_base + DYNAMIC;
        if power {
            index[power_slot] = signals.len();
            signals.push(Signal { scope: "power", name: "state".into(), width: 2 });
            for n in (0..EXCEPTIONS).filter(|n| self.seen >> n & 1 != 0) {
                let slot = power_slot + 1 + 2 * n as usize;
                index[slot] = signals.len();
                index[slot + 1] = signals.len() + 1;
                signals.push(Signal { scope: "irq", name: format!("{}_pending", exception_name(n)), width: 1 });
                signals.push(Signal { scope: "irq", name: format!("{}_active", exception_name(n)), width: 1 });
            }
        }
        let idents: Vec<String> = (0..signals.len()).map(ident).collect();

        writeln!(w, "$date cairn-sim $end")?;
        writeln!(w, "$version cairn-sim {} $end", env!("CARGO_PKG_VERSION"))?;
        writeln!(w, "$comment clock {clock_hz} Hz; time = cycle * 1e12 / clock $end")?;
        writeln!(w, "$timescale 1ps $end")?;
        writeln!(w, "$scope module cairn $end")?;
        for scope in ["gpio", "ports", "adc", "stimulus", "irq", "power"] {
            let members: Vec<usize> = (0..signals.len()).filter(|&i| signals[i].scope == scope).collect();
            if members.is_empty() {
                continue;
            }
            writeln!(w, "$scope module {scope} $end")?;
            for i in members {
                let s = &signals[i];
                writeln!(w, "$var wire {} {} {} $end", s.width, idents[i], s.name)?;
            }
            writeln!(w, "$upscope $end")?;
        }
        writeln!(w, "$upscope $end")?;
        writeln!(w, "$enddefinitions $end")?;
        let value = |w: &mut dyn Write, sig: usize, v: u64| -> std::io::Result<()> {
            if signals[sig].width == 1 {
                writeln!(w, "{}{}", v & 1, idents[sig])
            } else {
                writeln!(w, "b{v:b} {}", idents[sig])
            }
        };
        writeln!(w, "#0")?;
        writeln!(w, "$dumpvars")?;
        for sig in 0..signals.len() {
            value(w, sig, 0)?;
        }
        writeln!(w, "$end")?;
        let mut tag = [0u8; 1];
        let mut rec = [0u8; 12];
        loop {
            match body.read_exact(&mut tag) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e),
            }
            if tag[0] == TIME {
                let mut t = [0u8; 8];
                body.read_exact(&mut t)?;
                writeln!(w, "#{}", u64::from_le_bytes(t))?;
            } else {
                body.read_exact(&mut rec)?;
                let slot = u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]) as usize;
                let v = u64::from_le_bytes([rec[4], rec[5], rec[6], rec[7], rec[8], rec[9], rec[10], rec[11]]);
                match index.get(slot) {
                    Some(&sig) if sig != usize::MAX => value(w, sig, v)?,
                    _ => return Err(std::io::Error::other(format!("VCD body names unknown slot {slot}"))),
                }
            }
        }
    }
}

/// Write the VCD of a retained event log (in log order) and timeline at once.
pub fn write_retained(
    sc: &IoScenario,
    clock: u64,
    events: &[IoEvent],
    timeline: Option<&Timeline>,
    w: &mut impl Write,
) -> std::io::Result<()> {
    let mut body = VcdBody::new(Vec::new(), sc, clock);
    let events = sorted(events);
    match timeline {
        Some(tl) => {
            let mut power = tl.power.clone();
            power.sort_by_key(|p| p.0);
            let mut exceptions = tl.exceptions.clone();
            exceptions.sort_by_key(|x| x.0);
            body.feed(&events, &power, &exceptions)?;
        }
        None => body.feed(&events, &[], &[])?,
    }
    let (records, signals) = body.finish()?;
    signals.render(sc, clock, timeline.is_some(), &mut &records[..], w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_unique() {
        let ids: std::collections::BTreeSet<String> = (0..20_000).map(ident).collect();
        assert_eq!(ids.len(), 20_000);
        assert_eq!(ident(0), "!");
        assert_eq!(ident(94), "!!");
    }
}
