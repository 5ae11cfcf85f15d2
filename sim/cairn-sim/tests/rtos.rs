//! `--rtos`: following another RTOS's current-task pointer. A hand-written program switches
//! tasks with stores whose cycles are known, so the energy of each task and the trace's task
//! slices can be written down exactly; the test firmware `rtos_tasks` (a FreeRTOS-style
//! round-robin scheduler) is followed through its DWARF, by the `freertos` built-in and the
//! generic form, and its own switch counts (printed on UART0) must match the trace.

mod common;
mod firmware;
use cairn_sim::energy::profile::Profile;
use cairn_sim::energy::report::{breakdown, Breakdown};
use cairn_sim::rtos::{resolve, Flag, Layout, NameField, NameKind, RtosSpec};
use cairn_sim::trace::TraceLog;
use cairn_sim::{BoardConfig, Machine, Stop};
use common::*;
use serde_json::Value;

/// Every class draws 100 uA/MHz at 1 V and there is no per-instruction overhead: each cycle
/// costs exactly 100 pJ = 100,000 fJ, so a task's femtojoules are its cycles x 100,000.
/// Every cycle at 100 uA/MHz and 1 V: 100 pJ.
fn flat() -> Profile {
    Profile::parse(&flat_profile_toml(1.0, 100.0)).unwrap()
}
const FJ_PER_CYCLE: u128 = 100_000;

/// The watched pointer, and three task control blocks with an inline 8-byte name at +4.
const PTR: u32 = DATA;
const TCB_A: u32 = DATA + 0x40;
const TCB_B: u32 = DATA + 0x80;
const TCB_C: u32 = DATA + 0xc0;
const LAYOUT: Layout =
    Layout { addr: PTR, name: Some(NameField { offset: 4, kind: NameKind::Inline(8) }), running: None };

fn put_name(m: &mut Machine, tcb: u32, name: &str) {
    let mut b = name.as_bytes().to_vec();
    b.resize(8, 0);
    m.load_bytes(tcb + 4, &b).unwrap();
}

fn check_sums(b: &Breakdown) {
    assert_eq!(b.by_task.values().sum::<u128>(), b.total_fj, "by_task sums to the total");
    assert_eq!(b.by_state.values().sum::<u128>(), b.total_fj, "by_state sums to the total");
}

fn events(trace: Vec<u8>) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&trace).expect("the trace is JSON");
    v["traceEvents"].as_array().unwrap().clone()
}

/// `n` ALU instructions (1 cycle each).
fn alu(n: usize) -> Vec<u16> {
    vec![adds_imm8(4, 1); n]
}

/// kernel: 10 ALU + STR A | A: 20 ALU + STR B | B: 30 ALU + STR C (also named "A") |
/// C: 5 ALU + STRB renaming A + STR A (A renamed: a new task) | 7 ALU + STR NULL | kernel: B .
fn program() -> Vec<u16> {
    let mut code = alu(10);
    code.push(str_imm(1, 0, 0));
    code.extend(alu(20));
    code.push(str_imm(2, 0, 0));
    code.extend(alu(30));
    code.push(str_imm(3, 0, 0));
    code.extend(alu(5));
    code.push(strb_imm(6, 1, 4));
    code.push(str_imm(1, 0, 0));
    code.extend(alu(7));
    code.push(str_imm(5, 0, 0));
    let here = CODE + 2 * code.len() as u32;
    code.push(b_to(here, here));
    code
}

fn machine(energy: bool, trace: bool) -> Machine {
    let mut m = boot(&program());
    put_name(&mut m, TCB_A, "A");
    put_name(&mut m, TCB_B, "beta");
    put_name(&mut m, TCB_C, "A");
    m.r[0] = PTR;
    m.r[1] = TCB_A;
    m.r[2] = TCB_B;
    m.r[3] = TCB_C;
    m.r[5] = 0;
    m.r[6] = b'Z' as u32;
    if energy {
        m.enable_energy(&flat(), None, &[]).unwrap();
    }
    if trace {
        m.trace = Some(TraceLog::in_memory(m.config.clock_hz));
    }
    m.install_rtos(LAYOUT).unwrap();
    m
}

/// Instructions of the program up to the `B .`, and then `loops` iterations of it.
fn run_program(m: &mut Machine, loops: u64) {
    let straight = program().len() as u64 - 1;
    step(m, straight + loops);
}

