//! Cycle accounting: per-instruction costs (Cortex-M0+ TRM table 3-1), flash wait states,
//! configurable exception timing, SysTick period / COUNTFLAG / CVR, WFI sleep accounting,
//! SLEEPONEXIT, and a CMSDK timer interrupt waking WFI.

mod common;
use cairn_sim::Machine;
use common::*;

/// Cycles taken by the first instruction of `code` with the given registers and flags.
fn cost(code: &[u16], regs: &[(usize, u32)], nzcv: u32) -> u64 {
    let mut m = boot(code);
    for &(i, v) in regs {
        m.r[i] = v;
    }
    m.set_apsr(apsr(nzcv));
    step1(&mut m);
    assert_eq!(m.ipsr, 0, "no exception for {code:04x?}");
    m.cycles
}

#[test]
fn instruction_costs() {
    let d = DATA;
    type Row<'a> = (&'a str, Vec<u16>, &'a [(usize, u32)], u32, u64);
    let table: &[Row] = &[
        ("MOVS imm", vec![movs(0, 1)], &[], 0, 1),
        ("ADDS reg", vec![adds_reg(0, 1, 2)], &[], 0, 1),
        ("ADD hi", vec![add_hi(8, 1)], &[], 0, 1),
        ("MOV hi", vec![mov_hi(8, 1)], &[], 0, 1),
        ("CMP hi", vec![cmp_hi(8, 1)], &[], 0, 1),
        ("ADCS", vec![adcs(0, 1)], &[], 0, 1),
        ("RSBS", vec![rsbs(0, 1)], &[], 0, 1),
        ("RORS", vec![rors(0, 1)], &[], 0, 1),
        ("MULS", vec![muls(0, 1)], &[], 0, 1),
        ("ADR", vec![adr(0, 4)], &[], 0, 1),
        ("ADD SP imm", vec![add_sp(8)], &[], 0, 1),
        ("SUB SP imm", vec![sub_sp(8)], &[], 0, 1),
        ("ADD rd,SP", vec![add_rd_sp(0, 8)], &[], 0, 1),
        ("SXTB", vec![sxtb(0, 1)], &[], 0, 1),
        ("REV", vec![rev(0, 1)], &[], 0, 1),
        ("LDR imm", vec![ldr_imm(0, 1, 0)], &[(1, d)], 0, 2),
        ("LDR reg", vec![ldr_reg(0, 1, 2)], &[(1, d)], 0, 2),
        ("LDR sp", vec![ldr_sp(0, 0)], &[], 0, 2),
        ("LDR lit", vec![ldr_lit(0, 0)], &[], 0, 2),
        ("LDRSB", vec![ldrsb_reg(0, 1, 2)], &[(1, d)], 0, 2),
        ("LDRH", vec![ldrh_imm(0, 1, 0)], &[(1, d)], 0, 2),
        ("STR", vec![str_imm(0, 1, 0)], &[(1, d)], 0, 2),
        ("STRB", vec![strb_reg(0, 1, 2)], &[(1, d)], 0, 2),
        ("STRH", vec![strh_imm(0, 1, 2)], &[(1, d)], 0, 2),
        ("STR sp", vec![str_sp(0, 0)], &[], 0, 2),
        ("LDM 1", vec![ldm(1, 0b1)], &[(1, d)], 0, 2),
        ("LDM 3", vec![ldm(1, 0b1101)], &[(1, d)], 0, 4),
        ("STM 8", vec![stm(0, 0xff)], &[(0, d)], 0, 9),
        ("PUSH 1", vec![push(0b1, false)], &[], 0, 2),
        ("PUSH 3+lr", vec![push(0b111, true)], &[], 0, 5),
        ("POP 2", vec![pop(0b11, false)], &[], 0, 3),
        ("B", vec![b_to(CODE, CODE + 8)], &[], 0, 2),
        ("Bcc taken", vec![bcond(EQ, CODE, CODE + 8)], &[], Z, 2),
        ("Bcc not taken", vec![bcond(EQ, CODE, CODE + 8)], &[], 0, 1),
        ("BL", bl(CODE, CODE + 0x100).to_vec(), &[], 0, 3),
        ("BX", vec![bx(1)], &[(1, CODE + 0x11)], 0, 2),
        ("BLX", vec![blx(1)], &[(1, CODE + 0x11)], 0, 2),
        ("MOV pc", vec![mov_hi(15, 1)], &[(1, CODE + 0x10)], 0, 2),
        ("ADD pc", vec![add_hi(15, 1)], &[(1, 0x10)], 0, 2),
        ("MRS", mrs(0, SYSM_MSP).to_vec(), &[], 0, 3),
        ("MSR", msr(SYSM_APSR, 0).to_vec(), &[], 0, 3),
        ("DSB", dsb().to_vec(), &[], 0, 3),
        ("DMB", dmb().to_vec(), &[], 0, 3),
        ("ISB", isb().to_vec(), &[], 0, 3),
        ("CPSID", vec![cpsid()], &[], 0, 1),
        ("CPSIE", vec![cpsie()], &[], 0, 1),
        ("NOP", vec![nop()], &[], 0, 1),
        ("SEV", vec![sev()], &[], 0, 1),
    ];
    for (name, code, regs, f, want) in table {
        assert_eq!(cost(code, regs, *f), *want, "{name}");
    }
}

