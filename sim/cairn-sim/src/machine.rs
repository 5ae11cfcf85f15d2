//! The simulated processor and its board: core registers, memories with their decode
//! caches, system and board peripherals, and the cycle clock.

use crate::config::BoardConfig;
use crate::console::{ConsoleSink, MemoryConsole};
use crate::cpu::exception::ExcState;
use crate::cpu::op::Op;
use crate::devices::DeviceTable;
use crate::periph::bus_ctrl::BusCtrl;
use crate::periph::cmsdk_timer::CmsdkTimer;
use crate::periph::cmsdk_uart::CmsdkUart;
use crate::periph::rtc::Rtc;
use crate::periph::systick::SysTick;
use crate::periph::trace_port::TracePort;
use crate::symbols::Symbols;

/// Why a fault happened; becomes a HardFault (or a lockup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Undefined,
    Unaligned(u32),
    BusError(u32),
    /// Instruction fetch from memory that cannot be executed.
    NoExecute(u32),
    /// Branch to an address with bit 0 clear (Thumb bit cleared).
    InvalidState,
    /// Invalid EXC_RETURN value.
    InvalidReturn(u32),
    /// SVC executed at a priority where it cannot be taken.
    SvcEscalation,
    /// BKPT with no debugger attached.
    Breakpoint,
    /// Stacking or unstacking failed.
    StackError(u32),
    /// Vector table read failed.
    VectorRead(u32),
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FaultKind::Undefined => write!(f, "undefined instruction"),
            FaultKind::Unaligned(a) => write!(f, "unaligned access at 0x{a:08x}"),
            FaultKind::BusError(a) => write!(f, "bus error at 0x{a:08x}"),
            FaultKind::NoExecute(a) => write!(f, "instruction fetch from non-executable address 0x{a:08x}"),
            FaultKind::InvalidState => write!(f, "branch to ARM state (bit 0 of target clear)"),
            FaultKind::InvalidReturn(v) => write!(f, "invalid EXC_RETURN 0x{v:08x}"),
            FaultKind::SvcEscalation => write!(f, "SVC executed where it cannot be taken"),
            FaultKind::Breakpoint => write!(f, "BKPT with no debugger attached"),
            FaultKind::StackError(a) => write!(f, "stacking error at 0x{a:08x}"),
            FaultKind::VectorRead(a) => write!(f, "vector table read failed at 0x{a:08x}"),
        }
    }
}

/// Why `run` returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Semihosting exit with this status.
    Exit(i32),
    /// `--max-time` or `--max-instructions` reached.
    Limit,
    /// Lockup: a fault at HardFault or NMI priority, or an unrecoverable stacking error.
    Lockup { kind: FaultKind, pc: u32, ipsr: u32 },
    /// Asleep with nothing that could ever wake the core.
    SleepForever,
    /// Breakpoint reached (debugger attached).
    Breakpoint,
    /// The processor powered itself off (in a device, until a bus frame powers it on).
    PowerOff,
    /// `pause_cycle` reached, or asleep with nothing due before it: the device scheduler
    /// resumes the processor later. Never returned when `pause_cycle` is `u64::MAX`.
    Pause,
}

pub use crate::console::Stream;

/// `Machine::sram_page_flags` bits.
pub const PAGE_CODE: u8 = 1;
pub const PAGE_WATCH: u8 = 2;

pub struct Machine {
    // --- core registers ---
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

    // --- memory ---
    pub flash: Vec<u8>,
    pub sram: Vec<u8>,
    pub flash_ops: Vec<Op>,
    pub sram_ops: Vec<Op>,
    /// Per 256-byte SRAM page: PAGE_CODE if any decoded instruction lives there, PAGE_WATCH
    /// if it holds a watched variable (`--rtos`). Stores test the whole byte once.
    pub sram_page_flags: Vec<u8>,
    pub flash_base: u32,
    pub sram_base: u32,