#[test]
fn energy_switches_at_the_store_and_sums_exactly() {
    let mut m = machine(true, false);
    run_program(&mut m, 100);
    // Each STR/STRB takes 2 cycles and belongs to the task that executed it.
    let kernel = 10 + 2 + 200; // before A, then 100 x `B .` after NULL
    let a = 20 + 2;
    let beta = 30 + 2;
    let a_dup = 5 + 2 + 2; // C is also called "A": told apart by its address
    let z = 7 + 2; // A's block renamed "Z": another task
    assert_eq!(m.cycles, kernel + a + beta + a_dup + z);
    let b = breakdown(&m).unwrap();
    let by = |n: &str| b.by_task.get(n).copied().unwrap_or_else(|| panic!("no task {n}: {:?}", b.by_task));
    assert_eq!(by("kernel"), kernel as u128 * FJ_PER_CYCLE);
    assert_eq!(by("A"), a as u128 * FJ_PER_CYCLE);
    assert_eq!(by("beta"), beta as u128 * FJ_PER_CYCLE);
    assert_eq!(by(&format!("A@0x{TCB_C:08x}")), a_dup as u128 * FJ_PER_CYCLE);
    assert_eq!(by("Z"), z as u128 * FJ_PER_CYCLE);
    assert_eq!(b.by_task.len(), 5, "{:?}", b.by_task);
    check_sums(&b);
}

#[test]
fn single_stepping_gives_the_same_split() {
    let mut a = machine(true, false);
    run_program(&mut a, 50);
    let mut b = machine(true, false);
    for _ in 0..(program().len() as u64 - 1 + 50) {
        step(&mut b, 1);
    }
    assert_eq!(a.cycles, b.cycles);
    assert_eq!(breakdown(&a).unwrap().by_task, breakdown(&b).unwrap().by_task);
}

#[test]
fn trace_slices_start_at_the_store_cycle_on_tracks_named_by_task() {
    let mut m = machine(false, true);
    run_program(&mut m, 10);
    let end = m.cycles;
    let ev = events(m.trace.take().unwrap().finish(end, "trace").unwrap());
    let us = |c: u64| c as f64 / 25.0; // 25 MHz
    let tracks: Vec<(u64, String)> = ev
        .iter()
        .filter(|e| e["ph"] == "M" && e["tid"].as_u64().unwrap_or(0) >= 16)
        .map(|e| (e["tid"].as_u64().unwrap(), e["args"]["name"].as_str().unwrap().to_string()))
        .collect();
    let names: Vec<&str> = tracks.iter().map(|t| t.1.as_str()).collect();
    assert_eq!(names, ["A", "beta", &format!("A@0x{TCB_C:08x}"), "Z"]);
    let slices: Vec<(String, String, f64)> = ev
        .iter()
        .filter(|e| (e["ph"] == "B" || e["ph"] == "E") && e["tid"].as_u64().unwrap_or(0) >= 16)
        .map(|e| (e["ph"].as_str().unwrap().into(), e["name"].as_str().unwrap().into(), e["ts"].as_f64().unwrap()))
        .collect();
    // A store at cycle c (the cycle its instruction starts, as for trace-port words).
    let (s1, s2, s3, s4, s5) = (10, 10 + 2 + 20, 32 + 2 + 30, 64 + 2 + 5 + 2, 73 + 2 + 7);
    let dup = format!("A@0x{TCB_C:08x}");
    let want = [
        ("B", "A", s1),
        ("E", "A", s2),
        ("B", "beta", s2),
        ("E", "beta", s3),
        ("B", dup.as_str(), s3),
        ("E", dup.as_str(), s4),
        ("B", "Z", s4),
        ("E", "Z", s5),
    ];
    assert_eq!(slices.len(), want.len(), "{slices:?}");
    for (got, w) in slices.iter().zip(want) {
        assert_eq!((got.0.as_str(), got.1.as_str(), got.2), (w.0, w.1, us(w.2)), "{slices:?}");
    }
    let tcb = ev.iter().find(|e| e["ph"] == "B" && e["name"] == "beta").unwrap();
    assert_eq!(tcb["args"]["tcb"], format!("0x{TCB_B:08x}"));
}

