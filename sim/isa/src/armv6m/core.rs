//! The ARMv6-M (Cortex-M0+) core: registers, the cycle clock, flash and SRAM with their
//! decode caches, and the exception state. Whatever lies beyond (system space, devices,
//! observers) is the processor's `S: Bus`, which the core owns as `sys` and reaches only
//! through the `Bus` trait; `Core<S>` dereferences to `S`, so a processor's code names
//! its own fields and the core's alike.

use super::bus::Bus;
use super::exception::ExcState;
use super::op::Op;
use super::stop::{FaultKind, Stop};

/// `Core::sram_page_flags` bits.
pub const PAGE_CODE: u8 = 1;
pub const PAGE_WATCH: u8 = 2;

/// Cycle costs of exception handling that the Cortex-M0+ TRM does not give per phase.
#[derive(Clone, Debug)]
pub struct ExceptionTiming {
    /// IRQ taken at an instruction boundary -> first handler instruction starts (TRM: 15).
    pub entry: u64,
    /// Extra cycles of an exception return (unstacking) on top of the returning BX/POP.
    pub exit: u64,
    /// Extra cycles of a tail-chained entry on top of the returning BX/POP.
    pub tail_chain: u64,
}

impl Default for ExceptionTiming {
    fn default() -> Self {
        ExceptionTiming { entry: 15, exit: 13, tail_chain: 9 }
    }
}

/// The core's memories and timing, fixed when it is built.
#[derive(Clone, Debug)]
pub struct CoreConfig {
    pub flash_base: u32,
    pub flash_size: u32,
    pub sram_base: u32,
    pub sram_size: u32,
    /// Wait states added to each instruction fetched and each data access made to flash.
    pub flash_wait_states: u32,
    /// MULS latency: 1 (fast multiplier) or 32 (small multiplier).
    pub mul_cycles: u32,
    pub exceptions: ExceptionTiming,
}

pub struct Core<S> {
    // --- registers ---
    /// r0..r14 with r13 = the SP currently selected. r[15] is scratch for PC reads.
    pub r: [u32; 16],
    /// Address of the instruction about to execute.
    pub pc: u32,
    /// N and Z packed: N = bit 63, Z = (low 32 bits == 0). Setting both from a result is
    /// one store of the sign-extended result; MSR/unstacking can encode any combination.
    pub nz: u64,
    pub c: bool,
    pub v: bool,
    pub ipsr: u32,
    pub primask: bool,
    pub spsel: bool,
    pub npriv: bool,
    /// The banked SP that is not selected (PSP while MSP is in use and vice versa).
    pub sp_other: u32,
    pub event_reg: bool,
    /// EPSR.T. Only ever 0 between a branch to an even address (or such a vector or
    /// stacked xPSR) and the INVSTATE HardFault it causes, so the stacked xPSR shows it.
    pub thumb: bool,
    pub sleeping: bool,
    /// The core sleeps because of WFE (woken by events too), not WFI.
    pub sleep_is_wfe: bool,
    /// Cycle at which the current sleep began (None: awake, or not yet seen asleep).
    pub sleep_since: Option<u64>,

    // --- time ---
    pub cycles: u64,
    pub sleep_cycles: u64,
    pub instructions: u64,
    /// The run loop stops at the first instruction boundary at or after this cycle.
    pub next_event: u64,
    /// Simulated-time limit in cycles (u64::MAX = none).
    pub cycle_limit: u64,
    /// The device scheduler's horizon: `run` returns `Stop::Pause` at the first instruction
    /// boundary at or after it, and a core asleep with nothing due before it stays asleep
    /// at its cycle (u64::MAX = run alone).
    pub pause_cycle: u64,
    pub flash_wait_states: u32,
    pub mul_cycles: u32,
    pub exception_timing: ExceptionTiming,
    /// Flash data reads end the run loop's block (an observer settles each one exactly).
    pub flash_reads_end_block: bool,

    // --- memory ---
    pub flash: Vec<u8>,
    pub sram: Vec<u8>,
    pub flash_ops: Vec<Op>,
    pub sram_ops: Vec<Op>,
    /// Per 256-byte SRAM page: PAGE_CODE if any decoded instruction lives there, PAGE_WATCH
    /// if the processor watches it (`Bus::watched_store`). Stores test the whole byte once.
    pub sram_page_flags: Vec<u8>,
    pub flash_base: u32,
    pub sram_base: u32,

    // --- the architecture's exception state and system registers ---
    pub exc: ExcState,
    pub vtor: u32,
    pub scr: u32,

    // --- run control ---
    pub stop: Option<Stop>,
    /// SYSRESETREQ was written: reset at the next instruction boundary.
    pub reset_requested: bool,
    /// The most recent fault that entered HardFault: (kind, faulting PC).
    pub last_fault: Option<(FaultKind, u32)>,
    /// A debugger is attached: BKPT halts instead of faulting.
    pub debugger: bool,
    /// Debugger breakpoints (planted as `DebugBreak` ops in the decode caches).
    pub breakpoints: std::collections::BTreeSet<u32>,
    /// Execute the real instruction once at this breakpoint address (resuming from it).
    pub resume_from: Option<u32>,

    /// The processor around the core: its bus, devices and observers.
    pub sys: S,
}