    // --- system and board devices ---
    pub exc: ExcState,
    pub vtor: u32,
    pub scr: u32,
    pub systick: SysTick,
    /// The board's CMSDK timers and UARTs, in board-file order.
    pub timers: Vec<CmsdkTimer>,
    pub uarts: Vec<CmsdkUart>,
    pub trace_port: TracePort,
    /// The module's port on a device's bus, and its real-time clock.
    pub bus_ctrl: BusCtrl,
    pub rtc: Rtc,
    /// Where the board file places each device, and its interrupt numbers.
    pub devices: DeviceTable,

    pub config: BoardConfig,
    pub symbols: Symbols,
    pub stop: Option<Stop>,
    /// SYSRESETREQ was written: reset at the next instruction boundary.
    pub reset_requested: bool,
    /// The most recent fault that entered HardFault: (kind, faulting PC).
    pub last_fault: Option<(FaultKind, u32)>,
    /// Where the firmware's console output goes: kept in memory unless the owner (the CLI)
    /// puts another sink here.
    pub console: Box<dyn ConsoleSink>,
    /// A debugger is attached: BKPT halts instead of faulting.
    pub debugger: bool,
    /// Semihosting: open handles (index = handle - 1), for SYS_OPEN of ":tt".
    pub semihost_handles: Vec<Stream>,
    /// Warnings already printed (each is printed once).
    pub warned: std::collections::BTreeSet<String>,
    /// Debugger breakpoints (planted as `DebugBreak` ops in the decode caches).
    pub breakpoints: std::collections::BTreeSet<u32>,
    /// Execute the real instruction once at this breakpoint address (resuming from it).
    pub resume_from: Option<u32>,
    /// Words written to the trace port.
    pub trace_port_words: u64,
    /// Fault triggers on trace-port words: (word, mask, occurrences left, rule): a word `w`
    /// with `w & mask == word` counts; when one reaches zero its rule goes to `triggered`
    /// and the run pauses at this instruction.
    pub trace_triggers: Vec<(u32, u32, u64, usize)>,
    pub triggered: Vec<usize>,
    /// Cycles spent powered off (in a device).
    pub off_cycles: u64,
    /// Exception-event recorder for `--trace`, when enabled.
    pub trace: Option<crate::trace::TraceLog>,
    /// Sized function symbols of the loaded ELF (for energy attribution).
    pub functions: Vec<crate::energy::categories::FuncInfo>,
    /// Hot-loop energy counters (empty unless energy accounting is on).
    pub meter: crate::energy::Meter,
    /// Flash data reads end the run loop's block (energy accounting with wait states).
    pub flash_reads_end_block: bool,
    /// The RTOS current-task watch (`--rtos`), when enabled.
    pub rtos: Option<Box<crate::rtos::Watch>>,
    /// Energy accounting state, when a profile is active.
    pub energy: Option<Box<crate::energy::EnergyState>>,
    /// Idle periods (sleeps) of the core.
    pub idle: crate::idle::IdleStats,
    /// Cairn scenario devices (GPIO, I/O ports, ADC, stimuli) and the I/O event log.
    pub io: crate::io_system::IoSystem,
}