#[test]
fn no_task_is_current_while_the_scheduler_is_not_running() {
    const RUNNING: u32 = DATA + 0x20;
    // kernel: 3 ALU, STR A (not running: still kernel), 4 ALU, STR running=1 | A: 5 ALU,
    // STR running=0 | kernel: B .
    let mut code = alu(3);
    code.push(str_imm(1, 0, 0));
    code.extend(alu(4));
    code.push(str_imm(7, 6, 0));
    code.extend(alu(5));
    code.push(str_imm(5, 6, 0));
    let here = CODE + 2 * code.len() as u32;
    code.push(b_to(here, here));
    let mut m = boot(&code);
    put_name(&mut m, TCB_A, "A");
    (m.r[0], m.r[1], m.r[5], m.r[6], m.r[7]) = (PTR, TCB_A, 0, RUNNING, 1);
    m.enable_energy(&flat(), None, &[]).unwrap();
    let layout = Layout { running: Some(Flag { addr: RUNNING, size: 4 }), ..LAYOUT };
    m.install_rtos(layout).unwrap();
    step(&mut m, code.len() as u64 - 1 + 10);
    let b = breakdown(&m).unwrap();
    assert_eq!(b.by_task["kernel"], (3 + 2 + 4 + 2 + 20) * FJ_PER_CYCLE);
    assert_eq!(b.by_task["A"], (5 + 2) * FJ_PER_CYCLE);
    assert_eq!(m.cycles, 3 + 2 + 4 + 2 + 5 + 2 + 20);
    check_sums(&b);
}

#[test]
fn a_pointer_outside_sram_is_refused() {
    let mut m = boot(&program());
    let e = m.install_rtos(Layout { addr: 0x100, name: None, running: None }).unwrap_err();
    assert!(e.contains("not in SRAM"), "{e}");
}

// ------------------------------------------------------------------ test firmware

const TICK_CYCLES: u64 = 4000;

struct FwRun {
    stop: Stop,
    uart: String,
    by_task: std::collections::BTreeMap<String, u128>,
    total: u128,
    trace: Vec<Value>,
}

fn run_fw(spec: &str) -> Option<FwRun> {
    let bytes = firmware::fw_bytes("test-rtos_tasks.elf")?;
    let mut m = Machine::new(BoardConfig::mps2_an385());
    cairn_sim::elf::load_elf(&mut m, &bytes).unwrap();
    let layout = resolve(&bytes, &RtosSpec::parse(spec).unwrap()).unwrap();
    m.trace = Some(TraceLog::in_memory(m.config.clock_hz));
    m.reset();
    m.enable_energy(&flat(), None, &[]).unwrap();
    m.install_rtos(layout).unwrap();
    let stop = m.run(50_000_000);
    let uart = m.console.memory().unwrap().text();
    let b = breakdown(&m).unwrap();
    check_sums(&b);
    let end = m.cycles;
    let trace = events(m.trace.take().unwrap().finish(end, "trace").unwrap());
    Some(FwRun { stop, uart, by_task: b.by_task, total: b.total_fj, trace })
}

/// "task NAME runs=N" lines of the firmware's report.
fn reported_runs(uart: &str) -> Vec<(String, usize)> {
    uart.lines()
        .filter_map(|l| l.strip_prefix("task "))
        .map(|l| {
            let (n, r) = l.split_once(" runs=").unwrap();
            (n.to_string(), r.trim().parse().unwrap())
        })
        .collect()
}

fn begins(trace: &[Value]) -> Vec<(String, f64)> {
    trace
        .iter()
        .filter(|e| e["ph"] == "B" && e["tid"].as_u64().unwrap_or(0) > 271)
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["ts"].as_f64().unwrap()))
        .collect()
}

#[test]
fn freertos_builtin_follows_the_test_scheduler() {
    let Some(r) = run_fw("freertos") else { return };
    assert_eq!(r.stop, Stop::Exit(0), "{}", r.uart);
    let runs = reported_runs(&r.uart);
    assert_eq!(runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["alpha", "beta", "gamma"]);
    let b = begins(&r.trace);
    // Every switch-in the firmware counted is one slice on the task's track, and nothing else.
    for (name, n) in &runs {
        assert_eq!(b.iter().filter(|s| &s.0 == name).count(), *n, "slices of {name}");
    }
    assert_eq!(b.len(), runs.iter().map(|r| r.1).sum::<usize>());
    // A SysTick-driven switch stores the pointer a fixed number of cycles after its tick,
    // plus the 0-3 cycles the interrupted instruction needed to finish: one such switch per
    // tick the firmware counted, and every other switch is a yield.
    let cycles: Vec<u64> = b.iter().map(|s| (s.1 * 25.0).round() as u64).collect();
    let ticks: u64 = r.uart.lines().find_map(|l| l.strip_prefix("ticks=")).unwrap().trim().parse().unwrap();
    let tick_phase = cycles[1] % TICK_CYCLES;
    let on_tick = cycles[1..].iter().filter(|c| (*c + TICK_CYCLES - tick_phase) % TICK_CYCLES <= 3).count() as u64;
    assert_eq!(on_tick, ticks, "switches on a tick: {cycles:?}");
    // The tasks do 1 : 2 : 3 units of work (gamma, last to finish, also prints the report):
    // their energy is in that order, and all of it (with kernel, irq) is the total.
    let e = |n: &str| r.by_task[n];
    assert!(e("alpha") < e("beta") && e("beta") < e("gamma"), "{:?}", r.by_task);
    let ratio = e("gamma") as f64 / e("alpha") as f64;
    assert!((2.9..3.6).contains(&ratio), "gamma/alpha = {ratio}");
    assert_eq!(r.by_task.values().sum::<u128>(), r.total);
}

