//! ARMv6-M exception model: priorities, pending/active state, entry with 8-word stacking,
//! EXC_RETURN, tail-chaining, late arrival and lockup.

use super::bus::Bus;
use super::core::Core;
use super::observer::Observer;
use super::stop::{FaultKind, Stop};

pub const NMI: u32 = 2;
pub const HARDFAULT: u32 = 3;
pub const SVCALL: u32 = 11;
pub const PENDSV: u32 = 14;
pub const SYSTICK: u32 = 15;
/// Exceptions that exist on ARMv6-M besides external interrupts.
const SYSTEM_MASK: u64 = (1 << NMI) | (1 << HARDFAULT) | (1 << SVCALL) | (1 << PENDSV) | (1 << SYSTICK);
/// Execution priority of thread mode with no active exception.
const THREAD_PRIORITY: i32 = 4;

#[derive(Clone, Debug)]
pub struct ExcState {
    /// Bit n: exception n pending (IRQ k is exception 16 + k).
    pub pending: u64,
    /// Bit n: exception n active.
    pub active: u64,
    /// NVIC enable bits for IRQ 0..31.
    pub enabled: u32,
    /// Raw IPR bytes (top two bits implemented).
    pub irq_prio: [u8; 32],
    /// Raw system handler priority bytes indexed by exception number (11, 14, 15 used).
    pub shp: [u8; 16],
    /// Effective priority of each exception number (lower is more urgent).
    pub prio: [i8; 48],
    /// A fault detected between instructions (e.g. a branch that cleared the Thumb bit
    /// is reported when the next instruction would execute).
    pub pending_fault: Option<FaultKind>,
}

impl Default for ExcState {
    fn default() -> Self {
        let mut s = ExcState {
            pending: 0,
            active: 0,
            enabled: 0,
            irq_prio: [0; 32],
            shp: [0; 16],
            prio: [0; 48],
            pending_fault: None,
        };
        s.refresh_priorities();
        s
    }
}

impl ExcState {
    pub fn refresh_priorities(&mut self) {
        self.prio[1] = -3;
        self.prio[NMI as usize] = -2;
        self.prio[HARDFAULT as usize] = -1;
        for n in [SVCALL, PENDSV, SYSTICK] {
            self.prio[n as usize] = (self.shp[n as usize] >> 6) as i8;
        }
        for k in 0..32 {
            self.prio[16 + k] = (self.irq_prio[k] >> 6) as i8;
        }
    }

    fn candidates(&self) -> u64 {
        self.pending & (SYSTEM_MASK | ((self.enabled as u64) << 16))
    }

    /// Highest-priority pending exception that is enabled: (number, priority).
    pub fn highest_pending(&self) -> Option<(u32, i32)> {
        let mut bits = self.candidates();
        let mut best: Option<(u32, i32)> = None;
        while bits != 0 {
            let n = bits.trailing_zeros();
            bits &= bits - 1;
            let p = self.prio[n as usize] as i32;
            if best.is_none_or(|(_, bp)| p < bp) {
                best = Some((n, p));
            }
        }
        best
    }

    /// Priority of the active exceptions alone (THREAD_PRIORITY when none).
    pub fn active_priority(&self) -> i32 {
        let mut bits = self.active;
        let mut p = THREAD_PRIORITY;
        while bits != 0 {
            let n = bits.trailing_zeros();
            bits &= bits - 1;
            p = p.min(self.prio[n as usize] as i32);
        }
        p
    }
}

impl<S: Bus> Core<S> {
    /// Current execution priority, including PRIMASK.
    pub fn execution_priority(&self) -> i32 {
        let p = self.exc.active_priority();
        if self.primask {
            p.min(0)
        } else {
            p
        }
    }

    /// The exception that would preempt now, if any.
    pub fn preempting_exception(&self) -> Option<u32> {
        match self.exc.highest_pending() {
            Some((n, p)) if p < self.execution_priority() => Some(n),
            _ => None,
        }
    }

    /// SCR.SEVONPEND: an exception becoming pending (even a disabled one) is a WFE event.
    pub fn note_new_pending(&mut self, before: u64) {
        if self.scr & 0x10 != 0 && self.exc.pending & !before != 0 {
            self.event_reg = true;
        }
    }

    /// Whether something pending would wake a WFI (preempts when PRIMASK is ignored).
    pub fn wfi_wake_pending(&self) -> bool {
        matches!(self.exc.highest_pending(), Some((_, p)) if p < self.exc.active_priority())
    }

    /// Report a synchronous fault of the instruction at `self.pc`: enter HardFault, or lock up.
    #[cold]
    #[inline(never)]
    pub fn fault(&mut self, kind: FaultKind) {
        if self.execution_priority() < 0 {
            self.lockup(kind);
            return;
        }
        self.last_fault = Some((kind, self.pc));
        S::Observers::fault(self, kind);
        self.exc.pending |= 1 << HARDFAULT;
        self.take_exception_now(HARDFAULT);
    }

    #[cold]
    pub fn lockup(&mut self, kind: FaultKind) {
        S::Observers::fault(self, kind);
        self.stop = Some(Stop::Lockup { kind, pc: self.pc, ipsr: self.ipsr });
        self.next_event = 0;
    }