#[test]
fn pop_pc_costs() {
    for (list, want) in [(0u8, 4u64), (0b1, 5), (0xff, 12)] {
        let mut m = boot(&[pop(list, true)]);
        m.r[13] = DATA;
        load_words(&mut m, DATA + 4 * list.count_ones(), &[CODE | 1]);
        step1(&mut m);
        assert_eq!((m.pc, m.cycles), (CODE, want), "POP {{{list:#b}, pc}}");
    }
}

// ------------------------------------------------------------------ flash wait states

fn ws_machine(w: u32, code: &[u16]) -> Machine {
    let mut c = cfg();
    c.flash_wait_states = w;
    boot_cfg(c, code)
}

#[test]
fn flash_wait_states_per_fetch_and_data_access() {
    let w = 2;
    type Row<'a> = (&'a str, Vec<u16>, &'a [(usize, u32)], u64);
    let table: &[Row] = &[
        ("NOP", vec![nop()], &[], 1 + w),
        ("LDR lit (fetch + data from flash)", vec![ldr_lit(0, 0)], &[], 2 + 2 * w),
        ("LDR from SRAM", vec![ldr_imm(0, 1, 0)], &[(1, DATA)], 2 + w),
        ("LDRB from flash", vec![ldrb_imm(0, 1, 0)], &[(1, 0x101)], 2 + 2 * w),
        ("LDRH from flash", vec![ldrh_imm(0, 1, 0)], &[(1, 0x102)], 2 + 2 * w),
        ("STR to SRAM", vec![str_imm(0, 1, 0)], &[(1, DATA)], 2 + w),
        ("LDM 2 words from flash", vec![ldm(1, 0b110)], &[(1, 0x100)], 3 + w + 2 * w),
        ("PUSH to SRAM", vec![push(0b11, true)], &[], 4 + w),
        ("BL (one fetch)", bl(CODE, CODE + 0x40).to_vec(), &[], 3 + w),
        ("MRS (one fetch)", mrs(0, SYSM_PSP).to_vec(), &[], 3 + w),
        ("MULS", vec![muls(0, 1)], &[], 1 + w),
    ];
    for (name, code, regs, want) in table {
        let mut m = ws_machine(w as u32, code);
        for &(i, v) in *regs {
            m.r[i] = v;
        }
        step1(&mut m);
        assert_eq!(m.cycles, *want, "{name}");
    }
}

#[test]
fn flash_wait_states_sequence_and_cache_hits() {
    // The second pass over the same (already decoded) code costs the same.
    let mut code = nops(3);
    code.push(b_to(CODE + 6, CODE));
    let mut m = ws_machine(3, &code);
    step(&mut m, 4);
    assert_eq!(m.cycles, 3 * 4 + (2 + 3));
    step(&mut m, 4);
    assert_eq!(m.cycles, 2 * (3 * 4 + 5));
}

