//! The execute loop: fetch a predecoded `Op`, execute it, charge its Cortex-M0+ cycles.
//! Events (device interrupts, limits, sleep) are only looked at between instructions
//! when the cycle counter reaches `next_event`, so the hot loop does no other checks.

use super::alu::{add_with_carry, asr_reg, lsl_reg, lsr_reg, ror_reg};
use super::bus::Bus;
use super::core::{Core, PAGE_CODE};
use super::decode::{decode, is_32bit};
use super::exception::SVCALL;
use super::observer::{NoObserver, Observer};
use super::op::{Kind, Op};
use super::stop::{FaultKind, Stop};

macro_rules! r {
    ($m:ident, $i:expr) => {
        $m.r[($i & 15) as usize]
    };
}

macro_rules! set_nz {
    ($m:ident, $v:expr) => {{
        let v: u32 = $v;
        $m.nz = v as i32 as i64 as u64;
        v
    }};
}

macro_rules! try_mem {
    ($m:ident, $e:expr) => {
        match $e {
            Ok(v) => v,
            Err(f) => {
                $m.fault_unretired(f);
                return;
            }
        }
    };
}

impl<S: Bus> Core<S> {
    /// Run until something stops the simulation or `max_instructions` more have executed.
    pub fn run(&mut self, max_instructions: u64) -> Stop {
        let limit = self.instructions.saturating_add(max_instructions);
        loop {
            if let Some(s) = self.stop.take() {
                return s;
            }
            self.service();
            if let Some(s) = self.stop.take() {
                return s;
            }
            if self.instructions >= limit {
                return Stop::Limit;
            }
            self.run_block(limit - self.instructions);
        }
    }

    /// Execute instructions until `next_event` or the budget is reached.
    fn run_block(&mut self, budget: u64) {
        // The loop that reports SP writes is a separate specialisation, so that a run
        // nobody watches the stack of has no code for it in its loop.
        if S::Observers::watches_stack(self) {
            self.run_block_as::<true>(budget)
        } else {
            self.run_block_as::<false>(budget)
        }
    }

    /// Out of line: each variant is the function the loops alone were before there were
    /// two, so the compiler lays out (and allocates registers for) the plain one as it did.
    #[inline(never)]
    fn run_block_as<const STACK: bool>(&mut self, budget: u64) {
        // Specialised loops: the common case (no wait states, no instruction limit
        // within reach, no observer counting executions) carries no per-instruction
        // bookkeeping beyond the cycle check.
        let limited = budget < u64::MAX / 2;
        let counting = S::Observers::counts_block(self);
        match (self.flash_wait_states != 0, limited, counting) {
            (false, false, false) => self.run_loop::<false, false, STACK, NoObserver>(budget),
            (false, true, false) => self.run_loop::<false, true, STACK, NoObserver>(budget),
            (true, false, false) => self.run_loop::<true, false, STACK, NoObserver>(budget),
            (true, true, false) => self.run_loop::<true, true, STACK, NoObserver>(budget),
            (false, false, true) => self.run_loop::<false, false, STACK, S::Observers>(budget),
            (false, true, true) => self.run_loop::<false, true, STACK, S::Observers>(budget),
            (true, false, true) => self.run_loop::<true, false, STACK, S::Observers>(budget),
            (true, true, true) => self.run_loop::<true, true, STACK, S::Observers>(budget),
        }
    }

