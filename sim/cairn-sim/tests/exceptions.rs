//! The ARMv6-M exception model: entry (frame contents, 8-byte alignment, EXC_RETURN values,
//! PSP), return, nesting, tail-chaining, late arrival, PRIMASK, SVC and its escalation,
//! lockup, NVIC and SCB registers, VTOR, AIRCR.

mod common;
use cairn_sim::machine::FaultKind;
use cairn_sim::{Machine, Stop};
use common::*;

fn enable_irq(m: &mut Machine, k: u32) {
    m.write32(NVIC_ISER, 1 << k).unwrap();
}

fn pend_irq(m: &mut Machine, k: u32) {
    m.write32(NVIC_ISPR, 1 << k).unwrap();
}

fn set_irq_prio(m: &mut Machine, k: u32, prio: u8) {
    let addr = NVIC_IPR0 + (k & !3);
    let shift = 8 * (k & 3);
    let old = m.read32(addr).unwrap();
    m.write32(addr, (old & !(0xff << shift)) | ((prio as u32) << shift)).unwrap();
}

// ------------------------------------------------------------------ entry and return

#[test]
fn irq_entry_stacks_frame_and_returns() {
    // STR r1,[r0] pends IRQ3 ; MOVS r7,#7
    let mut m = boot(&[str_imm(1, 0, 0), movs(7, 7)]);
    load(&mut m, handler(irq(3)), &[movs(2, 0x99), bx(14)]);
    enable_irq(&mut m, 3);
    let regs = [(0, NVIC_ISPR), (1, 1 << 3), (2, 0x22), (3, 0x33), (12, 0xCC), (14, 0xEEEE_EEE1)];
    for (i, v) in regs {
        m.r[i] = v;
    }
    m.set_apsr(apsr(N | C));
    step(&mut m, 1);
    // Taken right after the STR: 2 + 15 cycles.
    assert_eq!((m.pc, m.ipsr, m.cycles), (handler(irq(3)), 19, 17));
    assert_eq!(m.r[14], 0xFFFF_FFF9);
    assert_eq!(m.r[13], STACK_TOP - 32);
    assert_eq!(frame(&m, STACK_TOP - 32), [NVIC_ISPR, 8, 0x22, 0x33, 0xCC, 0xEEEE_EEE1, CODE + 2, 0xA100_0000]);
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 0, "pending bit cleared on entry");
    step(&mut m, 2);
    // MOVS 1 + BX LR 2 + exit 13
    assert_eq!((m.pc, m.ipsr, m.cycles), (CODE + 2, 0, 17 + 1 + 2 + 13));
    assert_eq!(m.r[2], 0x22, "r2 restored");
    assert_eq!((m.r[0], m.r[1], m.r[3], m.r[12], m.r[14]), (NVIC_ISPR, 8, 0x33, 0xCC, 0xEEEE_EEE1));
    assert_eq!(flags(&m), N | C, "flags restored");
    assert_eq!(m.r[13], STACK_TOP);
    step(&mut m, 1);
    assert_eq!(m.r[7], 7);
}

#[test]
fn frame_alignment_and_xpsr_bit9() {
    for (sp, frame_at, bit9) in [(STACK_TOP, STACK_TOP - 32, 0), (STACK_TOP - 4, STACK_TOP - 40, 1 << 9)] {
        let mut m = boot(&[nop(), nop()]);
        load(&mut m, handler(PENDSV), &[bx(14)]);
        m.r[13] = sp;
        m.set_apsr(apsr(Z));
        m.write32(SCB_ICSR, 1 << 28).unwrap();
        step(&mut m, 0);
        assert_eq!((m.ipsr, m.r[13]), (PENDSV, frame_at), "SP 0x{sp:08x}");
        assert_eq!(frame(&m, frame_at)[7], 0x4100_0000 | bit9);
        assert_eq!(frame(&m, frame_at)[6], CODE);
        step(&mut m, 1);
        assert_eq!((m.ipsr, m.pc, m.r[13]), (0, CODE, sp), "original SP restored");
        assert_eq!(flags(&m), Z);
    }
}

