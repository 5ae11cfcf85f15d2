//! The main-stack guard: the low-water mark follows every way MSP goes down (PUSH, SUB SP,
//! MOV SP, ADD SP from a register, MSR MSP, exception entry), the process stack is not the
//! main stack, an overflow warns or stops at the instruction, and watching adds no cycle.

mod common;
use cairn_sim::energy::profile::Profile;
use cairn_sim::stack::StackCheck;
use cairn_sim::{Machine, Stop};
use common::*;

const LIMIT: u32 = STACK_TOP - 0x1000;

fn code(parts: &[&[u16]]) -> Vec<u16> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

fn watched(code: &[u16], check: StackCheck) -> Machine {
    let mut m = boot(code);
    m.watch_stack(LIMIT, "__stack_limit", check);
    m
}

#[test]
fn the_low_water_mark_follows_every_way_msp_goes_down() {
    let prog = code(&[&[push(0x0f, true), sub_sp(64), mov_hi(13, 4), add_hi(13, 5)], &msr(SYSM_MSP, 6), &[svc(0)]]);
    let mut m = watched(&prog, StackCheck::Warn);
    m.r[4] = STACK_TOP - 0x100;
    m.r[5] = (-0x100i32) as u32;
    m.r[6] = STACK_TOP - 0x300;
    let lows = [STACK_TOP - 20, STACK_TOP - 84, STACK_TOP - 0x100, STACK_TOP - 0x200, STACK_TOP - 0x300];
    for want in lows {
        step(&mut m, 1);
        assert_eq!(m.stack.low_water, want, "after the instruction before pc 0x{:08x}", m.pc);
    }
    step(&mut m, 1); // SVC: the exception entry stacks 8 words on MSP
    assert_eq!((m.ipsr, m.stack.low_water), (SVCALL, STACK_TOP - 0x320));
    assert_eq!(m.stack.peak_bytes(), 0x320);
    assert!(!m.stack.overflowed());
}

#[test]
fn a_higher_sp_is_no_new_low() {
    let mut m =
        watched(&[push(0xff, true), pop(0xff, false), sub_sp(8), add_sp(64), push(0x01, false)], StackCheck::Warn);
    step(&mut m, 5);
    assert_eq!(m.r[13], STACK_TOP + 48);
    assert_eq!(m.stack.low_water, STACK_TOP - 36);
}

#[test]
fn the_process_stack_is_not_the_main_stack() {
    // PSP far below the main stack's limit; thread mode switches to it and pushes.
    let prog = code(&[&msr(SYSM_PSP, 0), &msr(SYSM_CONTROL, 1), &[push(0xff, true)], &[svc(0)]]);
    let mut m = watched(&prog, StackCheck::Fault);
    m.r[0] = DATA;
    m.r[1] = 2; // CONTROL.SPSEL
    step(&mut m, 3);
    assert_eq!((m.psp(), m.msp()), (DATA - 36, STACK_TOP));
    assert_eq!(m.stack.watch, 0, "nothing the process stack does is compared");
    step(&mut m, 1); // the frame goes on PSP, the handler runs on MSP
    assert_eq!((m.ipsr, m.psp()), (SVCALL, DATA - 72), "aligned to 8 below the pushed words");
    assert_eq!((m.stack.low_water, m.stack.watch), (STACK_TOP, STACK_TOP));
    assert!(!m.stack.overflowed());
}

#[test]
fn msr_msp_on_the_process_stack_is_still_seen() {
    let prog = code(&[&msr(SYSM_PSP, 0), &msr(SYSM_CONTROL, 1), &msr(SYSM_MSP, 2)]);
    let mut m = watched(&prog, StackCheck::Warn);
    (m.r[0], m.r[1], m.r[2]) = (DATA, 2, LIMIT - 8);
    step(&mut m, 3);
    assert_eq!(m.stack.low_water, LIMIT - 8);
    assert_eq!(m.stack.overflow, Some((CODE + 8, LIMIT - 8)));
}

#[test]
fn warn_goes_on_and_fault_stops_at_the_instruction() {
    let prog = [sub_sp(0x7f * 4), mov_hi(13, 4), push(0x03, false), push(0x03, false), nop()];
    let run = |check| {
        let mut m = watched(&prog, check);
        m.r[4] = LIMIT + 4;
        let stop = m.run(5);
        (m, stop)
    };
    let (w, stop) = run(StackCheck::Warn);
    assert_eq!((stop, w.instructions), (Stop::Limit, 5));
    assert_eq!(w.stack.overflow, Some((CODE + 4, LIMIT - 4)), "the first push below the limit");
    assert_eq!(w.stack.low_water, LIMIT - 12);
    let (f, stop) = run(StackCheck::Fault);
    assert_eq!(stop, Stop::StackOverflow { pc: CODE + 4, msp: LIMIT - 4 });
    assert_eq!((f.instructions, f.pc, f.r[13]), (3, CODE + 6, LIMIT - 4), "stopped after the push");
    assert_eq!(f.cycles, 1 + 1 + 3, "what the three instructions take");
}

#[test]
fn an_overflowing_exception_entry_names_the_handler() {
    let mut m = watched(&[mov_hi(13, 4), svc(0)], StackCheck::Fault);
    m.r[4] = LIMIT + 16;
    let stop = m.run(10);
    assert_eq!(stop, Stop::StackOverflow { pc: handler(SVCALL), msp: LIMIT - 16 });
}

/// A loop of calls, pushes and interrupts: the same cycles and registers watched or not,
/// plain and with energy accounting (the run loop's other specialisation).
#[test]
fn watching_adds_no_cycle() {
    let mut a = Asm::new(CODE);
    let top = a.here();
    a.i(push(0xf0, false)).i(sub_sp(16)).i(add_sp(16)).i(pop(0xf0, false)).i(svc(1));
    a.i(subs_imm8(0, 1));
    let back = bcond(NE, a.here(), top);
    a.i(back);
    let here = a.here();
    a.i(b_to(here, here));
    let h = handler(SVCALL);
    let run = |check: Option<StackCheck>, energy: bool| {
        let mut m = boot(&[]);
        a.load(&mut m);
        load(&mut m, h, &[push(0x10, true), pop(0x10, true)]);
        m.r[0] = 200;
        if energy {
            m.enable_energy(&Profile::load("stm32l053").unwrap(), None, &[]).unwrap();
        }
        if let Some(c) = check {
            m.watch_stack(LIMIT, "__stack_limit", c);
        }
        assert_eq!(m.run(200 * 12), Stop::Limit);
        (m.cycles, m.instructions, m.r, m.pc, m.stack.low_water)
    };
    for energy in [false, true] {
        let plain = run(None, energy);
        let watched = run(Some(StackCheck::Warn), energy);
        assert_eq!((plain.0, plain.1, plain.2, plain.3), (watched.0, watched.1, watched.2, watched.3));
        assert_eq!(watched.4, STACK_TOP - 32 - 8, "the SVC's frame and its handler's push");
        assert!(watched.1 > 200 * 9, "the loop ran to its end");
    }
}