    /// When the observer counts executions, each flash instruction adds one execution to
    /// its counter for the instruction's address, and nothing else: its cycles are its
    /// static cost, plus what `exec::<O>` reports for taken conditional branches, plus the
    /// exact settlement of the block's last instruction (every other variable cost ends
    /// the block).
    #[inline(always)]
    fn run_loop<const WAIT_STATES: bool, const LIMITED: bool, const STACK: bool, O: Observer<S>>(
        &mut self,
        budget: u64,
    ) {
        let mut executed = 0u64;
        // (pc, cycles before) of the last instruction, settled after the block if in flash.
        let mut last = (self.flash_base.wrapping_sub(2), 0u64);
        let exec_counts: *mut u64 = if O::COUNTS_EXECUTIONS { O::block_begins(self) } else { std::ptr::null_mut() };
        while self.cycles < self.next_event && (!LIMITED || executed < budget) {
            executed += 1;
            let pc = self.pc;
            let before = self.cycles;
            let off = pc.wrapping_sub(self.flash_base) as usize;
            let in_flash = off < self.flash.len();
            let op = if in_flash {
                if WAIT_STATES {
                    self.cycles += self.flash_wait_states as u64;
                }
                // SAFETY: flash_ops has one entry per halfword of flash (Core::new), and
                // off < flash.len(), so off / 2 < flash_ops.len().
                unsafe { *self.flash_ops.get_unchecked(off >> 1) }
            } else {
                match self.fetch_sram(pc) {
                    Some(op) => op,
                    None => {
                        self.fault_unretired(FaultKind::NoExecute(pc));
                        if O::COUNTS_EXECUTIONS {
                            O::executed_outside_flash(self, Kind::Undefined, self.cycles - before);
                            last.0 = pc;
                        }
                        continue;
                    }
                }
            };
            if O::COUNTS_EXECUTIONS && in_flash {
                // SAFETY: `exec_counts` is the observer's counter array at block start, which
                // has one counter per flash halfword (run_block checks), and off < flash.len().
                // An observer may move that array elsewhere (a task switch) without freeing
                // or reallocating it, and doing so ends the block before the next increment.
                unsafe { *exec_counts.add(off >> 1) += 1 };
            }
            self.exec::<O, STACK>(op, pc);
            if O::COUNTS_EXECUTIONS {
                last = (pc, before);
                if !in_flash {
                    O::executed_outside_flash(self, op.kind(), self.cycles - before);
                }
            }
        }
        if O::COUNTS_EXECUTIONS && (last.0.wrapping_sub(self.flash_base) as usize) < self.flash.len() {
            O::settle(self, last.0, last.1);
        }
        self.instructions = self.instructions.wrapping_add(executed);
    }

    /// Between instructions: deliver device events, handle sleep, limits and interrupts.
    pub fn service(&mut self) {
        if self.reset_requested {
            self.reset();
        }
        // Cycles spent here that are neither sleep nor wake-up are the core's own work
        // (exception entry), which observers charge to the handler entered.
        let start = self.cycles;
        let mut not_core = 0u64;
        self.service_inner(&mut not_core);
        S::Observers::core_cycles(self, self.cycles - start - not_core);
    }

    fn service_inner(&mut self, not_core: &mut u64) {
        loop {
            let pending_before = self.exc.pending;
            S::process_events(self);
            self.note_new_pending(pending_before);
            if let Some(f) = self.exc.pending_fault.take() {
                self.fault(f);
                if self.stop.is_some() {
                    return;
                }
            }
            if !self.sleeping {
                break;
            }
            if self.sleep_since.is_none() {
                self.sleep_since = Some(self.cycles);
                S::Observers::sleep_begins(self, self.scr & 4 != 0);
            }
            let woken = self.wfi_wake_pending() || (self.sleep_is_wfe && self.event_reg);
            if woken {
                self.sleeping = false;
                if self.sleep_is_wfe {
                    self.event_reg = false;
                }
                // An observer's wake-up latency (a power profile's) delays the core, unless
                // the core never actually slept.
                let since = self.sleep_since.take().unwrap_or(self.cycles);
                let slept = self.cycles - since;
                S::Observers::sleep_ends(self, since);
                let lat = if slept > 0 { S::Observers::wakeup_latency(self) } else { 0 };
                if lat > 0 {
                    S::Observers::wakes(self, self.cycles, self.cycles + lat);
                }
                self.cycles += lat;
                *not_core += lat;
                break;
            }
            let wake_at = S::next_event(self).min(self.cycle_limit);
            if wake_at > self.pause_cycle {
                // Nothing due before the device scheduler's horizon: stay asleep at this
                // cycle, so that a frame arriving later wakes the core at its own time.
                self.stop = Some(Stop::Pause);
                return;
            }
            if wake_at == u64::MAX {
                self.stop = Some(Stop::SleepForever);
                return;
            }
            if wake_at > self.cycles {
                let deep = self.scr & 4 != 0;
                self.sleep_cycles += wake_at - self.cycles;
                *not_core += wake_at - self.cycles;
                S::Observers::sleeps(self, self.cycles, wake_at, deep);
                self.cycles = wake_at;
            }
            if self.cycles >= self.cycle_limit {
                self.stop = Some(Stop::Limit);
                return;
            }
        }
        if self.cycles >= self.cycle_limit {
            self.stop = Some(Stop::Limit);
            return;
        }
        if self.cycles >= self.pause_cycle {
            self.stop = Some(Stop::Pause);
            return;
        }
        if let Some(n) = self.preempting_exception() {
            self.take_exception_now(n);
        }
        S::Observers::exceptions_changed(self);
        self.next_event = if self.stop.is_some() || self.exc.pending_fault.is_some() || self.sleeping {
            0
        } else {
            S::next_event(self).min(self.cycle_limit).min(self.pause_cycle)
        };
    }