#[test]
fn psp_thread_uses_exc_return_fffffffd() {
    let psp = 0x2000_4000;
    // MSR PSP,r0 ; MSR CONTROL,r1(=2) ; STR r3,[r2] (PENDSVSET) ; MOVS r7,#7
    let mut code = msr(SYSM_PSP, 0).to_vec();
    code.extend_from_slice(&msr(SYSM_CONTROL, 1));
    code.extend_from_slice(&[str_imm(3, 2, 0), movs(7, 7)]);
    let mut m = boot(&code);
    let mut h = mrs(4, SYSM_PSP).to_vec();
    h.extend_from_slice(&mrs(5, SYSM_CONTROL));
    h.extend_from_slice(&[mov_hi(6, 13), bx(14)]);
    load(&mut m, handler(PENDSV), &h);
    for (i, v) in [(0, psp), (1, 2), (2, SCB_ICSR), (3, 1 << 28)] {
        m.r[i] = v;
    }
    step(&mut m, 3);
    assert_eq!(m.ipsr, PENDSV);
    assert_eq!(m.r[14], 0xFFFF_FFFD);
    assert_eq!(m.r[13], STACK_TOP, "handler runs on the untouched MSP");
    assert_eq!(m.psp(), psp - 32);
    assert_eq!(frame(&m, psp - 32)[6], CODE + 10);
    step(&mut m, 3);
    assert_eq!(m.r[4], psp - 32);
    assert_eq!(m.r[5], 0, "CONTROL.SPSEL reads 0 in Handler mode");
    assert_eq!(m.r[6], STACK_TOP);
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.pc), (0, CODE + 10));
    assert_eq!(m.r[13], psp, "back on the PSP");
    assert_eq!(m.msp(), STACK_TOP);
    assert!(m.spsel);
}

#[test]
fn nested_exception_uses_fffffff1() {
    // IRQ0 (prio 0x80) handler pends IRQ1 (prio 0x40), which preempts.
    let mut m = boot(&[nop()]);
    load(&mut m, handler(irq(0)), &[str_imm(1, 0, 0), movs(6, 6), bx(14)]);
    load(&mut m, handler(irq(1)), &[movs(5, 5), bx(14)]);
    set_irq_prio(&mut m, 0, 0x80);
    set_irq_prio(&mut m, 1, 0x40);
    enable_irq(&mut m, 0);
    enable_irq(&mut m, 1);
    pend_irq(&mut m, 0);
    m.r[0] = NVIC_ISPR;
    m.r[1] = 2;
    step(&mut m, 0);
    assert_eq!((m.ipsr, m.cycles, m.r[14]), (irq(0), 15, 0xFFFF_FFF9));
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.cycles, m.r[14]), (irq(1), 15 + 2 + 15, 0xFFFF_FFF1));
    assert_eq!(m.r[13], STACK_TOP - 64);
    let f = frame(&m, STACK_TOP - 64);
    assert_eq!(f[5], 0xFFFF_FFF9, "stacked LR is the outer EXC_RETURN");
    assert_eq!(f[6], handler(irq(0)) + 2);
    assert_eq!(f[7], 0x0100_0000 | irq(0), "stacked IPSR is the preempted exception");
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc, m.r[14], m.r[13]), (irq(0), handler(irq(0)) + 2, 0xFFFF_FFF9, STACK_TOP - 32));
    assert_eq!(m.cycles, 32 + 1 + 2 + 13);
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc, m.r[13]), (0, CODE, STACK_TOP));
    assert_eq!((m.r[5], m.r[6]), (5, 6));
}

#[test]
fn pop_pc_performs_exception_return() {
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[push(0b1, true), movs(0, 9), pop(0b1, true)]);
    m.r[0] = 0x1234;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    assert_eq!(m.cycles, 15);
    step(&mut m, 3);
    assert_eq!((m.ipsr, m.pc, m.r[0], m.r[13]), (0, CODE, 0x1234, STACK_TOP));
    // PUSH 1+2, MOVS 1, POP {r0,pc} 3+2, exit 13
    assert_eq!(m.cycles, 15 + 3 + 1 + 5 + 13);
}

#[test]
fn invalid_exc_return_faults() {
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[bx(0)]);
    m.r[0] = 0xFFFF_FFF5;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step1(&mut m);
    assert!(matches!(m.last_fault, Some((FaultKind::InvalidReturn(0xFFFF_FFF5), _))), "{:?}", m.last_fault);
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(m.r[14], 0xFFFF_FFF1, "HardFault nested in PendSV");
}