/// Energy moved from alpha to kernel between two runs whose task sets are otherwise the same
/// (only the start-up switch differs): kernel gains exactly what alpha loses.
fn moved_at_start(early: &FwRun, late: &FwRun, early_alpha: &str, late_alpha: &str) -> u128 {
    assert_eq!(late.total, early.total);
    assert_eq!(late.by_task["irq"], early.by_task["irq"]);
    let moved = early.by_task[early_alpha] - late.by_task[late_alpha];
    assert_eq!(late.by_task["kernel"] - early.by_task["kernel"], moved);
    assert!(moved.is_multiple_of(FJ_PER_CYCLE), "moved {moved} fJ");
    moved / FJ_PER_CYCLE
}

#[test]
fn generic_form_with_nested_path_and_pointer_names_matches_the_builtin() {
    let (Some(a), Some(g)) =
        (run_fw("current=pxCurrentTCB,name=pcTaskName"), run_fw("current=rr_kernel.cpus[1].current,name=pcLabel"))
    else {
        return;
    };
    assert_eq!(g.stop, Stop::Exit(0));
    for t in ["alpha", "beta", "gamma"] {
        assert!(g.by_task.contains_key(&format!("lbl-{t}")), "{:?}", g.by_task);
    }
    // The second pointer is stored right after pxCurrentTCB in PendSV (handler mode, where
    // everything is `irq`), so only the switch made in thread mode at start-up, one store
    // (2 cycles, here with its address load) later, moves energy.
    assert_eq!(g.by_task["lbl-beta"], a.by_task["beta"]);
    assert_eq!(g.by_task["lbl-gamma"], a.by_task["gamma"]);
    let moved = moved_at_start(&a, &g, "alpha", "lbl-alpha");
    assert!((1..=8).contains(&moved), "moved {moved} cycles");
    let names: Vec<String> = begins(&g.trace).into_iter().map(|b| b.0).collect();
    assert!(names.iter().all(|n| n.starts_with("lbl-")), "{names:?}");
}

#[test]
fn freertos_builtin_waits_for_the_scheduler_to_run() {
    let (Some(plain), Some(gated)) = (run_fw("current=pxCurrentTCB,name=pcTaskName"), run_fw("freertos")) else {
        return;
    };
    // The firmware's start-up spin (50 iterations) runs with pxCurrentTCB set but
    // xSchedulerRunning still 0: the built-in books it to kernel, the bare pointer to alpha.
    assert_eq!(gated.by_task["beta"], plain.by_task["beta"]);
    let moved = moved_at_start(&plain, &gated, "alpha", "alpha");
    assert!(moved > 50 * 4, "moved {moved} cycles");
    let first = |r: &FwRun| begins(&r.trace)[0].1;
    assert!(first(&gated) > first(&plain));
}

#[test]
fn resolution_errors_are_one_line() {
    let Some(bytes) = firmware::fw_bytes("test-rtos_tasks.elf") else { return };
    let err = |spec: &str| resolve(&bytes, &RtosSpec::parse(spec).unwrap()).unwrap_err();
    for (spec, want) in [
        ("zephyr", "no symbol '_kernel'"),
        ("current=pxCurrentTCB,name=pcTaskNam", "has no member 'pcTaskNam'"),
        ("current=rr_kernel.cpus[2].current", "index 2 is out of bounds"),
        ("current=rr_kernel", "is not a pointer"),
        ("current=pxCurrentTCB,running=tcbs", "running: 'tcbs' is not an integer of 1, 2 or 4 bytes"),
        ("current=pxCurrentTCB,running=nosuch", "no symbol 'nosuch'"),
        ("current=pxCurrentTCB,name=ulRuns", "neither a char array nor a char pointer"),
        ("current=pxCurrentTCB.x", "cannot follow pointers"),
    ] {
        let e = err(spec);
        assert!(e.contains(want), "{spec}: {e}");
        assert!(!e.contains('\n'));
    }
    let e = resolve(b"not an elf", &RtosSpec::parse("freertos").unwrap()).unwrap_err();
    assert!(e.contains("not an ELF"), "{e}");
}