    #[cold]
    #[inline(never)]
    fn fetch_sram(&mut self, pc: u32) -> Option<Op> {
        let off = self.sram_offset(pc, 2)?;
        let cached = self.sram_ops[off >> 1];
        if cached.kind() != Kind::Undecoded {
            return Some(cached);
        }
        let op = self.decode_mem(pc, true)?;
        self.sram_ops[off >> 1] = op;
        self.sram_page_flags[off >> 8] |= PAGE_CODE;
        if let Some(p) = self.sram_page_flags.get_mut((off + 2) >> 8) {
            *p |= PAGE_CODE;
        }
        Some(op)
    }

    /// First execution of a flash instruction: decode, cache, execute.
    #[cold]
    #[inline(never)]
    fn decode_flash_and_exec(&mut self, pc: u32) {
        let off = pc.wrapping_sub(self.flash_base) as usize;
        // `pc` is in flash, so only the second halfword of a 32-bit encoding can be missing.
        let Some(op) = self.decode_mem(pc, true) else {
            self.fault_unretired(FaultKind::NoExecute(pc.wrapping_add(2)));
            return;
        };
        self.flash_ops[off >> 1] = op;
        self.exec_observed(op, pc);
    }

    /// Execute one instruction outside the run loop (its first decoding, a debugger's
    /// resumption), observed as the run loop would have.
    #[cold]
    fn exec_observed(&mut self, op: Op, pc: u32) {
        match (S::Observers::counts(self), S::Observers::watches_stack(self)) {
            (true, true) => self.exec::<S::Observers, true>(op, pc),
            (true, false) => self.exec::<S::Observers, false>(op, pc),
            (false, true) => self.exec::<NoObserver, true>(op, pc),
            (false, false) => self.exec::<NoObserver, false>(op, pc),
        }
    }

    fn peek_halfword(&self, addr: u32, needed: bool) -> Option<u16> {
        if !needed {
            return Some(0);
        }
        let lo = self.peek8(addr)?;
        let hi = self.peek8(addr.wrapping_add(1))?;
        Some(u16::from_le_bytes([lo, hi]))
    }

    /// Decode the instruction at `pc` from memory; with `breakpoints`, a debugger
    /// breakpoint there decodes as `DebugBreak`. None when the bytes are not in memory.
    fn decode_mem(&self, pc: u32, breakpoints: bool) -> Option<Op> {
        let hw = self.peek_halfword(pc, true)?;
        let hw2 = self.peek_halfword(pc.wrapping_add(2), is_32bit(hw))?;
        if breakpoints && self.breakpoints.contains(&pc) {
            return Some(Op::new(Kind::DebugBreak, 0, 0, 0, 0));
        }
        Some(decode(pc, hw, hw2))
    }

    /// Decode the instruction at `pc` from memory, ignoring breakpoints.
    pub fn decode_at(&self, pc: u32) -> Option<Op> {
        self.decode_mem(pc, false)
    }