#[test]
fn sram_code_has_no_wait_states() {
    // Code in SRAM with W = 2: NOP 1, LDR from SRAM 2, LDR from flash 2+W, BL 3.
    let base = 0x2000_0400;
    let mut c = cfg();
    c.flash_wait_states = 2;
    let mut m = with_config(c);
    let b = bl(base + 6, base + 0x40);
    load(&mut m, base, &[nop(), ldr_imm(0, 1, 0), ldr_imm(2, 3, 0), b[0], b[1]]);
    load_words(&mut m, 4, &[base | 1]);
    m.reset();
    m.r[1] = DATA;
    m.r[3] = 0;
    step(&mut m, 4);
    assert_eq!(m.pc, base + 0x40);
    assert_eq!(m.cycles, 1 + 2 + (2 + 2) + 3);
}

#[test]
fn exception_entry_with_wait_states_charges_handler_fetch() {
    let mut m = ws_machine(2, &[nop()]);
    load(&mut m, handler(PENDSV), &[nop(), bx(14)]);
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    let entered = m.cycles;
    step(&mut m, 2);
    // NOP (1+W) + BX (2+W) + exit 13
    assert_eq!(m.cycles - entered, 3 + 4 + 13);
}

#[test]
// Regression: the vector-table read on exception entry is a flash access and pays W.
fn exception_entry_vector_read_pays_wait_states() {
    let mut m = ws_machine(2, &[nop()]);
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    assert_eq!(m.cycles, 15 + 2);
}

// ------------------------------------------------------------------ configurable exception timing

#[test]
fn exception_timing_is_configurable() {
    let mut c = cfg();
    c.exceptions.entry = 20;
    c.exceptions.exit = 10;
    c.exceptions.tail_chain = 4;
    let mut m = boot_cfg(c, &[cpsie(), nop()]);
    load(&mut m, handler(irq(0)), &[bx(14)]);
    load(&mut m, handler(irq(1)), &[bx(14)]);
    m.primask = true;
    m.write32(NVIC_IPR0, 0x0000_4080).unwrap();
    m.write32(NVIC_ISER, 3).unwrap();
    m.write32(NVIC_ISPR, 3).unwrap();
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.cycles), (irq(1), 1 + 20));
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.cycles), (irq(0), 21 + 2 + 4));
    step(&mut m, 1);
    assert_eq!((m.ipsr, m.cycles), (0, 27 + 2 + 10));
}

// ------------------------------------------------------------------ SysTick

#[test]
fn systick_counter_values_and_countflag() {
    let mut m = boot(&nops(40));
    m.write32(SYST_RVR, 4).unwrap();
    m.write32(SYST_CVR, 123).unwrap(); // any write clears to 0
    assert_eq!(m.read32(SYST_CVR).unwrap(), 0);
    m.write32(SYST_CSR, 5).unwrap(); // ENABLE | CLKSOURCE(core), no TICKINT
    let mut values = Vec::new();
    let mut flags_seen = Vec::new();
    for _ in 0..12 {
        step(&mut m, 1);
        values.push(m.read32(SYST_CVR).unwrap());
        // Reading CSR returns and clears COUNTFLAG (bit 16).
        let csr = m.read32(SYST_CSR).unwrap();
        assert_eq!(csr & 0xffff, 5);
        flags_seen.push(csr >> 16);
    }
    // Cycle t = 1..=12: 0 reloads to 4 on the first tick, then 4,3,2,1,0,4,...
    assert_eq!(values, vec![4, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3]);
    assert_eq!(flags_seen, vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]);
    assert_eq!(m.ipsr, 0, "no TICKINT, no exception");
}

#[test]
fn systick_countflag_is_sticky_until_read() {
    let mut m = boot(&nops(40));
    m.write32(SYST_RVR, 2).unwrap();
    m.write32(SYST_CSR, 5).unwrap();
    step(&mut m, 20);
    assert_eq!(m.read32(SYST_CSR).unwrap(), 0x1_0005);
    assert_eq!(m.read32(SYST_CSR).unwrap(), 0x0_0005, "cleared by the read");
    step(&mut m, 3);
    m.write32(SYST_CVR, 0).unwrap();
    assert_eq!(m.read32(SYST_CSR).unwrap(), 0x0_0005, "cleared by a CVR write");
}

