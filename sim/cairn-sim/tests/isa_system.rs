//! System instructions: MRS/MSR of every ARMv6-M special register, CPSID/CPSIE, barriers,
//! hints, WFE/SEV, privilege (CONTROL.nPRIV), BKPT, and undefined encodings.

mod common;
use cairn_sim::machine::FaultKind;
use cairn_sim::Stop;
use common::*;

fn code32(parts: &[&[u16]]) -> Vec<u16> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

#[test]
fn mrs_psr_variants_in_thread_mode() {
    let code = code32(&[
        &mrs(0, SYSM_APSR),
        &mrs(1, SYSM_IAPSR),
        &mrs(2, SYSM_EAPSR),
        &mrs(3, SYSM_XPSR),
        &mrs(4, SYSM_IPSR),
        &mrs(5, SYSM_EPSR),
        &mrs(6, SYSM_IEPSR),
    ]);
    let m = exec(&code, &[(4, 0xdead), (5, 0xdead), (6, 0xdead)], N | C, 7);
    assert_eq!(m.r[0], 0xA000_0000);
    assert_eq!(m.r[1], 0xA000_0000);
    assert_eq!(m.r[2], 0xA000_0000, "EPSR reads as zero");
    assert_eq!(m.r[3], 0xA000_0000);
    assert_eq!((m.r[4], m.r[5], m.r[6]), (0, 0, 0));
    assert_eq!(m.cycles, 7 * 3);
    assert_eq!(m.pc, CODE + 28);
    assert_eq!(flags(&m), N | C);
}

#[test]
fn mrs_psr_variants_in_handler_mode() {
    let mut m = boot(&[nop()]);
    let h = handler(PENDSV);
    let code =
        code32(&[&mrs(0, SYSM_IPSR), &mrs(1, SYSM_XPSR), &mrs(2, SYSM_APSR), &mrs(3, SYSM_IEPSR), &mrs(4, SYSM_EPSR)]);
    load(&mut m, h, &code);
    m.set_apsr(apsr(Z | V));
    m.write32(SCB_ICSR, 1 << 28).unwrap(); // PENDSVSET
    step(&mut m, 0); // PendSV is taken before the first instruction
    assert_eq!((m.ipsr, m.pc), (PENDSV, h));
    step(&mut m, 5);
    assert_eq!(m.r[0], 14);
    assert_eq!(m.r[1], 0x5000_000E);
    assert_eq!(m.r[2], 0x5000_0000);
    assert_eq!(m.r[3], 14);
    assert_eq!(m.r[4], 0);
}

#[test]
fn msr_apsr_writes_flags_only() {
    let code = code32(&[&msr(SYSM_APSR, 0), &msr(SYSM_XPSR, 1)]);
    let mut m = exec(&code, &[(0, 0xF000_0000), (1, 0x5FFF_FFFF)], 0, 1);
    assert_eq!(flags(&m), N | Z | C | V);
    assert_eq!((m.cycles, m.pc, m.ipsr), (3, CODE + 4, 0));
    step(&mut m, 1);
    assert_eq!(flags(&m), Z | V);
    assert_eq!(m.ipsr, 0, "IPSR is read-only");
    assert_eq!(m.cycles, 6);
}

#[test]
fn msr_mrs_msp_and_psp() {
    let code = code32(&[&msr(SYSM_PSP, 0), &mrs(1, SYSM_PSP), &msr(SYSM_MSP, 2), &mrs(3, SYSM_MSP), &[mov_hi(4, 13)]]);
    let m = exec(&code, &[(0, 0x2000_3007), (2, 0x2000_5003)], 0, 5);
    assert_eq!(m.r[1], 0x2000_3004, "PSP bits [1:0] are zero");
    assert_eq!(m.r[3], 0x2000_5000);
    assert_eq!(m.r[4], 0x2000_5000, "SP is the MSP in Thread mode with SPSEL=0");
    assert_eq!(m.psp(), 0x2000_3004);
    assert_eq!(m.cycles, 4 * 3 + 1);
}

#[test]
fn control_spsel_switches_stack_pointer() {
    // MSR PSP,r0 ; MSR CONTROL,r1(=2) ; PUSH {r2} ; MRS r3,CONTROL ; MRS r4,MSP ; MRS r5,PSP ;
    // MSR CONTROL,r6(=0) ; MOV r7,sp
    let code = code32(&[
        &msr(SYSM_PSP, 0),
        &msr(SYSM_CONTROL, 1),
        &[push(0b100, false)],
        &mrs(3, SYSM_CONTROL),
        &mrs(4, SYSM_MSP),
        &mrs(5, SYSM_PSP),
        &msr(SYSM_CONTROL, 6),
        &[mov_hi(7, 13)],
    ]);
    let psp = 0x2000_4000;
    let m = exec(&code, &[(0, psp), (1, 2), (2, 0x2222), (6, 0)], 0, 8);
    assert_eq!(m.peek32(psp - 4), Some(0x2222), "PUSH went to the PSP");
    assert_eq!(m.r[3], 2);
    assert_eq!(m.r[4], STACK_TOP);
    assert_eq!(m.r[5], psp - 4);
    assert_eq!(m.r[7], STACK_TOP, "back on the MSP");
    assert_eq!(m.psp(), psp - 4);
    assert!(!m.spsel);
}

