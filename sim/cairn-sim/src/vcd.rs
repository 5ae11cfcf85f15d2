//! `--vcd`: a Value Change Dump (IEEE 1364) of the marker GPIO pins, the I/O ports (as
//! 32-bit vectors), the ADC conversions (bits-wide codes), each stimulus's firing count, the exceptions' pending/active lines and
//! the power state (2-bit: 0 run, 1 sleep, 2 deep sleep). Timescale 1 ps; a change at
//! cycle n is at n * 10^12 / clock ps (exact when the clock period is a whole number of
//! ps, as at 25 MHz = 40,000 ps; otherwise rounded down).

use crate::machine::Machine;
use crate::measure::signals::sorted;
use crate::periph::cairn_io::IoKind;
use crate::scenario_io::PortDir;
use crate::stimuli::cycle_to_ps;
use std::io::Write;

struct Signal {
    scope: &'static str,
    name: String,
    width: u32,
}

fn ident(i: usize) -> String {
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

fn exception_name(n: u32) -> String {
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
fn clean(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

pub fn write_vcd(m: &Machine, w: &mut impl Write) -> std::io::Result<()> {
    let ev = sorted(&m.io.events);
    let sc = &m.io.scenario;
    let mut signals: Vec<Signal> = Vec::new();
    // (cycle, signal, value)
    let mut changes: Vec<(u64, usize, u64)> = Vec::new();

    // GPIO pins: one wire per pin that changed or is named.
    let mut touched = 0u32;
    let mut level = 0u32;
    for e in ev.iter().filter(|e| e.kind == IoKind::Gpio) {
        touched |= level ^ e.value;
        level = e.value;
    }
    for p in &sc.pins {
        touched |= 1 << p.index;
    }
    let mut pin_sig = [usize::MAX; 32];
    for (pin, slot) in pin_sig.iter_mut().enumerate() {
        if touched >> pin & 1 != 0 {
            *slot = signals.len();
            signals.push(Signal { scope: "gpio", name: clean(&sc.pin_name(pin as u8)), width: 1 });
        }
    }
    let mut out_sig = [usize::MAX; 8];
    let mut in_sig = [usize::MAX; 8];
    let mut adc_sig = [usize::MAX; crate::periph::adc::CHANNELS];
    let mut stim_sig: Vec<usize> = Vec::new();
    for (i, s) in sc.stimuli.iter().enumerate() {
        stim_sig.push(signals.len());
        signals.push(Signal { scope: "stimulus", name: clean(&s.name), width: 32 });
        let _ = i;
    }
    for e in &ev {
        let i = e.index as usize;
        match e.kind {
            IoKind::Gpio => {
                for (pin, &sig) in pin_sig.iter().enumerate() {
                    if sig != usize::MAX {
                        changes.push((e.cycle, sig, (e.value >> pin & 1) as u64));
                    }
                }
            }
            IoKind::Output | IoKind::Input => {
                let (table, dir) =
                    if e.kind == IoKind::Output { (&mut out_sig, PortDir::Out) } else { (&mut in_sig, PortDir::In) };
                if table[i] == usize::MAX {
                    table[i] = signals.len();
                    signals.push(Signal { scope: "ports", name: clean(&sc.port_name(e.index, dir)), width: 32 });
                }
                changes.push((e.cycle, table[i], e.value as u64));
            }
            IoKind::Stimulus => {
                if let Some(&sig) = stim_sig.get(i) {
                    changes.push((e.cycle, sig, e.value as u64));
                }
            }
            IoKind::Adc => {
                if let Some(slot) = adc_sig.get_mut(i) {
                    if *slot == usize::MAX {
                        *slot = signals.len();
                        let width = sc.adc.as_ref().map_or(32, |a| a.bits);
                        signals.push(Signal { scope: "adc", name: format!("ch{i}"), width });
                    }
                    changes.push((e.cycle, *slot, e.value as u64));
                }
            }
        }
    }
    if let Some(tl) = &m.io.timeline {
        let power = signals.len();
        signals.push(Signal { scope: "power", name: "state".into(), width: 2 });
        for &(c, s) in &tl.power {
            changes.push((c, power, s as u64));
        }
        let mut seen = 0u64;
        for &(_, p, a) in &tl.exceptions {
            seen |= p | a;
        }
        for n in (0..48u32).filter(|n| seen >> n & 1 != 0) {
            let pend = signals.len();
            signals.push(Signal { scope: "irq", name: format!("{}_pending", exception_name(n)), width: 1 });
            signals.push(Signal { scope: "irq", name: format!("{}_active", exception_name(n)), width: 1 });
            for &(c, p, a) in &tl.exceptions {
                changes.push((c, pend, p >> n & 1));
                changes.push((c, pend + 1, a >> n & 1));
            }
        }
    }
    // Stable: at one cycle the last recorded value of a signal wins.
    changes.sort_by_key(|c| c.0);

    writeln!(w, "$date cairn-sim $end")?;
    writeln!(w, "$version cairn-sim {} $end", env!("CARGO_PKG_VERSION"))?;
    writeln!(w, "$comment clock {} Hz; time = cycle * 1e12 / clock $end", m.config.clock_hz)?;
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
            writeln!(w, "$var wire {} {} {} $end", s.width, ident(i), s.name)?;
        }
        writeln!(w, "$upscope $end")?;
    }
    writeln!(w, "$upscope $end")?;
    writeln!(w, "$enddefinitions $end")?;
    let value = |w: &mut dyn Write, sig: usize, v: u64| -> std::io::Result<()> {
        if signals[sig].width == 1 {
            writeln!(w, "{}{}", v & 1, ident(sig))
        } else {
            writeln!(w, "b{v:b} {}", ident(sig))
        }
    };
    let mut current = vec![0u64; signals.len()];
    writeln!(w, "#0")?;
    writeln!(w, "$dumpvars")?;
    for (sig, _) in signals.iter().enumerate() {
        value(w, sig, 0)?;
    }
    writeln!(w, "$end")?;
    let mut written_ps = 0u64;
    let mut i = 0;
    while i < changes.len() {
        let cycle = changes[i].0;
        let mut j = i;
        while j < changes.len() && changes[j].0 == cycle {
            j += 1;
        }
        // Final value of each signal at this instant, in signal order.
        let mut last: std::collections::BTreeMap<usize, u64> = Default::default();
        for &(_, sig, v) in &changes[i..j] {
            last.insert(sig, v);
        }
        let diff: Vec<(usize, u64)> = last.into_iter().filter(|&(s, v)| current[s] != v).collect();
        if !diff.is_empty() {
            let t = cycle_to_ps(cycle, m.config.clock_hz);
            if t != written_ps {
                writeln!(w, "#{t}")?;
                written_ps = t;
            }
            for (sig, v) in diff {
                current[sig] = v;
                value(w, sig, v)?;
            }
        }
        i = j;
    }
    Ok(())
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