// ------------------------------------------------------------------ tail-chaining and late arrival

#[test]
fn tail_chaining_two_pending_irqs() {
    let mut m = boot(&[cpsie(), nop()]);
    load(&mut m, handler(irq(0)), &[bx(14)]);
    load(&mut m, handler(irq(1)), &[bx(14)]);
    m.primask = true;
    set_irq_prio(&mut m, 0, 0x80);
    set_irq_prio(&mut m, 1, 0x40);
    m.write32(NVIC_ISER, 3).unwrap();
    m.write32(NVIC_ISPR, 3).unwrap();
    step(&mut m, 1);
    // CPSIE (1) then IRQ1 first (higher priority).
    assert_eq!((m.ipsr, m.cycles, m.r[13]), (irq(1), 1 + 15, STACK_TOP - 32));
    step(&mut m, 1);
    // BX LR (2) + tail-chain (9): IRQ0 without unstacking.
    assert_eq!((m.ipsr, m.cycles), (irq(0), 16 + 2 + 9));
    assert_eq!(m.r[13], STACK_TOP - 32, "same frame");
    assert_eq!(m.r[14], 0xFFFF_FFF9);
    assert_eq!(frame(&m, STACK_TOP - 32)[6], CODE + 2);
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.pc, m.cycles, m.r[13]), (0, CODE + 2, 27 + 2 + 13, STACK_TOP));
}

#[test]
fn same_priority_does_not_preempt_and_lower_number_wins() {
    // IRQ5 active; IRQ2 and IRQ4 (same priority) pended in its handler: no preemption,
    // then tail-chain to IRQ2 (lower number) and IRQ4.
    let mut m = boot(&[nop()]);
    load(&mut m, handler(irq(5)), &[str_imm(1, 0, 0), movs(7, 1), bx(14)]);
    load(&mut m, handler(irq(2)), &[bx(14)]);
    load(&mut m, handler(irq(4)), &[bx(14)]);
    m.write32(NVIC_ISER, 0b110100).unwrap();
    pend_irq(&mut m, 5);
    m.r[0] = NVIC_ISPR;
    m.r[1] = 0b10100;
    step(&mut m, 0);
    assert_eq!(m.ipsr, irq(5));
    step(&mut m, 2);
    assert_eq!(m.ipsr, irq(5), "equal priority does not preempt");
    assert_eq!(m.r[7], 1);
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(2));
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(4));
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.pc), (0, CODE));
}

#[test]
fn late_arrival_of_systick_during_svc_stacking() {
    // SVCall priority 3; SysTick priority 0 fires 6 cycles into SVC's exception entry.
    let mut code = nops(4);
    code.extend_from_slice(&[svc(0), b_to(CODE + 10, CODE + 10)]);
    let mut m = boot(&code);
    load(&mut m, handler(SYSTICK), &[str_imm(5, 4, 0), bx(14)]); // disable SysTick, return
    load(&mut m, handler(SVCALL), &[movs(6, 6), bx(14)]);
    m.write32(SCB_SHPR2, 0xC000_0000).unwrap();
    m.write32(SYST_RVR, 9).unwrap();
    m.write32(SYST_CVR, 0).unwrap();
    m.write32(SYST_CSR, 7).unwrap(); // core clock, TICKINT, ENABLE at cycle 0: event at 10
    m.r[4] = SYST_CSR;
    m.r[5] = 0;
    step(&mut m, 5);
    assert_eq!(m.ipsr, SYSTICK, "late-arriving SysTick takes over the SVC entry");
    assert_eq!(m.cycles, 4 + 15);
    assert_eq!(m.r[13], STACK_TOP - 32);
    assert_eq!(frame(&m, STACK_TOP - 32)[6], CODE + 10, "SVC return address stacked");
    assert_eq!(m.read32(SCB_ICSR).unwrap() & 0x3f, SYSTICK, "VECTACTIVE");
    step(&mut m, 2);
    assert_eq!(m.ipsr, SVCALL, "SVC tail-chained");
    assert_eq!(m.cycles, 19 + 2 + 2 + 9);
    assert_eq!(m.r[13], STACK_TOP - 32, "single frame");
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc, m.r[6]), (0, CODE + 10, 6));
    assert_eq!(m.cycles, 32 + 1 + 2 + 13);
}