#[test]
fn systick_registers() {
    let mut m = boot(&[]);
    m.write32(SYST_RVR, 0xFFFF_FFFF).unwrap();
    assert_eq!(m.read32(SYST_RVR).unwrap(), 0x00FF_FFFF);
    // 1 MHz reference clock: TENMS = 9999, NOREF = 0, SKEW = 0.
    assert_eq!(m.read32(SYST_CALIB).unwrap(), 9999);
    m.write32(SYST_CSR, 0xFFFF_FFFF).unwrap();
    assert_eq!(m.read32(SYST_CSR).unwrap() & 0xffff, 7);
    m.write32(SYST_CSR, 0).unwrap();
    assert_eq!(m.read32(SYST_CSR).unwrap() & 0xffff, 0);
}

/// Thread: a long run of NOPs. SysTick handler: ADDS r7,#1 ; BX LR.
/// Returns the cycle counts at which the handler's first instruction was reached.
fn systick_entries(csr: u32, rvr: u32, count: usize) -> Vec<u64> {
    let mut m = boot(&nops(5000));
    load(&mut m, handler(SYSTICK), &[adds_imm8(7, 1), bx(14)]);
    m.write32(SYST_RVR, rvr).unwrap();
    m.write32(SYST_CVR, 0).unwrap();
    m.write32(SYST_CSR, csr).unwrap();
    let mut entries = Vec::new();
    while entries.len() < count {
        step(&mut m, 1);
        if m.pc == handler(SYSTICK) {
            entries.push(m.cycles);
        }
        assert!(m.cycles < 100_000);
    }
    assert_eq!(m.r[7] as usize, count - 1);
    entries
}

#[test]
fn systick_period_is_reload_plus_one_core_clock() {
    // RVR = 99, enabled at cycle 0: exceptions at 100, 200, 300, ... entered 15 cycles later.
    let e = systick_entries(7, 99, 5);
    assert_eq!(e, vec![115, 215, 315, 415, 515]);
}

#[test]
fn systick_period_with_small_reload() {
    // RVR = 40: period 41, longer than the handler round trip (15 + 3 + 13 = 31).
    let e = systick_entries(7, 40, 4);
    assert_eq!(e, vec![41 + 15, 82 + 15, 123 + 15, 164 + 15]);
}

#[test]
fn systick_period_reference_clock() {
    // CLKSOURCE = 0: 1 MHz reference, 25 core cycles per tick; RVR = 3 -> 100 cycles.
    let e = systick_entries(3, 3, 3);
    assert_eq!(e, vec![115, 215, 315]);
}

// ------------------------------------------------------------------ sleep

#[test]
fn wfi_sleeps_until_systick() {
    // L: WFI ; B L
    let mut m = boot(&[wfi(), b_to(CODE + 2, CODE)]);
    load(&mut m, handler(SYSTICK), &[adds_imm8(7, 1), bx(14)]);
    m.write32(SYST_RVR, 99).unwrap();
    m.write32(SYST_CSR, 7).unwrap();
    step(&mut m, 1);
    // WFI (2 cycles) at 0, asleep 2..100, entry 100..115.
    assert_eq!((m.pc, m.cycles, m.sleep_cycles), (handler(SYSTICK), 115, 98));
    assert!(!m.sleeping);
    step(&mut m, 2);
    assert_eq!((m.pc, m.cycles), (CODE + 2, 131));
    step(&mut m, 2);
    // B (2) + WFI (2) -> asleep 135..200
    assert_eq!((m.pc, m.cycles, m.sleep_cycles), (handler(SYSTICK), 215, 98 + 65));
    step(&mut m, 4 * 10);
    assert_eq!(m.r[7], 11);
    assert_eq!(m.sleep_cycles, 98 + 11 * 65);
    assert_eq!(m.cycles, 1200 + 15, "the 12th entry");
}

