//! Turning the integer counters into the energy breakdown of the stats JSON. Every bucket's
//! energy is an integer number of femtojoules (rates.rs); totals are sums of buckets, so
//! `total == sum(by_state) == sum(by_category) == sum(by_task)` exactly.

use super::{Class, Counter, EnergyState, TaskAcc, STATES};
use crate::cpu::op::Kind;
use crate::machine::Machine;
use std::collections::BTreeMap;

/// Category and task name under which peripheral energy (UART, timers, ADC) is reported.
pub const PERIPHERALS: &str = "peripherals";
/// Category of the energy spent asleep, and of wake-ups.
pub const SLEEP_CATEGORY: &str = "idle";
pub const WAKEUP_CATEGORY: &str = "wakeup";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuncTotal {
    pub cycles: u64,
    pub instructions: u64,
    pub fj: u128,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub total_fj: u128,
    /// STATES plus "peripherals".
    pub by_state: BTreeMap<String, u128>,
    pub by_category: BTreeMap<String, u128>,
    pub by_task: BTreeMap<String, u128>,
    pub cycles_by_state: BTreeMap<String, u64>,
    /// Per instruction class: (cycles, instructions, fJ).
    pub by_class: BTreeMap<String, (u64, u64, u128)>,
    /// Per function index.
    pub funcs: Vec<FuncTotal>,
}

fn add<K: Ord>(m: &mut BTreeMap<K, u128>, k: K, v: u128) {
    let e = m.entry(k).or_insert(0);
    *e = e.saturating_add(v);
}

/// Adds one bucket (function `f`, class `cls`, counter `c`) of task `task` to `b`.
struct Acc<'a> {
    e: &'a EnergyState,
    b: Breakdown,
    calls: Vec<u64>,
}

impl Acc<'_> {
    fn bucket(&mut self, f: usize, cls: usize, c: Counter) -> u128 {
        let r = &self.e.rates;
        let fj = r.fj(c[0], r.class[cls]).saturating_add((c[1] as u128).saturating_mul(r.overhead_fj));
        let b = &mut self.b;
        add(&mut b.by_category, self.e.categories[self.e.funcs[f].category].clone(), fj);
        let ft = &mut b.funcs[f];
        ft.cycles += c[0];
        ft.instructions += c[1];
        ft.fj = ft.fj.saturating_add(fj);
        let cl = b.by_class.entry(Class::NAMES[cls].into()).or_default();
        cl.0 += c[0];
        cl.1 += c[1];
        cl.2 = cl.2.saturating_add(fj);
        *b.cycles_by_state.entry("active".into()).or_insert(0) += c[0];
        add(&mut b.by_state, "active".into(), fj);
        fj
    }
}

/// The full breakdown at the current cycle. None without energy accounting.
pub fn breakdown(m: &Machine) -> Option<Breakdown> {
    Some(breakdown_with_calls(m)?.0)
}

/// The breakdown and the calls per function index.
pub fn breakdown_with_calls(m: &Machine) -> Option<(Breakdown, Vec<u64>)> {
    let e = m.energy.as_deref()?;
    let r = &e.rates;
    let mut a = Acc {
        e,
        b: Breakdown { funcs: vec![FuncTotal::default(); e.funcs.len()], ..Default::default() },
        calls: vec![0; e.funcs.len()],
    };
    for s in STATES {
        a.b.by_state.insert(s.into(), 0);
        a.b.cycles_by_state.insert(s.into(), 0);
    }
    let mut tasks: Vec<u16> = e.tasks.keys().copied().collect();
    if !tasks.contains(&e.cur) {
        tasks.push(e.cur);
        tasks.sort_unstable();
    }
    let empty = TaskAcc::default();
    for t in tasks {
        let acc = e.tasks.get(&t).unwrap_or(&empty);
        let (exec, extra): (&[u64], &[u64]) =
            if t == e.cur { (&m.meter.exec, &m.meter.extra) } else { (&acc.exec, &acc.extra) };
        let mut task_fj = 0u128;
        for (i, (&n, &x)) in exec.iter().zip(extra).enumerate() {
            if n == 0 && x == 0 {
                continue;
            }
            let addr = m.flash_base.wrapping_add(2 * i as u32);
            let op = m.executed_op_at(addr).unwrap_or(crate::cpu::op::Op::UNDECODED);
            let cycles = n.wrapping_mul(m.static_cycles(op)).wrapping_add(x);
            let f = e.func_at(addr);
            task_fj = task_fj.saturating_add(a.bucket(f, super::class_of(op.kind()) as usize, [cycles, n]));
            if op.kind() == Kind::Bl {
                let tf = e.func_at(op.imm());
                if tf != 0 && e.funcs[tf].addr == op.imm() {
                    a.calls[tf] += n;
                }
            }
        }
        for (cls, c) in acc.other.iter().enumerate() {
            if c[0] != 0 || c[1] != 0 {
                task_fj = task_fj.saturating_add(a.bucket(0, cls, *c));
            }
        }
        for (pc, c) in &acc.core {
            task_fj = task_fj.saturating_add(a.bucket(e.func_at(*pc), Class::Exception as usize, *c));
        }
        let b = &mut a.b;
        for s in 0..2 {
            let cur = if s == 0 { r.sleep } else { r.deep_sleep };
            let rtc = if s == 1 { r.fj(acc.rtc, r.rtc) } else { 0 };
            let fj = r.fj(acc.sleep[s], cur).saturating_add(rtc);
            task_fj = task_fj.saturating_add(fj);
            add(&mut b.by_state, STATES[1 + s].into(), fj);
            *b.cycles_by_state.entry(STATES[1 + s].into()).or_insert(0) += acc.sleep[s];
            add(&mut b.by_category, SLEEP_CATEGORY.into(), fj);
            let wfj = r.fj(acc.wakeup[s], r.wakeup_current[s]);
            task_fj = task_fj.saturating_add(wfj);
            add(&mut b.by_state, "wakeup".into(), wfj);
            *b.cycles_by_state.entry("wakeup".into()).or_insert(0) += acc.wakeup[s];
            add(&mut b.by_category, WAKEUP_CATEGORY.into(), wfj);
        }
        add(&mut b.by_task, e.task_label(t), task_fj);
        b.total_fj = b.total_fj.saturating_add(task_fj);
    }
    for (target, n) in &e.dyn_calls {
        let tf = e.func_at(*target);
        if tf != 0 && e.funcs[tf].addr == *target {
            a.calls[tf] += n;
        }
    }
    let mut b = a.b;
    let p = peripheral_fj(m, e);
    if p > 0 {
        add(&mut b.by_state, PERIPHERALS.into(), p);
        add(&mut b.by_category, PERIPHERALS.into(), p);
        add(&mut b.by_task, PERIPHERALS.into(), p);
        b.total_fj = b.total_fj.saturating_add(p);
    }
    Some((b, a.calls))
}