// ------------------------------------------------------------------ masking and SVC

#[test]
fn primask_blocks_until_cpsie() {
    let mut m = boot(&[cpsid(), str_imm(1, 0, 0), nop(), nop(), cpsie(), nop()]);
    enable_irq(&mut m, 7);
    m.r[0] = NVIC_ISPR;
    m.r[1] = 1 << 7;
    step(&mut m, 4);
    assert_eq!((m.ipsr, m.pc), (0, CODE + 8));
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 1 << 7, "still pending");
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(7));
    assert_eq!(frame(&m, m.r[13])[6], CODE + 10);
    assert_eq!(m.cycles, 1 + 2 + 1 + 1 + 1 + 15);
}

#[test]
fn disabled_irq_stays_pending() {
    let mut m = boot(&[nop(), nop()]);
    pend_irq(&mut m, 4);
    step(&mut m, 2);
    assert_eq!(m.ipsr, 0);
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 1 << 4);
    enable_irq(&mut m, 4);
    step(&mut m, 0);
    assert_eq!(m.ipsr, irq(4));
}

#[test]
fn svc_entry() {
    let mut m = boot(&[movs(0, 1), svc(0x42), movs(1, 1)]);
    load(&mut m, handler(SVCALL), &[bx(14)]);
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc, m.r[14]), (SVCALL, handler(SVCALL), 0xFFFF_FFF9));
    assert_eq!(m.cycles, 1 + 15);
    assert_eq!(frame(&m, m.r[13])[6], CODE + 4, "SVC returns to the next instruction");
    assert_eq!(m.peek8(frame(&m, m.r[13])[6] - 2), Some(0x42), "immediate readable from the stacked PC");
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.r[1]), (0, 1));
}

#[test]
fn svc_with_primask_escalates_to_hardfault() {
    let mut m = boot(&[cpsid(), svc(1)]);
    step(&mut m, 1);
    step1(&mut m);
    assert_eq!(m.last_fault, Some((FaultKind::SvcEscalation, CODE + 2)));
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(m.cycles, 1 + 15);
}

#[test]
fn svc_in_handler_of_same_priority_escalates() {
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[svc(0)]);
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step1(&mut m);
    assert_eq!(m.last_fault, Some((FaultKind::SvcEscalation, handler(PENDSV))));
    assert_eq!((m.ipsr, m.r[14]), (HARDFAULT, 0xFFFF_FFF1));
}

#[test]
fn svc_in_lower_priority_handler_nests() {
    // PendSV at priority 3 (0xC0), SVC at 0: SVC preempts.
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[svc(0), movs(3, 3)]);
    load(&mut m, handler(SVCALL), &[bx(14)]);
    m.write32(SCB_SHPR3, 0x00C0_0000).unwrap();
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.r[14]), (SVCALL, 0xFFFF_FFF1));
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.r[3]), (PENDSV, 3));
}

#[test]
fn fault_with_primask_set_still_enters_hardfault() {
    let mut m = boot(&[cpsid(), udf(0)]);
    step(&mut m, 1);
    step1(&mut m);
    assert_hardfault(&m, FaultKind::Undefined, CODE + 2, CODE + 2);
    assert!(m.primask);
}

#[test]
fn hardfault_in_hardfault_locks_up() {
    let mut m = boot(&[udf(0)]);
    load(&mut m, handler(HARDFAULT), &[nop(), udf(1)]);
    let stop = m.run(10);
    assert_eq!(stop, Stop::Lockup { kind: FaultKind::Undefined, pc: handler(HARDFAULT) + 2, ipsr: HARDFAULT });
    assert_eq!(m.last_fault, Some((FaultKind::Undefined, CODE)), "the first fault is the one recorded");
}

#[test]
fn svc_in_hardfault_locks_up_at_the_svc() {
    // The lockup is reported at the SVC, not at the instruction after it (which may belong
    // to the next function, and would name it in the report).
    let mut m = boot(&[udf(0)]);
    load(&mut m, handler(HARDFAULT), &[nop(), svc(3), nop()]);
    let stop = m.run(10);
    let svc_at = handler(HARDFAULT) + 2;
    assert_eq!(stop, Stop::Lockup { kind: FaultKind::SvcEscalation, pc: svc_at, ipsr: HARDFAULT });
    assert_eq!(m.pc, svc_at);
    assert_eq!(m.last_fault, Some((FaultKind::Undefined, CODE)), "the first fault is the one recorded");
}