    #[inline(always)]
    fn cond(&self, c: u8) -> bool {
        let n = self.flag_n();
        let z = self.flag_z();
        match c {
            0 => z,
            1 => !z,
            2 => self.c,
            3 => !self.c,
            4 => n,
            5 => !n,
            6 => self.v,
            7 => !self.v,
            8 => self.c && !z,
            9 => !self.c || z,
            10 => n == self.v,
            11 => n != self.v,
            12 => !z && n == self.v,
            13 => z || n != self.v,
            _ => true,
        }
    }

    /// Interworking branch (BX, BLX, POP {pc}): may be an exception return.
    #[inline(always)]
    fn bx_write(&mut self, target: u32) {
        if target >= 0xF000_0000 && self.in_handler() {
            self.exception_return(target);
            return;
        }
        self.blx_write(target);
    }

    /// Interworking branch without exception return (BLX): EXC_RETURN values are just
    /// addresses here, and fault on fetch.
    #[inline(always)]
    fn blx_write(&mut self, target: u32) {
        self.pc = target & !1;
        if target & 1 == 0 {
            self.thumb = false;
            self.fault(FaultKind::InvalidState);
        }
    }

    /// Write to a register from a data-processing instruction; r15 is a branch.
    #[inline(always)]
    fn write_hi(&mut self, rd: u8, value: u32, pc: u32) {
        match rd {
            15 => {
                self.pc = value & !1;
                self.cycles += 2;
            }
            13 => {
                self.r[13] = value & !3;
                self.pc = pc.wrapping_add(2);
                self.cycles += 1;
            }
            _ => {
                r!(self, rd) = value;
                self.pc = pc.wrapping_add(2);
                self.cycles += 1;
            }
        }
    }

