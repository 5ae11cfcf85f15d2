//! Energy accounting counts only executions in the hot loop and reconstructs each
//! address's cycles as executions x static cost + recorded extras (crate cairn-observe, `energy`).
//! Stepping one instruction per `run` call settles every instruction exactly, so a
//! single-stepped run is the reference: a normal run must give the same breakdown to the
//! last femtojoule, and both must account for every cycle the core ran. Real firmware
//! (build/fw, from `make build`) with and without flash wait states covers exception entry
//! and return inside instructions, SVC, PendSV, task switches through the trace port,
//! flash data reads and sleep.

mod common;
use cairn_sim::config::BoardConfig;
use cairn_sim::energy::profile::Profile;
use cairn_sim::energy::report::{breakdown, Breakdown};
use cairn_sim::{Machine, Stop};
use common::*;

mod firmware;
use firmware::fw_bytes as fw;

fn machine(elf: &[u8], wait_states: u32, cycles: u64) -> Machine {
    let mut cfg = BoardConfig::mps2_an385();
    cfg.flash_wait_states = wait_states;
    let mut m = Machine::new(cfg);
    cairn_sim::elf::load_elf(&mut m, elf).unwrap();
    m.cycle_limit = cycles;
    m.reset();
    m.enable_energy(&Profile::load("stm32l053").unwrap(), None, &[]).unwrap();
    m
}

/// Every cycle is in exactly one state, and the states add up to the core's cycles.
fn check_every_cycle_counted(m: &Machine, b: &Breakdown, what: &str) {
    let counted: u64 = b.cycles_by_state.values().sum();
    assert_eq!(counted, m.cycles, "{what}: cycles by state {:?}", b.cycles_by_state);
    let funcs: u64 = b.funcs.iter().map(|f| f.cycles).sum();
    assert_eq!(funcs, b.cycles_by_state["active"], "{what}: function cycles sum to active");
}

fn compare(name: &str, wait_states: u32, cycles: u64) {
    let Some(elf) = fw(name) else { return };
    let what = format!("{name} with {wait_states} wait states");
    let mut fast = machine(&elf, wait_states, cycles);
    let stop = fast.run(u64::MAX);
    let mut stepped = machine(&elf, wait_states, cycles);
    let mut stop_stepped = Stop::Limit;
    while stepped.cycles < cycles {
        stop_stepped = stepped.run(1);
        if stop_stepped != Stop::Limit {
            break;
        }
    }
    assert_eq!(stop, stop_stepped, "{what}: same stop");
    assert_eq!((fast.cycles, fast.instructions), (stepped.cycles, stepped.instructions), "{what}");
    let (a, b) = (breakdown(&fast).unwrap(), breakdown(&stepped).unwrap());
    check_every_cycle_counted(&fast, &a, &what);
    check_every_cycle_counted(&stepped, &b, &what);
    let e = fast.energy.as_deref().unwrap();
    for (i, (x, y)) in a.funcs.iter().zip(&b.funcs).enumerate() {
        assert_eq!(
            (x.cycles, x.instructions, x.fj),
            (y.cycles, y.instructions, y.fj),
            "{what}: function {}",
            e.funcs[i].name
        );
    }
    assert_eq!(a.by_task, b.by_task, "{what}");
    assert_eq!(a.by_class, b.by_class, "{what}");
    assert_eq!(a.cycles_by_state, b.cycles_by_state, "{what}");
    assert_eq!(a.total_fj, b.total_fj, "{what}");
    assert!(a.by_task.len() >= 2 || name.starts_with("test-"), "{what}: tasks seen {:?}", a.by_task);
}

#[test]
fn kernel_firmware_block_runs_match_single_steps() {
    for ws in [0, 1] {
        compare("hello.elf", ws, 3_500_000);
        compare("kernel-preempt.elf", ws, 2_000_000);
        compare("kernel-irq_message.elf", ws, 2_000_000);
    }
}

#[test]
fn exception_firmware_block_runs_match_single_steps() {
    for ws in [0, 2] {
        for name in ["test-exceptions.elf", "test-svc.elf", "test-pendsv.elf", "test-semihosting.elf"] {
            compare(name, ws, 2_000_000);
        }
    }
}

/// A loop that runs in one block is charged from the static cost table alone (plus taken
/// branches): each class's cycles per execution are the TRM's.
#[test]
fn static_costs_match_a_loop_of_known_instructions() {
    // L: ADDS r0,#1 ; LDR r1,[pc,#12] ; MULS r1,r0 ; PUSH {r0,r1} ; POP {r0,r1} ; BNE L
    let mut m = boot(&[0x3001, 0x4903, 0x4341, 0xb403, 0xbc03, 0xd1f9, 0xbf00, 0xbf00, 0x1234, 0x0000]);
    m.enable_energy(&Profile::load("stm32l053").unwrap(), None, &[]).unwrap();
    m.cycle_limit = 10_000;
    m.run(u64::MAX);
    let b = breakdown(&m).unwrap();
    assert_eq!(b.cycles_by_state["active"], m.cycles);
    // 1 + 2 + 1 + 3 + 3 + 2 (taken) cycles per iteration.
    assert_eq!(b.by_class["branch"].0, 2 * b.by_class["branch"].1);
    assert_eq!(b.by_class["multi"].0, 3 * b.by_class["multi"].1);
    assert_eq!(b.by_class["load"].0, 2 * b.by_class["load"].1);
}
