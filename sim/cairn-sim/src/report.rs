//! A processor's reports: the human-readable lockup report and its `--stats` JSON document
//! (which a device nests per processor).

use crate::machine::{FaultKind, Machine};
use std::fmt::Write as _;

/// Multi-line description of a lockup for stderr.
pub fn lockup_report(m: &Machine, kind: FaultKind, pc: u32, ipsr: u32) -> String {
    let mut s = String::new();
    let _ =
        writeln!(s, "cairn-sim: lockup: {kind} at pc 0x{pc:08x} ({}) in {}", m.symbols.describe(pc), mode_name(ipsr));
    if let Some((first, fpc)) = m.last_fault {
        let _ = writeln!(s, "  first fault: {first} at pc 0x{fpc:08x} ({})", m.symbols.describe(fpc));
    }
    let _ = writeln!(s, "{}", registers(m));
    if ipsr != 0 {
        let sp = m.r[13];
        let names = ["r0", "r1", "r2", "r3", "r12", "lr", "pc", "xpsr"];
        let mut line = format!("  stacked frame at 0x{sp:08x}:");
        for (i, n) in names.iter().enumerate() {
            match m.peek32(sp.wrapping_add(4 * i as u32)) {
                Some(v) => {
                    let _ = write!(line, " {n}=0x{v:08x}");
                }
                None => {
                    let _ = write!(line, " {n}=??");
                }
            }
        }
        if let Some(spc) = m.peek32(sp.wrapping_add(24)) {
            let _ = write!(line, " ({})", m.symbols.describe(spc));
        }
        let _ = writeln!(s, "{line}");
    }
    s.trim_end().to_string()
}

fn mode_name(ipsr: u32) -> String {
    match ipsr {
        0 => "thread mode".into(),
        2 => "NMI".into(),
        3 => "HardFault".into(),
        n => format!("exception {n}"),
    }
}

pub fn registers(m: &Machine) -> String {
    let mut s = String::from(" ");
    for i in 0..13 {
        let _ = write!(s, " r{i}=0x{:08x}", m.r[i]);
        if i == 6 {
            s.push_str("\n ");
        }
    }
    let _ = write!(
        s,
        "\n  sp=0x{:08x} lr=0x{:08x} pc=0x{:08x} xpsr=0x{:08x} msp=0x{:08x} psp=0x{:08x} primask={} control=0x{:x}",
        m.r[13],
        m.r[14],
        m.pc,
        m.xpsr(),
        m.msp(),
        m.psp(),
        m.primask as u32,
        ((m.spsel as u32) << 1) | m.npriv as u32
    );
    s
}

pub fn stats_json(m: &Machine, host_seconds: f64, exit_status: i32) -> serde_json::Value {
    let clock = m.config.clock_hz;
    let seconds = m.cycles as f64 / clock as f64;
    let mips = if host_seconds > 0.0 { m.instructions as f64 / host_seconds / 1e6 } else { 0.0 };
    let (mean_s, stddev_s) = m.idle.mean_stddev_s(clock);
    let idle_percent = if m.cycles > 0 { 100.0 * m.sleep_cycles as f64 / m.cycles as f64 } else { 0.0 };
    let mut v = serde_json::json!({
        "board": m.config.name,
        "clock_hz": clock,
        "instructions": m.instructions,
        "cycles": m.cycles,
        "active_cycles": m.cycles - m.sleep_cycles,
        "sleep_cycles": m.sleep_cycles,
        "simulated_seconds": seconds,
        "host_seconds": host_seconds,
        "mips": mips,
        "exit_status": exit_status,
        "trace_port_words": m.trace_port_words,
        "idle": {
            "percent": idle_percent,
            "periods": m.idle.periods,
            "mean_s": mean_s,
            "stddev_s": stddev_s,
        },
    });
    if let Some(obj) = v.as_object_mut() {
        crate::energy::report::stats_entries(m, obj);
    }
    if let Some(w) = m.rtos.as_deref() {
        let tasks: Vec<serde_json::Value> =
            w.tasks().map(|t| serde_json::json!({"name": t.name, "tcb": format!("0x{:08x}", t.tcb)})).collect();
        v["rtos"] = serde_json::json!({"switches": w.switches, "tasks": tasks});
    }
    if let Some(s) = crate::stack_guard::stack_json(m) {
        v["stack"] = s;
    }
    if crate::io_system::has_io(m) {
        v["io"] = crate::io_system::io_json(m);
    }
    v
}