impl<S> std::ops::Deref for Core<S> {
    type Target = S;
    #[inline(always)]
    fn deref(&self) -> &S {
        &self.sys
    }
}

impl<S> std::ops::DerefMut for Core<S> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut S {
        &mut self.sys
    }
}

impl<S: Bus> Core<S> {
    /// A core in its state before reset (`reset` loads SP and PC from the vector table);
    /// the devices are reset through the bus.
    pub fn new(config: &CoreConfig, sys: S) -> Core<S> {
        let flash_size = config.flash_size as usize;
        let sram_size = config.sram_size as usize;
        let mut m = Core {
            r: [0; 16],
            pc: 0,
            nz: 1,
            c: false,
            v: false,
            ipsr: 0,
            primask: false,
            spsel: false,
            npriv: false,
            sp_other: 0,
            event_reg: false,
            thumb: true,
            sleeping: false,
            sleep_is_wfe: false,
            sleep_since: None,
            cycles: 0,
            sleep_cycles: 0,
            instructions: 0,
            next_event: 0,
            cycle_limit: u64::MAX,
            pause_cycle: u64::MAX,
            flash_wait_states: config.flash_wait_states,
            mul_cycles: config.mul_cycles,
            exception_timing: config.exceptions.clone(),
            flash_reads_end_block: false,
            flash: vec![0; flash_size],
            sram: vec![0; sram_size],
            flash_ops: Op::undecoded_vec(flash_size / 2),
            sram_ops: Op::undecoded_vec(sram_size / 2),
            sram_page_flags: vec![0; sram_size.div_ceil(256)],
            flash_base: config.flash_base,
            sram_base: config.sram_base,
            exc: ExcState::default(),
            vtor: 0,
            scr: 0,
            stop: None,
            reset_requested: false,
            last_fault: None,
            debugger: false,
            breakpoints: Default::default(),
            resume_from: None,
            sys,
        };
        S::reset_devices(&mut m);
        m
    }

    /// Reset the core and devices (power-on or SYSRESETREQ); memory contents are kept.
    pub fn reset(&mut self) {
        self.reset_requested = false;
        self.exc = ExcState::default();
        S::reset_devices(self);
        self.r = [0; 16];
        self.nz = 1;
        self.c = false;
        self.v = false;
        self.ipsr = 0;
        self.primask = false;
        self.spsel = false;
        self.npriv = false;
        self.event_reg = false;
        self.sleeping = false;
        self.vtor = 0;
        self.scr = 0;
        let sp = self.peek32(0).unwrap_or(0);
        let entry = self.peek32(4).unwrap_or(0);
        self.r[13] = sp & !3;
        self.sp_other = 0;
        self.r[14] = 0xffff_ffff;
        self.pc = entry & !1;
        self.thumb = entry & 1 != 0;
        if entry & 1 == 0 {
            self.exc.pending_fault = Some(FaultKind::InvalidState);
        }
        self.next_event = 0;
    }
}

impl<S> Core<S> {
    // ------------------------------------------------------------------ registers

    pub fn apsr(&self) -> u32 {
        ((self.flag_n() as u32) << 31)
            | ((self.flag_z() as u32) << 30)
            | ((self.c as u32) << 29)
            | ((self.v as u32) << 28)
    }

    pub fn set_apsr(&mut self, v: u32) {
        let n = v & (1 << 31) != 0;
        let z = v & (1 << 30) != 0;
        self.nz = match (n, z) {
            (false, false) => 1,
            (false, true) => 0,
            (true, false) => u64::MAX,
            (true, true) => 0xFFFF_FFFF_0000_0000,
        };
        self.c = v & (1 << 29) != 0;
        self.v = v & (1 << 28) != 0;
    }

    #[inline(always)]
    pub fn flag_n(&self) -> bool {
        (self.nz as i64) < 0
    }

    #[inline(always)]
    pub fn flag_z(&self) -> bool {
        self.nz as u32 == 0
    }

    /// xPSR as stacked: flags, T bit, exception number.
    pub fn xpsr(&self) -> u32 {
        self.apsr() | ((self.thumb as u32) << 24) | self.ipsr
    }

    /// Privileged execution: handler mode always is; thread mode unless CONTROL.nPRIV.
    #[inline(always)]
    pub fn privileged(&self) -> bool {
        !self.npriv || self.in_handler()
    }

    pub fn in_handler(&self) -> bool {
        self.ipsr != 0
    }

    pub fn msp(&self) -> u32 {
        if self.uses_psp() {
            self.sp_other
        } else {
            self.r[13]
        }
    }

    pub fn psp(&self) -> u32 {
        if self.uses_psp() {
            self.r[13]
        } else {
            self.sp_other
        }
    }

    pub fn uses_psp(&self) -> bool {
        self.spsel && !self.in_handler()
    }

    pub fn set_msp(&mut self, v: u32) {
        if self.uses_psp() {
            self.sp_other = v & !3
        } else {
            self.r[13] = v & !3
        }
    }

    pub fn set_psp(&mut self, v: u32) {
        if self.uses_psp() {
            self.r[13] = v & !3
        } else {
            self.sp_other = v & !3
        }
    }

    /// Change which stack pointer is selected, swapping the banked copy.
    pub fn select_sp(&mut self, psp: bool) {
        if psp != self.uses_psp() {
            std::mem::swap(&mut self.r[13], &mut self.sp_other);
        }
    }
}