#[test]
fn wfi_wakes_on_cmsdk_timer_irq() {
    // Timer0 (IRQ 8): RELOAD = 49 loads VALUE too; zero after 49 cycles.
    let timer0 = 0x4000_0000;
    let mut m = boot(&[wfi(), movs(6, 6)]);
    // handler: clear INTCLEAR ; BX LR
    load(&mut m, handler(irq(8)), &[str_imm(1, 0, 0xC), bx(14)]);
    m.r[0] = timer0;
    m.r[1] = 1;
    m.write32(NVIC_ISER, 1 << 8).unwrap();
    m.write32(timer0 + 8, 49).unwrap();
    m.write32(timer0, 0x9).unwrap(); // ENABLE | IRQ enable at cycle 0
    step(&mut m, 1);
    assert_eq!((m.pc, m.cycles, m.sleep_cycles), (handler(irq(8)), 49 + 15, 47));
    step(&mut m, 2);
    assert_eq!((m.pc, m.ipsr), (CODE + 2, 0), "INTCLEAR dropped the level-sensitive line");
    assert_eq!(m.read32(timer0 + 0xC).unwrap(), 0);
}

#[test]
fn sleeponexit_returns_to_sleep_instead_of_thread() {
    // SCR.SLEEPONEXIT: after the first wake-up the thread code after WFI never runs.
    let mut m = boot(&[wfi(), movs(6, 1), b_to(CODE + 4, CODE + 4)]);
    load(&mut m, handler(SYSTICK), &[adds_imm8(7, 1), bx(14)]);
    m.write32(SCB_SCR, 2).unwrap();
    m.write32(SYST_RVR, 99).unwrap();
    m.write32(SYST_CSR, 7).unwrap();
    step(&mut m, 1);
    assert_eq!((m.pc, m.cycles, m.sleep_cycles), (handler(SYSTICK), 115, 98));
    step(&mut m, 2);
    // The BX LR returns to Thread mode only to sleep; the next SysTick re-enters.
    assert!(m.sleeping || m.ipsr == SYSTICK);
    step(&mut m, 2 * 5);
    assert_eq!(m.r[6], 0, "thread code after WFI never ran");
    assert_eq!(m.r[7], 6);
    assert_eq!((m.pc, m.ipsr), (handler(SYSTICK), SYSTICK));
    assert_eq!(m.cycles, 700 + 15);
    // Each period: awake 115 + 1 + 2 + 13 = 131 -> asleep until the next multiple of 100.
    assert_eq!(m.sleep_cycles, 98 + 6 * 69);
}

#[test]
fn wfi_with_cycle_limit_stops_at_limit() {
    let mut m = boot(&[wfi()]);
    m.write32(SYST_RVR, 999).unwrap();
    m.write32(SYST_CSR, 3).unwrap(); // reference clock: event at 25_000
    m.cycle_limit = 10_000;
    assert_eq!(m.run(10), cairn_sim::Stop::Limit);
    assert_eq!((m.cycles, m.sleep_cycles), (10_000, 9_998));
}

#[test]
// Regression: wraps that happened while TICKINT was 0 must not raise SysTick when it is set.
fn systick_tickint_enabled_late_has_no_spurious_exception() {
    // STR CSR=5 (count, no TICKINT) ; 1000 NOPs ; STR CSR=7 (TICKINT) ; NOPs
    let mut code = vec![str_imm(1, 0, 0)];
    code.extend(nops(1000));
    code.push(str_imm(2, 0, 0));
    code.extend(nops(1000));
    let mut m = boot(&code);
    load(&mut m, handler(SYSTICK), &[adds_imm8(7, 1), bx(14)]);
    m.write32(SYST_RVR, 99).unwrap();
    m.r[0] = SYST_CSR;
    m.r[1] = 5;
    m.r[2] = 7;
    step(&mut m, 1002);
    assert_eq!(m.cycles, 2 + 1000 + 2);
    assert_eq!(m.ipsr, 0, "no exception requested while TICKINT was 0");
    // Counter was enabled at cycle 0: zero events at 100, 200, ..., 1000, 1100.
    step_until(&mut m, 200, |m| m.pc == handler(SYSTICK));
    assert_eq!(m.cycles, 1100 + 15);
}