    /// Execute one instruction. A taken conditional branch and an indirect call are
    /// reported to an observer that counts executions (a branch's cycle beyond its static
    /// cost is not otherwise seen). With `STACK`, every write that may lower SP is reported
    /// to the attached observers; exception entry, the other way SP goes down, is reported
    /// as such (`Observer::exception_entered`).
    #[inline(always)]
    fn exec<O: Observer<S>, const STACK: bool>(&mut self, op: Op, pc: u32) {
        let next = pc.wrapping_add(2);
        match op.kind() {
            Kind::LslImm => {
                let (v, c) = lsl_reg(r!(self, op.b()), op.imm(), self.c);
                self.c = c;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::LsrImm => {
                let (v, c) = lsr_reg(r!(self, op.b()), op.imm(), self.c);
                self.c = c;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::AsrImm => {
                let (v, c) = asr_reg(r!(self, op.b()), op.imm(), self.c);
                self.c = c;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::AddReg | Kind::AddImm3 | Kind::AddImm8 | Kind::Cmn => {
                let (x, y) = match op.kind() {
                    Kind::AddReg => (r!(self, op.b()), r!(self, op.c())),
                    Kind::AddImm3 => (r!(self, op.b()), op.imm()),
                    Kind::AddImm8 => (r!(self, op.a()), op.imm()),
                    _ => (r!(self, op.a()), r!(self, op.b())),
                };
                let (v, c, o) = add_with_carry(x, y, false);
                self.c = c;
                self.v = o;
                set_nz!(self, v);
                if op.kind() != Kind::Cmn {
                    r!(self, op.a()) = v;
                }
                self.pc = next;
                self.cycles += 1;
            }
            Kind::SubReg | Kind::SubImm3 | Kind::SubImm8 | Kind::CmpImm | Kind::CmpReg | Kind::CmpHi => {
                let (x, y) = match op.kind() {
                    Kind::SubReg => (r!(self, op.b()), r!(self, op.c())),
                    Kind::SubImm3 => (r!(self, op.b()), op.imm()),
                    Kind::SubImm8 | Kind::CmpImm => (r!(self, op.a()), op.imm()),
                    _ => (r!(self, op.a()), r!(self, op.b())),
                };
                let (v, c, o) = add_with_carry(x, !y, true);
                self.c = c;
                self.v = o;
                set_nz!(self, v);
                if matches!(op.kind(), Kind::SubReg | Kind::SubImm3 | Kind::SubImm8) {
                    r!(self, op.a()) = v;
                }
                self.pc = next;
                self.cycles += 1;
            }
            Kind::MovImm => {
                r!(self, op.a()) = set_nz!(self, op.imm());
                self.pc = next;
                self.cycles += 1;
            }
            Kind::And => {
                r!(self, op.a()) = set_nz!(self, r!(self, op.a()) & r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Eor => {
                r!(self, op.a()) = set_nz!(self, r!(self, op.a()) ^ r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Orr => {
                r!(self, op.a()) = set_nz!(self, r!(self, op.a()) | r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Bic => {
                r!(self, op.a()) = set_nz!(self, r!(self, op.a()) & !r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Mvn => {
                r!(self, op.a()) = set_nz!(self, !r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Tst => {
                set_nz!(self, r!(self, op.a()) & r!(self, op.b()));
                self.pc = next;
                self.cycles += 1;
            }
            Kind::LslReg | Kind::LsrReg | Kind::AsrReg | Kind::Ror => {
                let x = r!(self, op.a());
                let n = r!(self, op.b());
                let (v, c) = match op.kind() {
                    Kind::LslReg => lsl_reg(x, n, self.c),
                    Kind::LsrReg => lsr_reg(x, n, self.c),
                    Kind::AsrReg => asr_reg(x, n, self.c),
                    _ => ror_reg(x, n, self.c),
                };
                self.c = c;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Adc => {
                let (v, c, o) = add_with_carry(r!(self, op.a()), r!(self, op.b()), self.c);
                self.c = c;
                self.v = o;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Sbc => {
                let (v, c, o) = add_with_carry(r!(self, op.a()), !r!(self, op.b()), self.c);
                self.c = c;
                self.v = o;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Rsb => {
                let (v, c, o) = add_with_carry(!r!(self, op.b()), 0, true);
                self.c = c;
                self.v = o;
                r!(self, op.a()) = set_nz!(self, v);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Mul => {
                r!(self, op.a()) = set_nz!(self, r!(self, op.a()).wrapping_mul(r!(self, op.b())));
                self.pc = next;
                self.cycles += self.mul_cycles as u64;
            }
            Kind::AddHi => {
                self.r[15] = pc.wrapping_add(4);
                let v = r!(self, op.a()).wrapping_add(r!(self, op.b()));
                self.write_hi(op.a(), v, pc);
                if STACK && op.a() == 13 {
                    S::Observers::stack_lowered(self, pc);
                }
            }
            Kind::MovHi => {
                self.r[15] = pc.wrapping_add(4);
                let v = r!(self, op.b());
                self.write_hi(op.a(), v, pc);
                if STACK && op.a() == 13 {
                    S::Observers::stack_lowered(self, pc);
                }
            }
            Kind::Bx => {
                self.r[15] = pc.wrapping_add(4);
                self.cycles += 2;
                self.bx_write(r!(self, op.b()));
            }
            Kind::Blx => {
                let target = r!(self, op.b());
                if O::COUNTS_EXECUTIONS {
                    O::indirect_call(self, target & !1);
                }
                self.r[14] = next | 1;
                self.cycles += 2;
                self.blx_write(target);
            }
            Kind::LdrLit => {
                r!(self, op.a()) = try_mem!(self, self.read32_literal(op.imm()));
                self.pc = next;
                self.cycles += 2;
            }
            Kind::LdrReg | Kind::LdrImm | Kind::LdrSp => {
                let addr = match op.kind() {
                    Kind::LdrReg => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                    Kind::LdrImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => self.r[13].wrapping_add(op.imm()),
                };
                r!(self, op.a()) = try_mem!(self, self.read32(addr));
                self.pc = next;
                self.cycles += 2;
            }
            Kind::LdrhReg | Kind::LdrhImm | Kind::LdrshReg => {
                let addr = match op.kind() {
                    Kind::LdrhImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                };
                let v = try_mem!(self, self.read16(addr));
                r!(self, op.a()) = if op.kind() == Kind::LdrshReg { v as u16 as i16 as i32 as u32 } else { v };
                self.pc = next;
                self.cycles += 2;
            }
            Kind::LdrbReg | Kind::LdrbImm | Kind::LdrsbReg => {
                let addr = match op.kind() {
                    Kind::LdrbImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                };
                let v = try_mem!(self, self.read8(addr));
                r!(self, op.a()) = if op.kind() == Kind::LdrsbReg { v as u8 as i8 as i32 as u32 } else { v };
                self.pc = next;
                self.cycles += 2;
            }
            Kind::StrReg | Kind::StrImm | Kind::StrSp => {
                let addr = match op.kind() {
                    Kind::StrReg => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                    Kind::StrImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => self.r[13].wrapping_add(op.imm()),
                };
                try_mem!(self, self.write32(addr, r!(self, op.a())));
                self.pc = next;
                self.cycles += 2;
            }
            Kind::StrhReg | Kind::StrhImm => {
                let addr = match op.kind() {
                    Kind::StrhImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                };
                try_mem!(self, self.write16(addr, r!(self, op.a())));
                self.pc = next;
                self.cycles += 2;
            }
            Kind::StrbReg | Kind::StrbImm => {
                let addr = match op.kind() {
                    Kind::StrbImm => r!(self, op.b()).wrapping_add(op.imm()),
                    _ => r!(self, op.b()).wrapping_add(r!(self, op.c())),
                };
                try_mem!(self, self.write8(addr, r!(self, op.a())));
                self.pc = next;
                self.cycles += 2;
            }
            Kind::Adr => {
                r!(self, op.a()) = op.imm();
                self.pc = next;
                self.cycles += 1;
            }
            Kind::AddRdSp => {
                r!(self, op.a()) = self.r[13].wrapping_add(op.imm());
                self.pc = next;
                self.cycles += 1;
            }
            Kind::AddSp => {
                self.r[13] = self.r[13].wrapping_add(op.imm());
                self.pc = next;
                self.cycles += 1;
            }
            Kind::SubSp => {
                self.r[13] = self.r[13].wrapping_sub(op.imm());
                self.pc = next;
                self.cycles += 1;
                if STACK {
                    S::Observers::stack_lowered(self, pc);
                }
            }
            Kind::Sxth => {
                r!(self, op.a()) = r!(self, op.b()) as u16 as i16 as i32 as u32;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Sxtb => {
                r!(self, op.a()) = r!(self, op.b()) as u8 as i8 as i32 as u32;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Uxth => {
                r!(self, op.a()) = r!(self, op.b()) & 0xffff;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Uxtb => {
                r!(self, op.a()) = r!(self, op.b()) & 0xff;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Rev => {
                r!(self, op.a()) = r!(self, op.b()).swap_bytes();
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Rev16 => {
                let x = r!(self, op.b());
                r!(self, op.a()) = ((x & 0x00ff_00ff) << 8) | ((x >> 8) & 0x00ff_00ff);
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Revsh => {
                let x = r!(self, op.b()) as u16;
                r!(self, op.a()) = x.swap_bytes() as i16 as i32 as u32;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Push => {
                self.exec_push(op.imm(), next);
                if STACK {
                    S::Observers::stack_lowered(self, pc);
                }
            }
            Kind::Pop => self.exec_pop(op.imm(), next),
            Kind::Stm => self.exec_stm(op.a(), op.imm(), next),
            Kind::Ldm => self.exec_ldm(op.a(), op.imm(), next),
            Kind::BCond => {
                if self.cond(op.a()) {
                    self.pc = op.imm();
                    self.cycles += 2;
                    if O::COUNTS_EXECUTIONS {
                        O::branch_taken(self, pc);
                    }
                } else {
                    self.pc = next;
                    self.cycles += 1;
                }
            }
            Kind::B => {
                self.pc = op.imm();
                self.cycles += 2;
            }
            Kind::Bl => {
                self.r[14] = pc.wrapping_add(4) | 1;
                self.pc = op.imm();
                self.cycles += 3;
            }
            Kind::Nop => {
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Sev => {
                self.event_reg = true;
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Wfi => {
                self.pc = next;
                self.cycles += 2;
                if !self.wfi_wake_pending() {
                    self.sleeping = true;
                    self.sleep_is_wfe = false;
                    self.next_event = 0;
                }
            }
            Kind::Wfe => {
                self.pc = next;
                self.cycles += 2;
                if self.event_reg {
                    self.event_reg = false;
                } else if !self.wfi_wake_pending() {
                    self.sleeping = true;
                    self.sleep_is_wfe = true;
                    self.next_event = 0;
                }
            }
            Kind::Cpsie | Kind::Cpsid => {
                if self.privileged() {
                    self.primask = op.kind() == Kind::Cpsid;
                    self.next_event = 0;
                }
                self.pc = next;
                self.cycles += 1;
            }
            Kind::Barrier => {
                self.pc = pc.wrapping_add(4);
                self.cycles += 3;
            }
            Kind::Mrs => {
                r!(self, op.a()) = self.read_special(op.imm());
                self.pc = pc.wrapping_add(4);
                self.cycles += 3;
            }
            Kind::Msr => {
                let v = r!(self, op.a());
                self.write_special(op.imm(), v);
                self.pc = pc.wrapping_add(4);
                self.cycles += 3;
                self.next_event = 0;
                if STACK {
                    S::Observers::stack_registers_written(self, pc);
                }
            }
            Kind::Svc => self.exec_svc(next),
            Kind::Bkpt => self.exec_bkpt(op.imm() as u8, next),
            Kind::DebugBreak => self.exec_debug_break(pc),
            Kind::Undecoded => self.decode_flash_and_exec(pc),
            Kind::Undefined => self.fault_unretired(FaultKind::Undefined),
        }
    }

    fn exec_push(&mut self, list: u32, next: u32) {
        let count = list.count_ones();
        let base = self.r[13].wrapping_sub(4 * count);
        let mut addr = base;
        for i in [0usize, 1, 2, 3, 4, 5, 6, 7, 14] {
            if list & (1 << i) != 0 {
                let v = self.r[i];
                try_mem!(self, self.write32(addr, v));
                addr = addr.wrapping_add(4);
            }
        }
        self.r[13] = base;
        self.pc = next;
        self.cycles += 1 + count as u64;
    }

    fn exec_pop(&mut self, list: u32, next: u32) {
        let count = list.count_ones();
        let mut vals = [0u32; 9];
        let mut addr = self.r[13];
        for v in vals.iter_mut().take(count as usize) {
            *v = try_mem!(self, self.read32(addr));
            addr = addr.wrapping_add(4);
        }
        self.r[13] = addr;
        let mut k = 0;
        for i in 0..8 {
            if list & (1 << i) != 0 {
                self.r[i] = vals[k];
                k += 1;
            }
        }
        if list & (1 << 15) != 0 {
            self.cycles += 3 + count as u64;
            self.bx_write(vals[k]);
        } else {
            self.pc = next;
            self.cycles += 1 + count as u64;
        }
    }

    fn exec_stm(&mut self, rn: u8, list: u32, next: u32) {
        let base = r!(self, rn);
        let mut addr = base;
        for i in 0..8 {
            if list & (1 << i) != 0 {
                let v = self.r[i];
                try_mem!(self, self.write32(addr, v));
                addr = addr.wrapping_add(4);
            }
        }
        r!(self, rn) = addr;
        self.pc = next;
        self.cycles += 1 + list.count_ones() as u64;
    }

    fn exec_ldm(&mut self, rn: u8, list: u32, next: u32) {
        let count = list.count_ones();
        let mut vals = [0u32; 8];
        let mut addr = r!(self, rn);
        for v in vals.iter_mut().take(count as usize) {
            *v = try_mem!(self, self.read32(addr));
            addr = addr.wrapping_add(4);
        }
        if list & (1 << rn) == 0 {
            r!(self, rn) = addr;
        }
        let mut k = 0;
        for i in 0..8 {
            if list & (1 << i) != 0 {
                self.r[i] = vals[k];
                k += 1;
            }
        }
        self.pc = next;
        self.cycles += 1 + count as u64;
    }

    /// Asleep with nothing pending that wakes the core and no device event to come: it would
    /// sleep forever. A run stopped by a limit in this state is reported as asleep forever.
    pub fn asleep_forever(&self) -> bool {
        self.sleeping
            && !(self.wfi_wake_pending() || (self.sleep_is_wfe && self.event_reg))
            && S::next_event(self) == u64::MAX
    }

    #[cold]
    fn exec_svc(&mut self, next: u32) {
        if self.exc.prio[SVCALL as usize] as i32 >= self.execution_priority() {
            if self.execution_priority() < 0 {
                // At HardFault or NMI priority the escalation is a lockup, reported at the
                // SVC itself (the PC has not moved on), like every other faulting instruction.
                self.lockup(FaultKind::SvcEscalation);
                return;
            }
            // Escalation keeps SVCall's return address (the next instruction), as QEMU does;
            // the SVC itself executed.
            let svc_pc = self.pc;
            self.pc = next;
            self.fault(FaultKind::SvcEscalation);
            if let Some((k, _)) = self.last_fault {
                self.last_fault = Some((k, svc_pc));
            }
            return;
        }
        self.pc = next;
        self.exc.pending |= 1 << SVCALL;
        self.take_exception_now(SVCALL);
    }

    #[cold]
    fn exec_bkpt(&mut self, imm: u8, next: u32) {
        if imm == 0xAB {
            S::semihost(self);
            self.pc = next;
            self.cycles += 1;
            return;
        }
        if self.debugger {
            self.stop_at_breakpoint(next.wrapping_sub(2));
            return;
        }
        self.fault_unretired(FaultKind::Breakpoint);
    }

    /// A fault raised by the instruction at `self.pc`, which therefore does not retire
    /// (the run loop has already counted it).
    fn fault_unretired(&mut self, kind: FaultKind) {
        self.instructions = self.instructions.wrapping_sub(1);
        self.fault(kind);
    }

    /// Halt for the debugger before the instruction at `pc` executes. It does not retire,
    /// and the wait states its fetch was charged are given back, so debugging never
    /// changes cycle counts.
    fn stop_at_breakpoint(&mut self, pc: u32) {
        self.instructions = self.instructions.wrapping_sub(1);
        if self.flash_offset(pc, 2).is_some() {
            self.cycles -= self.flash_wait_states as u64;
        }
        self.stop = Some(Stop::Breakpoint);
        self.next_event = 0;
    }

    #[cold]
    #[inline(never)]
    fn exec_debug_break(&mut self, pc: u32) {
        if self.resume_from == Some(pc) {
            self.resume_from = None;
            if let Some(op) = self.decode_at(pc) {
                self.exec_observed(op, pc);
                return;
            }
        }
        self.stop_at_breakpoint(pc);
    }

    fn read_special(&self, sysm: u32) -> u32 {
        match sysm {
            0..=3 => {
                let ipsr = if sysm & 1 != 0 { self.ipsr } else { 0 };
                self.apsr() | ipsr
            }
            5 | 7 => self.ipsr,
            6 => 0,
            8 => self.msp(),
            9 => self.psp(),
            16 => self.primask as u32,
            20 => ((self.spsel && !self.in_handler()) as u32) << 1 | self.npriv as u32,
            _ => 0,
        }
    }

    fn write_special(&mut self, sysm: u32, v: u32) {
        let privileged = self.privileged();
        match sysm {
            0..=3 => self.set_apsr(v),
            8 if privileged => self.set_msp(v),
            9 if privileged => self.set_psp(v),
            16 if privileged => self.primask = v & 1 != 0,
            20 if privileged => {
                self.npriv = v & 1 != 0;
                if !self.in_handler() {
                    let psp = v & 2 != 0;
                    self.select_sp(psp);
                    self.spsel = psp;
                }
            }
            _ => {}
        }
    }
}