impl Machine {
    pub fn new(config: BoardConfig) -> Machine {
        let flash_size = config.flash_size as usize;
        let sram_size = config.sram_size as usize;
        let clock_hz = config.clock_hz;
        let devices = DeviceTable::new(&config.board);
        let mut m = Machine {
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
            cycles: 0,
            sleep_cycles: 0,
            instructions: 0,
            next_event: 0,
            cycle_limit: u64::MAX,
            pause_cycle: u64::MAX,
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
            systick: SysTick::new(config.clock_hz, config.systick_ref_hz),
            timers: (0..devices.timers).map(|_| CmsdkTimer::default()).collect(),
            uarts: (0..devices.uarts).map(|_| CmsdkUart::default()).collect(),
            trace_port: TracePort,
            bus_ctrl: BusCtrl::default(),
            rtc: Rtc::new(clock_hz),
            devices,
            config,
            symbols: Symbols::default(),
            stop: None,
            reset_requested: false,
            last_fault: None,
            console: Box::new(MemoryConsole::default()),
            debugger: false,
            semihost_handles: Vec::new(),
            warned: Default::default(),
            breakpoints: Default::default(),
            resume_from: None,
            trace_port_words: 0,
            trace_triggers: Vec::new(),
            triggered: Vec::new(),
            off_cycles: 0,
            trace: None,
            functions: Vec::new(),
            meter: Default::default(),
            flash_reads_end_block: false,
            energy: None,
            rtos: None,
            idle: Default::default(),
            io: crate::io_system::IoSystem::new(clock_hz),
        };
        m.reset_devices();
        m
    }

    /// Reset the core and devices (power-on or SYSRESETREQ); memory contents are kept.
    pub fn reset(&mut self) {
        self.reset_requested = false;
        self.reset_devices();
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

    fn reset_devices(&mut self) {
        self.exc = ExcState::default();
        self.systick = SysTick::new(self.config.clock_hz, self.config.systick_ref_hz);
        self.reset_board_devices();
        // Cairn's devices also take the scenario's firings when the board does not place them.
        self.io.reset_registers();
    }

    /// Install the I/O section of a scenario (stimuli, ports, ADC, measurements) before a
    /// run. Call after the clock is final: scenario times are converted to its cycles.
    pub fn install_io_scenario(&mut self, sc: crate::scenario_io::IoScenario, seed: u64) {
        self.io.clock_hz = self.config.clock_hz;
        self.io.install(sc, seed);
        self.next_event = 0;
    }

    /// Record power state and IRQ changes for a waveform (`--vcd`).
    pub fn record_timeline(&mut self) {
        self.io.timeline = Some(Default::default());
    }

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

    // ------------------------------------------------------------------ console

    pub fn emit(&mut self, stream: Stream, byte: u8) {
        self.console.write_at(stream, byte, self.cycles);
        if self.console.error().is_some() {
            // The CLI reports the write error when the run ends, at this instruction.
            self.cycle_limit = self.cycle_limit.min(self.cycles);
            self.next_event = 0;
        }
    }

    // ------------------------------------------------------------------ memory

    /// Load bytes into memory outside of simulation (ELF loading, debugger writes).
    /// Fails if any byte falls outside flash or SRAM.
    pub fn load_bytes(&mut self, addr: u32, bytes: &[u8]) -> Result<(), u32> {
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            if let Some(off) = self.flash_offset(a, 1) {
                self.flash[off] = *b;
            } else if let Some(off) = self.sram_offset(a, 1) {
                self.sram[off] = *b;
            } else {
                return Err(a);
            }
        }
        self.invalidate_code_range(addr, bytes.len() as u32);
        Ok(())
    }

    /// Forget decoded instructions overlapping [addr, addr+len).
    pub fn invalidate_code_range(&mut self, addr: u32, len: u32) {
        let start = addr.saturating_sub(2);
        let end = addr.saturating_add(len);
        let mut a = start & !1;
        while a < end {
            if let Some(off) = self.flash_offset(a, 2) {
                self.flash_ops[off >> 1] = Op::UNDECODED;
            } else if let Some(off) = self.sram_offset(a, 2) {
                self.sram_ops[off >> 1] = Op::UNDECODED;
            }
            a = a.wrapping_add(2);
            if a == 0 {
                break;
            }
        }
    }

    #[inline(always)]
    pub fn flash_offset(&self, addr: u32, size: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.flash_base);
        if (off as u64 + size as u64) <= self.flash.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn sram_offset(&self, addr: u32, size: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.sram_base);
        if (off as u64 + size as u64) <= self.sram.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    /// Read memory without side effects (debugger, diagnostics). Devices read as absent.
    pub fn peek8(&self, addr: u32) -> Option<u8> {
        if let Some(off) = self.flash_offset(addr, 1) {
            Some(self.flash[off])
        } else {
            self.sram_offset(addr, 1).map(|off| self.sram[off])
        }
    }