#[test]
fn systick_tickint_enabled_with_counter_restart() {
    // The common init order (disable, RVR, CVR=0, CSR=7) has no spurious exception.
    let mut code = vec![str_imm(1, 0, 0)];
    code.extend(nops(1000));
    code.extend([str_imm(3, 0, 0), str_imm(3, 0, 8), str_imm(2, 0, 0)]);
    code.extend(nops(1000));
    let mut m = boot(&code);
    load(&mut m, handler(SYSTICK), &[adds_imm8(7, 1), bx(14)]);
    m.write32(SYST_RVR, 99).unwrap();
    m.r[0] = SYST_CSR;
    m.r[1] = 5;
    m.r[2] = 7;
    m.r[3] = 0;
    step(&mut m, 1004);
    assert_eq!(m.ipsr, 0);
    // Enabled again by the STR starting at cycle 1006: events at 1106, 1206, ...
    step_until(&mut m, 200, |m| m.pc == handler(SYSTICK));
    assert_eq!(m.cycles, 1006 + 100 + 15);
}

// ------------------------------------------------------------------ CMSDK timer

const TIMER0: u32 = 0x4000_0000;

#[test]
fn cmsdk_timer_value_and_period() {
    let mut m = boot(&nops(400));
    m.write32(NVIC_ISER, 1 << 8).unwrap();
    load(&mut m, handler(irq(8)), &[str_imm(1, 0, 0xC), bx(14)]); // INTCLEAR
    m.r[0] = TIMER0;
    m.r[1] = 1;
    m.write32(TIMER0 + 8, 49).unwrap(); // RELOAD (also loads VALUE)
    assert_eq!(m.read32(TIMER0 + 4).unwrap(), 49);
    m.write32(TIMER0, 0x9).unwrap(); // ENABLE | IRQEN at cycle 0
    step(&mut m, 10);
    assert_eq!(m.read32(TIMER0 + 4).unwrap(), 39);
    let mut entries = Vec::new();
    while entries.len() < 3 {
        step(&mut m, 1);
        if m.pc == handler(irq(8)) {
            entries.push(m.cycles);
        }
    }
    // Zero at 49, then every RELOAD+1 = 50 cycles.
    assert_eq!(entries, vec![49 + 15, 99 + 15, 149 + 15]);
}

#[test]
// Regression (matches QEMU): wraps with CTRL.IRQEN = 0 do not latch INTSTATUS.
fn cmsdk_timer_irq_enabled_late_has_no_stale_interrupt() {
    let mut m = boot(&nops(400));
    m.write32(NVIC_ISER, 1 << 8).unwrap();
    m.write32(TIMER0 + 8, 49).unwrap();
    m.write32(TIMER0, 0x1).unwrap(); // ENABLE only
    step(&mut m, 200);
    assert_eq!(m.read32(TIMER0 + 0xC).unwrap(), 0, "INTSTATUS stays 0 without IRQEN");
    m.write32(TIMER0, 0x9).unwrap(); // IRQEN at cycle 200
    step_until(&mut m, 100, |m| m.pc == handler(irq(8)));
    assert_eq!(m.cycles, 249 + 15, "first interrupt at the next wrap");
}

#[test]
fn wfe_wakes_on_pending_disabled_irq_with_sevonpend() {
    let timer0 = 0x4000_0000;
    let mut m = boot(&[wfe(), movs(6, 6)]);
    m.write32(SCB_SCR, 0x10).unwrap();
    m.write32(timer0 + 8, 49).unwrap();
    m.write32(timer0, 0x9).unwrap(); // IRQEN, but IRQ 8 not enabled in the NVIC
    assert_eq!(m.run(2), cairn_sim::Stop::Limit, "WFE must wake when IRQ 8 becomes pending");
    assert_eq!((m.r[6], m.ipsr), (6, 0));
    assert_eq!(m.cycles, 49 + 1);
    assert_eq!(m.read32(NVIC_ISPR).unwrap(), 1 << 8);
}

#[test]
fn vector_table_in_sram_has_no_wait_states() {
    let table = 0x2000_0400;
    let mut m = ws_machine(2, &[nop()]);
    let mut vt = vec![0u32; 48];
    vt[PENDSV as usize] = handler(PENDSV) | 1;
    load_words(&mut m, table, &vt);
    m.write32(SCB_VTOR, table).unwrap();
    m.write32(SCB_ICSR, 1 << 28).unwrap();
    step(&mut m, 0);
    assert_eq!((m.ipsr, m.cycles), (PENDSV, 15));
}