#[test]
fn bus_fault_in_hardfault_locks_up() {
    let mut m = boot(&[udf(0)]);
    load(&mut m, handler(HARDFAULT), &[ldr_imm(0, 0, 0)]);
    m.r[0] = 0x6000_0000;
    let stop = m.run(10);
    assert_eq!(stop, Stop::Lockup { kind: FaultKind::BusError(0x6000_0000), pc: handler(HARDFAULT), ipsr: HARDFAULT });
}

#[test]
fn nmi_is_taken_through_primask_and_faults_in_it_lock_up() {
    let mut m = boot(&[cpsid(), str_imm(1, 0, 0), nop()]);
    load(&mut m, handler(NMI), &[movs(2, 2), udf(0)]);
    m.r[0] = SCB_ICSR;
    m.r[1] = 1 << 31; // NMIPENDSET
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc), (NMI, handler(NMI)));
    assert_eq!(m.cycles, 1 + 2 + 15);
    let stop = m.run(5);
    assert_eq!(stop, Stop::Lockup { kind: FaultKind::Undefined, pc: handler(NMI) + 2, ipsr: NMI });
    assert_eq!(m.r[2], 2);
}

#[test]
fn even_reset_vector_is_invstate() {
    let mut m = new_machine();
    load_words(&mut m, 4, &[CODE]);
    load(&mut m, CODE, &[nop()]);
    m.reset();
    step(&mut m, 0);
    assert_hardfault(&m, FaultKind::InvalidState, CODE, CODE);
}

#[test]
fn even_handler_vector_is_invstate_in_handler() {
    let mut m = boot(&[nop()]);
    set_vector(&mut m, PENDSV, handler(PENDSV));
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0); // PendSV entry; the INVSTATE is raised at the next boundary
    assert_eq!(m.ipsr, PENDSV);
    step(&mut m, 0);
    assert_eq!(m.last_fault, Some((FaultKind::InvalidState, handler(PENDSV))));
    assert_eq!((m.ipsr, m.r[14]), (HARDFAULT, 0xFFFF_FFF1));
    assert_eq!(frame(&m, m.r[13])[7] & 0x1ff, PENDSV);
}

#[test]
// Regression: only BX and POP {pc} perform exception returns; BLX (BLXWritePC) never does.
fn blx_with_exc_return_value_is_not_an_exception_return() {
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[blx(0)]);
    m.r[0] = 0xFFFF_FFF9;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step1(&mut m);
    assert_eq!(m.r[14], (handler(PENDSV) + 2) | 1);
    assert_eq!(m.pc, 0xFFFF_FFF8);
    assert_eq!(m.ipsr, PENDSV, "still in the handler");
    step1(&mut m);
    assert_eq!(m.last_fault, Some((FaultKind::NoExecute(0xFFFF_FFF8), 0xFFFF_FFF8)));
}

// ------------------------------------------------------------------ NVIC registers

#[test]
fn nvic_enable_registers() {
    let mut m = boot(&[]);
    m.write32(NVIC_ISER, 0x8000_0005).unwrap();
    m.write32(NVIC_ISER, 0x0000_0100).unwrap();
    assert_eq!(m.read32(NVIC_ISER).unwrap(), 0x8000_0105, "ISER write-1-to-set");
    assert_eq!(m.read32(NVIC_ICER).unwrap(), 0x8000_0105, "ICER reads the enables too");
    m.write32(NVIC_ICER, 0x0000_0101).unwrap();
    assert_eq!(m.read32(NVIC_ISER).unwrap(), 0x8000_0004, "ICER write-1-to-clear");
    m.write32(NVIC_ISER, 0).unwrap();
    m.write32(NVIC_ICER, 0).unwrap();
    assert_eq!(m.read32(NVIC_ISER).unwrap(), 0x8000_0004, "zeros have no effect");
}