    pub fn peek32(&self, addr: u32) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..4 {
            v |= (self.peek8(addr.wrapping_add(i))? as u32) << (8 * i);
        }
        Some(v)
    }

    #[inline(always)]
    pub fn read32(&mut self, addr: u32) -> Result<u32, FaultKind> {
        self.read32_counted(addr, true)
    }

    /// A literal-pool load (LDR rt, [pc, #imm]): its flash wait states are part of the
    /// instruction's static cost, so it never needs settling (energy/cost.rs).
    #[inline(always)]
    pub fn read32_literal(&mut self, addr: u32) -> Result<u32, FaultKind> {
        self.read32_counted(addr, false)
    }

    /// Flash wait states of a data read. With energy accounting they vary per execution,
    /// so the read ends the run loop's block and the instruction is settled exactly.
    #[inline(always)]
    fn flash_data_wait(&mut self, settle: bool) {
        self.cycles += self.config.flash_wait_states as u64;
        if settle && self.flash_reads_end_block {
            self.next_event = 0;
        }
    }

    #[inline(always)]
    fn read32_counted(&mut self, addr: u32, settle: bool) -> Result<u32, FaultKind> {
        if addr & 3 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            let b = &self.sram[off..off + 4];
            return Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(settle);
            let b = &self.flash[off..off + 4];
            return Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        self.io_read(addr, 4)
    }

    #[inline(always)]
    pub fn read16(&mut self, addr: u32) -> Result<u32, FaultKind> {
        if addr & 1 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            return Ok(u16::from_le_bytes([self.sram[off], self.sram[off + 1]]) as u32);
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(true);
            return Ok(u16::from_le_bytes([self.flash[off], self.flash[off + 1]]) as u32);
        }
        self.io_read(addr, 2)
    }

    #[inline(always)]
    pub fn read8(&mut self, addr: u32) -> Result<u32, FaultKind> {
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            return Ok(self.sram[off] as u32);
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(true);
            return Ok(self.flash[off] as u32);
        }
        self.io_read(addr, 1)
    }

    /// One test per store, whatever the page holds (decoded code, a watched variable).
    #[inline(always)]
    fn sram_written(&mut self, off: usize, size: usize) {
        if self.sram_page_flags[off >> 8] != 0 {
            self.sram_page_written(off, size);
        }
    }

    #[cold]
    #[inline(never)]
    fn sram_page_written(&mut self, off: usize, size: usize) {
        let flags = self.sram_page_flags[off >> 8];
        if flags & PAGE_CODE != 0 {
            self.invalidate_sram_code(off);
        }
        if flags & PAGE_WATCH != 0 {
            self.rtos_store(off, size);
        }
    }

    fn invalidate_sram_code(&mut self, off: usize) {
        let idx = off >> 1;
        let lo = idx.saturating_sub(1);
        let hi = (idx + 2).min(self.sram_ops.len());
        for op in &mut self.sram_ops[lo..hi] {
            *op = Op::UNDECODED;
        }
    }

    #[inline(always)]
    pub fn write32(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        if addr & 3 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off..off + 4].copy_from_slice(&value.to_le_bytes());
            self.sram_written(off, 4);
            return Ok(());
        }
        self.io_write(addr, value, 4)
    }

    #[inline(always)]
    pub fn write16(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        if addr & 1 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off..off + 2].copy_from_slice(&(value as u16).to_le_bytes());
            self.sram_written(off, 2);
            return Ok(());
        }
        self.io_write(addr, value & 0xffff, 2)
    }

    #[inline(always)]
    pub fn write8(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off] = value as u8;
            self.sram_written(off, 1);
            return Ok(());
        }
        self.io_write(addr, value & 0xff, 1)
    }
}