#[test]
fn primask_via_msr_and_cps() {
    let code = code32(&[
        &[cpsid()],
        &mrs(0, SYSM_PRIMASK),
        &[cpsie()],
        &mrs(1, SYSM_PRIMASK),
        &msr(SYSM_PRIMASK, 2),
        &mrs(3, SYSM_PRIMASK),
        &msr(SYSM_PRIMASK, 4),
        &mrs(5, SYSM_PRIMASK),
    ]);
    let m = exec(&code, &[(2, 0xffff_ffff), (4, 0xffff_fffe)], C, 8);
    assert_eq!((m.r[0], m.r[1], m.r[3], m.r[5]), (1, 0, 1, 0));
    assert_eq!(m.cycles, 1 + 3 + 1 + 3 + 3 + 3 + 3 + 3);
    assert_eq!(flags(&m), C);
}

#[test]
fn barriers_take_three_cycles() {
    let code = code32(&[&dsb(), &dmb(), &isb(), &[movs(0, 1)]]);
    let m = exec(&code, &[], 0, 4);
    assert_eq!((m.pc, m.cycles, m.r[0]), (CODE + 14, 10, 1));
}

#[test]
fn hints_are_one_cycle() {
    // NOP, YIELD, SEV, and an unallocated hint (0xBF50) behave as NOPs.
    let m = exec(&[nop(), yield_(), sev(), 0xBF50, 0xBFF0], &[], Z, 5);
    assert_eq!((m.pc, m.cycles), (CODE + 10, 5));
    assert!(m.event_reg, "SEV sets the event register");
    assert_eq!(flags(&m), Z);
}

#[test]
fn wfe_consumes_event_then_sleeps() {
    let mut m = boot(&[sev(), wfe(), wfe(), movs(0, 1)]);
    step(&mut m, 2);
    assert!(!m.sleeping && !m.event_reg, "WFE with the event set clears it without sleeping");
    assert_eq!((m.pc, m.cycles), (CODE + 4, 3));
    assert_eq!(m.run(1), Stop::SleepForever, "nothing can wake the second WFE");
    assert!(m.sleeping);
    assert_eq!(m.r[0], 0);
}

#[test]
fn wfi_with_nothing_enabled_sleeps_forever() {
    let mut m = boot(&[wfi(), movs(0, 1)]);
    assert_eq!(m.run(5), Stop::SleepForever);
    assert_eq!((m.pc, m.cycles, m.r[0]), (CODE + 2, 2, 0));
}

#[test]
fn wfi_with_masked_pending_interrupt_does_not_sleep() {
    // PRIMASK=1 and an enabled IRQ pending: WFI completes (wakes) but the IRQ is not taken.
    let mut m = boot(&[wfi(), movs(0, 1)]);
    m.primask = true;
    m.write32(NVIC_ISER, 1).unwrap();
    m.write32(NVIC_ISPR, 1).unwrap();
    step(&mut m, 2);
    assert_eq!((m.r[0], m.ipsr, m.cycles, m.sleep_cycles), (1, 0, 3, 0));
}

// ------------------------------------------------------------------ undefined encodings

fn expect_undefined(code: &[u16]) {
    let mut m = boot(code);
    m.r[0] = 0x1234;
    step1(&mut m);
    assert_hardfault(&m, FaultKind::Undefined, CODE, CODE);
    assert_eq!(m.cycles, 15, "{code:04x?}");
    assert_eq!(m.instructions, 0);
    assert_eq!(frame(&m, m.r[13])[0], 0x1234);
}

#[test]
fn udf_faults() {
    expect_undefined(&[udf(0)]);
    expect_undefined(&[udf(0xff)]);
    expect_undefined(&[0xF7F0, 0xA000]); // UDF.W
}

#[test]
fn thumb2_only_encodings_fault() {
    for code in [
        &[0xE800u16, 0x0000][..], // 32-bit space, not in ARMv6-M
        &[0xE92D, 0x4FF0],        // PUSH.W (STMDB)
        &[0xF000, 0x0000],        // AND.W with immediate
        &[0xFB00, 0xF000],        // MUL.W
        &[0xF8D0, 0x0000],        // LDR.W
        &[0xF3BF, 0x8F2F],        // CLREX
        &[0xF3BF, 0x8F7F],        // unallocated barrier option
        &[0xBF08],                // IT EQ
        &[0xBF18],                // IT NE
        &[0xB100],                // CBZ r0
        &[0xB900],                // CBNZ r0
        &[0xBA80],                // unallocated REV form (HLT in ARMv8-M)
        &[0xB650],                // SETEND
        &[0xB640],                // unallocated CPS form
    ] {
        expect_undefined(code);
    }
}