/// UART: each byte keeps the transmitter busy for 10 bit times at the baud rate the firmware
/// programmed (BAUDDIV cycles per bit), or at the profile's baud rate when BAUDDIV was left
/// unprogrammed. Timers: the time each CMSDK timer was enabled, except in deep sleep. ADC:
/// a fixed energy per conversion (on read or periodic), each counted by the Cairn ADC.
fn peripheral_fj(m: &Machine, e: &EnergyState) -> u128 {
    let r = &e.rates;
    let mut fj = 0;
    if let Some((cur, baud)) = r.uart {
        let at_profile_baud = e.uart_bytes as u128 * 10 * r.clock_hz as u128 / baud as u128;
        let cycles = (at_profile_baud + e.uart_busy_cycles as u128).min(u64::MAX as u128) as u64;
        fj = r.fj(cycles, cur);
    }
    if let Some(cur) = r.timer {
        let mut cycles = e.timer_cycles;
        for s in e.timer_since.iter().flatten() {
            cycles += m.cycles - s;
        }
        let cycles = cycles.saturating_sub(e.timer_paused);
        fj = fj.saturating_add(r.fj(cycles, cur));
    }
    if let Some(per) = r.adc_fj_per_conversion {
        let done = m.io.adc_conversions().saturating_sub(e.adc_conversions_before);
        fj = fj.saturating_add(per.saturating_mul(done as u128));
    }
    fj
}

fn j(fj: u128) -> f64 {
    fj as f64 * 1e-15
}

fn fj_u64(fj: u128) -> u64 {
    fj.min(u64::MAX as u128) as u64
}

/// Keys added to the stats JSON when energy accounting is on.
pub fn stats_entries(m: &Machine, out: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::json;
    let (Some((b, calls)), Some(e)) = (breakdown_with_calls(m), m.energy.as_deref()) else { return };
    let joules = |x: &BTreeMap<String, u128>| -> serde_json::Map<String, serde_json::Value> {
        x.iter().map(|(k, v)| (k.clone(), json!(j(*v)))).collect()
    };
    let fjs = |x: &BTreeMap<String, u128>| -> serde_json::Map<String, serde_json::Value> {
        x.iter().map(|(k, v)| (k.clone(), json!(fj_u64(*v)))).collect()
    };
    out.insert(
        "energy_joules".into(),
        json!({
            "total": j(b.total_fj),
            "by_state": joules(&b.by_state),
            "by_category": joules(&b.by_category),
            "by_task": joules(&b.by_task),
        }),
    );
    out.insert(
        "energy_fj".into(),
        json!({
            "total": fj_u64(b.total_fj),
            "by_state": fjs(&b.by_state),
            "by_category": fjs(&b.by_category),
            "by_task": fjs(&b.by_task),
        }),
    );
    let classes: serde_json::Map<String, serde_json::Value> = b
        .by_class
        .iter()
        .map(|(k, (c, n, fj))| (k.clone(), json!({"cycles": c, "instructions": n, "energy_joules": j(*fj)})))
        .collect();
    out.insert(
        "energy_model".into(),
        json!({
            "profile": e.profile,
            "voltage_v": e.rates.voltage_mv as f64 / 1000.0,
            "clock_hz": e.rates.clock_hz,
            "voltage_range": e.rates.range_id,
            "cycles_by_state": b.cycles_by_state,
            "wakeups": {
                "sleep": e.tasks.values().map(|t| t.wakeups[0]).sum::<u64>(),
                "deep_sleep": e.tasks.values().map(|t| t.wakeups[1]).sum::<u64>(),
            },
            "by_class": classes,
            "average_power_w": if m.cycles > e.start_cycle {
                j(b.total_fj) * e.rates.clock_hz as f64 / (m.cycles - e.start_cycle) as f64
            } else { 0.0 },
        }),
    );
    let mut rows: Vec<(usize, &super::report::FuncTotal)> =
        b.funcs.iter().enumerate().filter(|(i, f)| f.cycles > 0 || calls[*i] > 0).collect();
    rows.sort_by(|a, b2| b2.1.fj.cmp(&a.1.fj).then(e.funcs[a.0].name.cmp(&e.funcs[b2.0].name)));
    let profile: Vec<serde_json::Value> = rows
        .iter()
        .map(|(i, f)| {
            json!({
                "symbol": e.funcs[*i].name,
                "category": e.categories[e.funcs[*i].category],
                "cycles": f.cycles,
                "instructions": f.instructions,
                "energy_joules": j(f.fj),
                "calls": calls[*i],
            })
        })
        .collect();
    out.insert("profile".into(), serde_json::Value::Array(profile));
}