#[test]
fn nvic_pending_registers() {
    let mut m = boot(&[]);
    m.write32(NVIC_ISPR, 0x0000_0300).unwrap();
    m.write32(NVIC_ISPR, 0x4000_0000).unwrap();
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 0x4000_0300);
    assert_eq!(m.read32(NVIC_ICPR).unwrap(), 0x4000_0300);
    m.write32(NVIC_ICPR, 0x4000_0100).unwrap();
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 0x0000_0200);
}

#[test]
fn nvic_priority_registers_keep_two_bits() {
    let mut m = boot(&[]);
    for i in 0..8 {
        m.write32(NVIC_IPR0 + 4 * i, 0xFFFF_FFFF).unwrap();
        assert_eq!(m.read32(NVIC_IPR0 + 4 * i).unwrap(), 0xC0C0_C0C0, "IPR{i}");
    }
    m.write32(NVIC_IPR0 + 8, 0x7F3F_BF40).unwrap();
    assert_eq!(m.read32(NVIC_IPR0 + 8).unwrap(), 0x4000_8040);
    // Past IPR7 (32 interrupts) nothing is implemented.
    assert_eq!(m.read32(NVIC_IPR0 + 0x20), Err(FaultKind::BusError(NVIC_IPR0 + 0x20)));
}

#[test]
fn nvic_registers_through_instructions() {
    // STR r1,[r0] (ISER) ; LDR r2,[r0] ; STR r1,[r3] (IPR0) ; LDR r4,[r3]
    let code = [str_imm(1, 0, 0), ldr_imm(2, 0, 0), str_imm(5, 3, 0), ldr_imm(4, 3, 0)];
    let m = exec(&code, &[(0, NVIC_ISER), (1, 0x0000_00F0), (3, NVIC_IPR0), (5, 0xFFFF_FFFF)], 0, 4);
    assert_eq!(m.r[2], 0xF0);
    assert_eq!(m.r[4], 0xC0C0_C0C0);
    assert_eq!(m.cycles, 8);
}

#[test]
fn irq_priorities_order_preemption() {
    // IRQ0 at 0xC0 running; IRQ1 at 0x80 preempts it; IRQ2 at 0xC0 does not.
    let mut m = boot(&[nop()]);
    load(
        &mut m,
        handler(irq(0)),
        &[str_imm(1, 0, 0), str_imm(2, 0, 0), b_to(handler(irq(0)) + 4, handler(irq(0)) + 4)],
    );
    load(&mut m, handler(irq(1)), &[bx(14)]);
    m.write32(NVIC_IPR0, 0x00C0_80C0).unwrap();
    m.write32(NVIC_ISER, 7).unwrap();
    pend_irq(&mut m, 0);
    m.r[0] = NVIC_ISPR;
    m.r[1] = 1 << 2;
    m.r[2] = 1 << 1;
    step(&mut m, 0);
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(0), "IRQ2 has the same priority");
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(1), "IRQ1 preempts");
    step(&mut m, 1);
    assert_eq!(m.ipsr, irq(0), "IRQ2 cannot tail-chain past active IRQ0");
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 1 << 2);
}

// ------------------------------------------------------------------ SCB registers

#[test]
fn scb_identification_and_fixed_registers() {
    let mut m = boot(&[]);
    assert_eq!(m.read32(SCB_CPUID).unwrap(), 0x410C_C601);
    assert_eq!(m.read32(SCB_CCR).unwrap(), 0x0000_0208);
    assert_eq!(m.read32(SCB_AIRCR).unwrap(), 0xFA05_0000);
    assert_eq!(m.read32(SCB_VTOR).unwrap(), 0);
    assert_eq!(m.read32(SCB_ICSR).unwrap(), 0);
}

#[test]
fn scb_system_handler_priorities() {
    let mut m = boot(&[]);
    m.write32(SCB_SHPR2, 0xFFFF_FFFF).unwrap();
    m.write32(SCB_SHPR3, 0xFFFF_FFFF).unwrap();
    assert_eq!(m.read32(SCB_SHPR2).unwrap(), 0xC000_0000);
    assert_eq!(m.read32(SCB_SHPR3).unwrap(), 0xC0C0_0000);
    m.write32(SCB_SHPR3, 0x4080_0000).unwrap();
    assert_eq!(m.read32(SCB_SHPR3).unwrap(), 0x4080_0000);
}