    /// Enter exception `n` (which must be pending and able to preempt), stacking the
    /// current context. Late-arriving higher-priority exceptions take over the entry.
    pub fn take_exception_now(&mut self, n: u32) {
        let return_addr = self.pc;
        let frame_ok = self.push_frame(return_addr);
        if let Err(kind) = frame_ok {
            self.lockup(kind);
            return;
        }
        self.r[14] = if self.in_handler() {
            0xFFFF_FFF1
        } else if self.spsel {
            0xFFFF_FFFD
        } else {
            0xFFFF_FFF9
        };
        self.cycles += self.exception_timing.entry;
        // Late arrival: an exception that became pending during stacking and outranks `n`
        // is the one whose vector is fetched; `n` stays pending.
        S::process_events(self);
        let prio_before = self.execution_priority();
        let mut target = n;
        if let Some((m, p)) = self.exc.highest_pending() {
            if p < self.exc.prio[n as usize] as i32 && p < prio_before {
                target = m;
            }
        }
        self.activate(target);
    }

    /// Make `n` active and jump to its handler (stacking already done).
    fn activate(&mut self, n: u32) {
        self.exc.pending &= !(1u64 << n);
        self.exc.active |= 1u64 << n;
        self.select_sp(false);
        self.spsel = false;
        self.ipsr = n;
        self.event_reg = true;
        self.next_event = 0;
        let vaddr = self.vtor.wrapping_add(4 * n);
        // The vector read is a data access: it pays flash wait states like any other.
        if self.flash_offset(vaddr, 4).is_some() {
            self.cycles += self.flash_wait_states as u64;
        }
        let vector = match self.peek_vector(vaddr) {
            Some(v) => v,
            None => {
                self.lockup(FaultKind::VectorRead(vaddr));
                return;
            }
        };
        self.pc = vector & !1;
        S::Observers::exception_entered(self, n);
        self.thumb = vector & 1 != 0;
        if vector & 1 == 0 {
            self.exc.pending_fault = Some(FaultKind::InvalidState);
        }
    }

    fn peek_vector(&self, addr: u32) -> Option<u32> {
        if addr & 3 != 0 {
            return None;
        }
        self.peek32(addr)
    }

    fn push_frame(&mut self, return_addr: u32) -> Result<(), FaultKind> {
        let sp = self.r[13];
        let align = (sp >> 2) & 1;
        let frame = sp.wrapping_sub(0x20) & !4;
        let xpsr = (self.xpsr() & !(1 << 9)) | (align << 9);
        let words = [self.r[0], self.r[1], self.r[2], self.r[3], self.r[12], self.r[14], return_addr, xpsr];
        for (i, w) in words.iter().enumerate() {
            let a = frame.wrapping_add(4 * i as u32);
            self.write32(a, *w).map_err(|_| FaultKind::StackError(a))?;
        }
        self.r[13] = frame;
        Ok(())
    }

    /// A BX/POP loaded `value` with top nibble 0xF while in handler mode.
    #[cold]
    pub fn exception_return(&mut self, value: u32) {
        if !matches!(value, 0xFFFF_FFF1 | 0xFFFF_FFF9 | 0xFFFF_FFFD) {
            self.pc = value & !1;
            self.fault(FaultKind::InvalidReturn(value));
            return;
        }
        let returning = self.ipsr;
        S::Observers::exception_returns(self, returning);
        self.exc.active &= !(1u64 << returning);
        S::update_irq_lines(self);
        S::Observers::exceptions_changed(self);
        let to_thread = value != 0xFFFF_FFF1;
        // Tail-chain: something pending outranks the context we would return to.
        let return_prio = {
            let p = self.exc.active_priority();
            if self.primask {
                p.min(0)
            } else {
                p
            }
        };
        if let Some((n, p)) = self.exc.highest_pending() {
            if p < return_prio {
                self.cycles += self.exception_timing.tail_chain;
                self.r[14] = value;
                self.activate(n);
                return;
            }
        }
        if to_thread && self.scr & 2 != 0 {
            // SLEEPONEXIT: return to thread mode only to sleep again.
            self.sleeping = true;
            self.sleep_is_wfe = false;
        }
        self.cycles += self.exception_timing.exit;
        // Select the stack the frame was pushed on (r13 holds MSP in handler mode).
        if to_thread {
            self.ipsr = 0;
            self.spsel = value == 0xFFFF_FFFD;
            if self.spsel {
                std::mem::swap(&mut self.r[13], &mut self.sp_other);
            }
        }
        let frame = self.r[13];
        let mut w = [0u32; 8];
        for (i, slot) in w.iter_mut().enumerate() {
            let a = frame.wrapping_add(4 * i as u32);
            match self.read32(a) {
                Ok(v) => *slot = v,
                Err(_) => {
                    self.lockup(FaultKind::StackError(a));
                    return;
                }
            }
        }
        self.r[0] = w[0];
        self.r[1] = w[1];
        self.r[2] = w[2];
        self.r[3] = w[3];
        self.r[12] = w[4];
        self.r[14] = w[5];
        self.pc = w[6] & !1;
        let xpsr = w[7];
        self.set_apsr(xpsr);
        self.ipsr = xpsr & 0x3f;
        if !to_thread && self.ipsr == 0 || to_thread && self.ipsr != 0 {
            // Inconsistent stacked IPSR (ARMv6-M: INVPC UsageFault escalates to HardFault).
            self.ipsr = if to_thread { 0 } else { returning };
            self.fault(FaultKind::InvalidReturn(value));
            return;
        }
        self.r[13] = frame.wrapping_add(0x20) | (((xpsr >> 9) & 1) << 2);
        self.thumb = xpsr & (1 << 24) != 0;
        if !self.thumb {
            self.exc.pending_fault = Some(FaultKind::InvalidState);
        }
        self.event_reg = true;
        self.next_event = 0;
        S::Observers::context_restored(self);
    }
}