#[test]
fn bkpt_without_debugger_is_a_hardfault() {
    let mut m = boot(&[bkpt(1)]);
    step1(&mut m);
    assert_eq!(m.cycles, 15);
    assert_hardfault(&m, FaultKind::Breakpoint, CODE, CODE);
}

// ------------------------------------------------------------------ privilege

#[test]
fn unprivileged_thread_cannot_change_privileged_state() {
    // MSR CONTROL,r0(=1) ; CPSID i ; MSR PRIMASK,r1(=1) ; MSR MSP,r2 ; MSR CONTROL,r3(=0) ;
    // MRS r4,CONTROL ; MSR APSR,r5 (allowed)
    let code = code32(&[
        &msr(SYSM_CONTROL, 0),
        &[cpsid()],
        &msr(SYSM_PRIMASK, 1),
        &msr(SYSM_MSP, 2),
        &msr(SYSM_CONTROL, 3),
        &mrs(4, SYSM_CONTROL),
        &msr(SYSM_APSR, 5),
    ]);
    let m = exec(&code, &[(0, 1), (1, 1), (2, 0x2000_1000), (3, 0), (5, 0x8000_0000)], 0, 7);
    assert!(!m.primask);
    assert_eq!(m.msp(), STACK_TOP);
    assert_eq!(m.r[4], 1, "still unprivileged");
    assert!(m.npriv);
    assert_eq!(flags(&m), N);
    assert_eq!(m.ipsr, 0);
}

#[test]
fn unprivileged_system_space_access_faults() {
    let mut m = boot(&[ldr_imm(1, 0, 0)]);
    m.npriv = true;
    m.r[0] = SCB_ICSR;
    step1(&mut m);
    assert_hardfault(&m, FaultKind::BusError(SCB_ICSR), CODE, CODE);
    // APB devices stay accessible
    let mut m = boot(&[ldr_imm(1, 0, 0)]);
    m.npriv = true;
    m.r[0] = 0x4000_0000;
    m.r[1] = 0xdead;
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.r[1]), (0, 0));
}

/// Unprivileged thread: SVC #0; the SVC handler runs `handler_code`, then BX LR.
fn unprivileged_svc(handler_code: &[u16], regs: &[(usize, u32)]) -> cairn_sim::Machine {
    let mut m = boot(&[svc(0), mrs(4, SYSM_CONTROL)[0], mrs(4, SYSM_CONTROL)[1], b_to(CODE + 6, CODE + 6)]);
    let mut h = handler_code.to_vec();
    h.push(bx(14));
    load(&mut m, handler(SVCALL), &h);
    m.npriv = true;
    for &(i, v) in regs {
        m.r[i] = v;
    }
    m
}

#[test]
// Regression: Handler mode is privileged even when CONTROL.nPRIV = 1 (MSR CONTROL in a handler).
fn svc_handler_can_make_thread_privileged() {
    // The canonical RTOS pattern: SVC handler clears CONTROL.nPRIV.
    let code = code32(&[&msr(SYSM_CONTROL, 0)]);
    let mut m = unprivileged_svc(&code, &[(0, 0)]);
    step(&mut m, 1 + 2 + 1);
    assert_eq!(m.ipsr, 0, "back in Thread mode");
    assert_eq!(m.r[4], 0, "CONTROL.nPRIV cleared by the handler");
}

#[test]
// Regression: a handler may access NVIC/SCB even when the thread is unprivileged.
fn handler_is_privileged_for_system_space() {
    // SVC handler pends PendSV through ICSR (what every RTOS does).
    let mut m = unprivileged_svc(&[str_imm(1, 0, 0)], &[(0, SCB_ICSR), (1, 1 << 28)]);
    step(&mut m, 3); // SVC, STR, BX LR
    assert_eq!(m.last_fault, None);
    assert_eq!(m.ipsr, PENDSV, "PendSV tail-chained after the SVC handler");
}

#[test]
// Regression: CPSID in Handler mode works when CONTROL.nPRIV = 1.
fn handler_cpsid_works_when_thread_unprivileged() {
    let mut m = unprivileged_svc(&[cpsid()], &[]);
    step(&mut m, 2);
    assert!(m.primask);
}

#[test]
fn svc_from_unprivileged_thread_enters_privileged_handler() {
    let mut m = unprivileged_svc(&[movs(5, 5)], &[]);
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.pc), (SVCALL, handler(SVCALL)));
    step(&mut m, 3);
    assert_eq!(m.ipsr, 0);
    assert_eq!(m.r[5], 5);
    assert_eq!(m.r[4], 1, "CONTROL.nPRIV is unchanged by an exception");
}