#[test]
fn scb_scr_and_vtor_masks() {
    let mut m = boot(&[]);
    m.write32(SCB_SCR, 0xFFFF_FFFF).unwrap();
    assert_eq!(m.read32(SCB_SCR).unwrap(), 0x16);
    m.write32(SCB_VTOR, 0x2000_01FF).unwrap();
    assert_eq!(m.read32(SCB_VTOR).unwrap(), 0x2000_0180);
}

#[test]
fn icsr_pendsv_set_clear_and_vectpending() {
    let mut m = boot(&[nop()]);
    m.primask = true;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    assert_eq!(m.read32(SCB_ICSR).unwrap(), (1 << 28) | (PENDSV << 12));
    m.write32(SCB_ICSR, 1 << 26).unwrap(); // PENDSTSET
                                           // Both priority 0: the lower exception number (PendSV 14) is reported.
    assert_eq!(m.read32(SCB_ICSR).unwrap(), (1 << 28) | (1 << 26) | (PENDSV << 12));
    m.write32(SCB_ICSR, 1 << 27).unwrap(); // PENDSVCLR
    assert_eq!(m.read32(SCB_ICSR).unwrap(), (1 << 26) | (SYSTICK << 12));
    m.write32(SCB_ICSR, 1 << 25).unwrap(); // PENDSTCLR
    assert_eq!(m.read32(SCB_ICSR).unwrap(), 0);
    // An enabled pending IRQ sets ISRPENDING and VECTPENDING.
    enable_irq(&mut m, 6);
    pend_irq(&mut m, 6);
    assert_eq!(m.read32(SCB_ICSR).unwrap(), (1 << 22) | (irq(6) << 12));
    // Unmasked: the IRQ is taken and VECTACTIVE shows it.
    m.primask = false;
    step(&mut m, 0);
    assert_eq!(m.ipsr, irq(6));
    assert_eq!(m.read32(SCB_ICSR).unwrap(), irq(6));
}

#[test]
fn pendsv_is_taken_after_the_store_that_sets_it() {
    let mut m = boot(&[str_imm(1, 0, 0), nop()]);
    m.r[0] = SCB_ICSR;
    m.r[1] = 1 << 28;
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.cycles), (PENDSV, 2 + 15));
    assert_eq!(frame(&m, m.r[13])[6], CODE + 2);
}

#[test]
fn vtor_relocates_the_vector_table() {
    let table = 0x2000_0400;
    let h = 0x2000_0800;
    let mut m = boot(&[str_imm(1, 0, 0), str_imm(3, 2, 0), nop()]);
    let mut vt = vec![0u32; 48];
    vt[PENDSV as usize] = h | 1;
    load_words(&mut m, table, &vt);
    load(&mut m, h, &[movs(6, 42), bx(14)]);
    for (i, v) in [(0, SCB_VTOR), (1, table), (2, SCB_ICSR), (3, 1 << 28)] {
        m.r[i] = v;
    }
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.pc), (PENDSV, h));
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.r[6]), (0, 42));
}

#[test]
fn aircr_without_key_is_ignored() {
    let mut m = boot(&[str_imm(1, 0, 0), movs(2, 2)]);
    m.r[0] = SCB_AIRCR;
    m.r[1] = 0x0000_0004;
    m.r[3] = 0x33;
    step(&mut m, 2);
    assert_eq!((m.r[2], m.r[3], m.pc), (2, 0x33, CODE + 4));
}

#[test]
// Regression: SYSRESETREQ must restart at the reset vector, not continue after the STR.
fn aircr_sysresetreq_resets() {
    let mut m = boot(&[movs(5, 5), str_imm(1, 0, 0), movs(2, 2)]);
    m.r[0] = SCB_AIRCR;
    m.r[1] = 0x05FA_0004;
    m.r[13] = STACK_TOP - 0x100;
    m.write32(SCB_VTOR, 0x2000_0000).unwrap();
    step(&mut m, 2);
    assert_eq!(m.pc, CODE, "restarted at the reset vector");
    assert_eq!(m.r[13], STACK_TOP, "SP reloaded");
    assert_eq!((m.r[0], m.r[1], m.r[5], m.r[14]), (0, 0, 0, 0xFFFF_FFFF));
    assert_eq!(m.vtor, 0);
    step(&mut m, 1);
    assert_eq!(m.r[5], 5, "first instruction runs again");
}

#[test]
// Regression: SYSRESETREQ from a handler leaves Handler mode and clears exception state.
fn aircr_sysresetreq_from_handler_resets() {
    let mut m = boot(&[nop(), nop()]);
    load(&mut m, handler(PENDSV), &[str_imm(1, 0, 0), movs(2, 2)]);
    m.r[0] = SCB_AIRCR;
    m.r[1] = 0x05FA_0004;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step(&mut m, 1);
    assert_eq!((m.pc, m.ipsr, m.r[13]), (CODE, 0, STACK_TOP));
    assert_eq!(m.read32(SCB_ICSR).unwrap(), 0, "no active or pending exception");
}

#[test]
// Regression (matches QEMU): an escalated SVC stacks the next instruction, like SVCall.
fn escalated_svc_stacks_next_instruction() {
    let mut m = boot(&[cpsid(), svc(1), nop()]);
    step(&mut m, 1);
    step1(&mut m);
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(frame(&m, m.r[13])[6], CODE + 4);
}

#[test]
fn exception_return_to_frame_without_t_bit_is_invstate() {
    // PendSV handler clears T in the stacked xPSR, then returns: INVSTATE at the return address.
    let mut m = boot(&[nop(), nop()]);
    // LDR r1,[sp,#28] ; BICS r1,r2 ; STR r1,[sp,#28] ; BX lr
    load(&mut m, handler(PENDSV), &[ldr_sp(1, 28), bics(1, 2), str_sp(1, 28), bx(14)]);
    m.r[2] = 1 << 24;
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    step(&mut m, 4);
    assert_eq!(m.last_fault, Some((FaultKind::InvalidState, CODE)));
    assert_eq!(m.ipsr, HARDFAULT);
    assert_eq!(m.r[14], 0xFFFF_FFF9, "the fault is taken from Thread mode");
    let f = frame(&m, m.r[13]);
    assert_eq!((f[6], f[7]), (CODE, 0), "stacked PC is the return address, T = 0");
}

#[test]
fn systick_priority_from_shpr3_preempts_pendsv() {
    // PendSV at 0xC0; SysTick at 0x40 pended inside the PendSV handler preempts it.
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[str_imm(1, 0, 0), movs(4, 4), bx(14)]);
    load(&mut m, handler(SYSTICK), &[bx(14)]);
    m.write32(SCB_SHPR3, 0x40C0_0000).unwrap();
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    m.r[0] = SCB_ICSR;
    m.r[1] = 1 << 26; // PENDSTSET
    step(&mut m, 0);
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.r[14]), (SYSTICK, 0xFFFF_FFF1));
    // Reversed priorities: no preemption.
    let mut m = boot(&[nop()]);
    load(&mut m, handler(PENDSV), &[str_imm(1, 0, 0), movs(4, 4), bx(14)]);
    m.write32(SCB_SHPR3, 0xC040_0000).unwrap();
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    m.r[0] = SCB_ICSR;
    m.r[1] = 1 << 26;
    step(&mut m, 0);
    step(&mut m, 2);
    assert_eq!((m.ipsr, m.r[4]), (PENDSV, 4));
    step(&mut m, 1);
    assert_eq!(m.ipsr, SYSTICK, "tail-chained");
}

#[test]
fn all_flag_combinations_survive_exception_entry_and_return() {
    for f in 0..16 {
        let mut m = boot(&[nop()]);
        let mut h = mrs(0, SYSM_APSR).to_vec();
        h.extend_from_slice(&[movs(1, 0), bx(14)]); // MOVS clobbers N and Z in the handler
        load(&mut m, handler(PENDSV), &h);
        m.set_apsr(apsr(f));
        m.write32(SCB_ICSR, 1 << 28).unwrap();
        step(&mut m, 0);
        assert_eq!(frame(&m, m.r[13])[7], apsr(f) | 0x0100_0000, "stacked xPSR for nzcv {f:04b}");
        step(&mut m, 1);
        assert_eq!(m.r[0], apsr(f), "flags unchanged by entry");
        step(&mut m, 2);
        assert_eq!(flags(&m), f, "flags restored for nzcv {f:04b}");
        assert_eq!(m.r[0], 0, "r0 restored from the frame");
    }
}
