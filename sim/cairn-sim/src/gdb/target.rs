//! The simulated board as a `gdbstub` target: registers, memory, breakpoints, resume
//! modes and monitor commands.

use super::arch::{CortexM0Plus, Reg, Regs};
use super::runner::{Ran, Runner};
use crate::machine::{Machine, Stop};
use cairn_isa::armv6m::Cpu;
use gdbstub::common::{Pid, Signal};
use gdbstub::stub::SingleThreadStopReason;
use gdbstub::target::ext::base::single_register_access::{SingleRegisterAccess, SingleRegisterAccessOps};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadRangeStepping, SingleThreadRangeSteppingOps, SingleThreadResume,
    SingleThreadResumeOps, SingleThreadSingleStep, SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint,
    SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::extended_mode::{Args, AttachKind, ExtendedMode, ExtendedModeOps, ShouldTerminate};
use gdbstub::target::ext::monitor_cmd::{outputln, ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::{Target, TargetError, TargetResult};
use gdbstub_arch::arm::ArmBreakpointKind;
use std::collections::BTreeSet;

pub type StopReason = SingleThreadStopReason<u32>;

/// Instructions run between two polls of the connection while continuing.
const CONTINUE_SLICE: u64 = 200_000;
/// Instructions executed one by one between two polls while range stepping or while
/// watchpoints are set.
const STEP_SLICE: u32 = 20_000;
/// errno for "bad address": memory GDB asked for is not flash or SRAM.
const EFAULT: u8 = 14;

/// What the debugger last asked the core to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    Halted,
    Continue,
    Step,
    /// Step while the PC stays within [start, end).
    Range(u32, u32),
}

pub struct SimTarget<R: Runner> {
    /// The debugged machine (through its runner, which derefs to it).
    pub m: R,
    pub exec: Exec,
    /// A stop the core cannot run past (limit, lockup, sleep with no wake-up source).
    /// Reported again on every resume; returned to `main` when the debugger leaves.
    pub terminal: Option<Stop>,
    /// The firmware's semihosting exit status, once it exited.
    pub exit_code: Option<i32>,
    /// The debugger killed the program (and did not `run` it again).
    pub killed: bool,
    /// gdb connected with `target extended-remote`.
    extended: bool,
    sw_breakpoints: BTreeSet<u32>,
    hw_breakpoints: BTreeSet<u32>,
    watchpoints: Vec<Watchpoint>,
}

/// How a slice of instructions run one at a time ended.
enum Slice {
    Stopped(StopReason),
    /// All of them ran.
    Ran,
    /// The runner is not done with the current one yet.
    Pending,
}

impl Slice {
    fn stopped(self) -> Option<StopReason> {
        match self {
            Slice::Stopped(r) => Some(r),
            Slice::Ran | Slice::Pending => None,
        }
    }
}

/// A write watchpoint: `bytes` is what the watched memory held after the last check.
struct Watchpoint {
    addr: u32,
    bytes: Vec<u8>,
}

impl<R: Runner> SimTarget<R> {
    pub fn new(m: R) -> SimTarget<R> {
        SimTarget {
            m,
            exec: Exec::Halted,
            terminal: None,
            exit_code: None,
            killed: false,
            extended: false,
            sw_breakpoints: BTreeSet::new(),
            hw_breakpoints: BTreeSet::new(),
            watchpoints: Vec::new(),
        }
    }

    /// Make progress on the current resume request. `None`: still running (the caller
    /// polls the connection and calls again).
    pub fn advance(&mut self) -> Option<StopReason> {
        if let Some(s) = &self.terminal {
            return Some(terminal_signal(s));
        }
        let watching = !self.watchpoints.is_empty();
        let reason = match self.exec {
            Exec::Halted => Some(SingleThreadStopReason::Signal(Signal::SIGTRAP)),
            Exec::Step => match self.step_slice(1, None) {
                Slice::Stopped(r) => Some(r),
                Slice::Ran => Some(SingleThreadStopReason::DoneStep),
                Slice::Pending => None,
            },
            Exec::Continue if !watching => {
                let until = self.m.instructions.saturating_add(CONTINUE_SLICE);
                match self.m.run_to(until) {
                    Ran::Stopped(s) => Some(self.stopped(s)),
                    Ran::Done | Ran::Pending => None,
                }
            }
            Exec::Continue => self.step_slice(STEP_SLICE, None).stopped(),
            Exec::Range(start, end) => self.step_slice(STEP_SLICE, Some((start, end))).stopped(),
        };
        if reason.is_some() {
            self.exec = Exec::Halted;
            self.m.resume_from = None;
            // Show output that is waiting for a newline before the debugger prompt returns.
            self.m.console.flush();
        }
        reason
    }

    /// Execute up to `n` instructions one at a time, checking watchpoints after each and
    /// (range stepping) whether the PC left [start, end).
    fn step_slice(&mut self, n: u32, range: Option<(u32, u32)>) -> Slice {
        for _ in 0..n {
            let until = self.m.instructions.saturating_add(1);
            match self.m.run_to(until) {
                Ran::Done => {}
                Ran::Stopped(s) => return Slice::Stopped(self.stopped(s)),
                // The instruction has not run yet: the next call asks for it again.
                Ran::Pending => return Slice::Pending,
            }
            if let Some(addr) = self.watch_hit() {
                let kind = WatchKind::Write;
                return Slice::Stopped(SingleThreadStopReason::Watch { tid: (), kind, addr });
            }
            if let Some((start, end)) = range {
                if !(start..end).contains(&self.m.pc) {
                    return Slice::Stopped(SingleThreadStopReason::DoneStep);
                }
            }
        }
        Slice::Ran
    }

    /// The first watched address whose contents changed; takes new snapshots.
    fn watch_hit(&mut self) -> Option<u32> {
        let mut hit = None;
        for w in &mut self.watchpoints {
            for (i, old) in w.bytes.iter_mut().enumerate() {
                let addr = w.addr.wrapping_add(i as u32);
                let now = self.m.peek8(addr).unwrap_or(*old);
                if now != *old {
                    *old = now;
                    hit = hit.or(Some(addr));
                }
            }
        }
        hit
    }

    fn snapshot(&self, addr: u32, len: u32) -> Option<Vec<u8>> {
        (0..len).map(|i| self.m.peek8(addr.wrapping_add(i))).collect()
    }

    /// Translate a machine stop into what GDB is told.
    fn stopped(&mut self, stop: Stop) -> StopReason {
        let pc = self.m.pc;
        match stop {
            Stop::Exit(code) => {
                self.exit_code = Some(code);
                SingleThreadStopReason::Exited((code & 0xff) as u8)
            }
            Stop::Breakpoint if self.sw_breakpoints.contains(&pc) => SingleThreadStopReason::SwBreak(()),
            Stop::Breakpoint if self.hw_breakpoints.contains(&pc) => SingleThreadStopReason::HwBreak(()),
            // A BKPT instruction in the firmware: the PC stays on it, as on hardware.
            Stop::Breakpoint => SingleThreadStopReason::Signal(Signal::SIGTRAP),
            Stop::Limit
            | Stop::Lockup { .. }
            | Stop::StackOverflow { .. }
            | Stop::SleepForever
            | Stop::PowerOff
            | Stop::Pause => {
                let why = Runner::explain(&self.m, &stop).unwrap_or_else(|| match &stop {
                    Stop::Lockup { kind, pc, .. } => {
                        format!("core locked up: {kind} at pc 0x{pc:08x} ({})", self.m.symbols.describe(*pc))
                    }
                    Stop::SleepForever => format!(
                        "core asleep at pc 0x{pc:08x} ({}) with no enabled event that could wake it",
                        self.m.symbols.describe(pc)
                    ),
                    Stop::PowerOff => "the processor powered itself off".to_string(),
                    Stop::StackOverflow { pc, msp } => crate::stack_guard::overflow_message(&self.m, *pc, *msp),
                    _ => format!("limit reached after {} instructions, {} cycles", self.m.instructions, self.m.cycles),
                });
                let reason = terminal_signal(&stop);
                if let SingleThreadStopReason::Signal(sig) = reason {
                    crate::console::diagnostic(format_args!(
                        "cairn-sim: {why}; stopped with {sig} (the core cannot run on)"
                    ));
                }
                self.terminal = Some(stop);
                reason
            }
        }
    }

    /// Resume execution at the current PC, stepping over a breakpoint planted there.
    fn start(&mut self, exec: Exec) {
        let pc = self.m.pc;
        self.m.resume_from = self.m.breakpoints.contains(&pc).then_some(pc);
        self.exec = exec;
    }

    /// Forget the debugger's breakpoints and run as if no debugger had been attached.
    pub fn release(&mut self) {
        let planted: Vec<u32> = self.m.breakpoints.iter().copied().collect();
        self.m.breakpoints.clear();
        for addr in planted {
            self.m.invalidate_code_range(addr, 2);
        }
        self.sw_breakpoints.clear();
        self.hw_breakpoints.clear();
        self.watchpoints.clear();
        self.m.resume_from = None;
        self.m.debugger = false;
    }

    /// The debugger went away: release the core and let the firmware run on.
    pub fn detach(&mut self) -> Stop {
        self.release();
        let ended = self.exit_code.map(Stop::Exit).or(self.terminal.take());
        self.m.run_on(ended)
    }

    /// Reset the core and devices as the reset pin would; memory is kept.
    fn reset(&mut self) {
        self.m.reset();
        self.m.stop = None;
        self.m.resume_from = None;
        self.terminal = None;
        self.exec = Exec::Halted;
        self.killed = false;
    }

    fn read_reg(&self, reg: Reg) -> u32 {
        let m: &Machine = &self.m;
        m.0.reg(reg.core())
    }

    /// Write one register the way the debugger would through the core's debug port.
    fn write_reg(&mut self, reg: Reg, v: u32) {
        let m: &mut Machine = &mut self.m;
        m.0.set_reg(reg.core(), v);
        // SP, MSP or CONTROL may have changed: the stack guard's watch follows.
        if m.stack.watching {
            let pc = m.pc;
            m.stack_moved(pc);
        }
    }
}

/// The signal a terminal stop is reported with.
fn terminal_signal(stop: &Stop) -> StopReason {
    let sig = match stop {
        Stop::Lockup { .. } | Stop::StackOverflow { .. } => Signal::SIGSEGV,
        Stop::SleepForever | Stop::PowerOff => Signal::SIGSTOP,
        _ => Signal::SIGXCPU,
    };
    SingleThreadStopReason::Signal(sig)
}

impl<R: Runner> Target for SimTarget<R> {
    type Arch = CortexM0Plus;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, Self::Arch, Self::Error> {
        BaseOps::SingleThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    fn support_extended_mode(&mut self) -> Option<ExtendedModeOps<'_, Self>> {
        Some(self)
    }
}

impl<R: Runner> SingleThreadBase for SimTarget<R> {
    fn read_registers(&mut self, regs: &mut Regs) -> TargetResult<(), Self> {
        regs.r.copy_from_slice(&self.m.r[..13]);
        regs.sp = self.read_reg(Reg::Sp);
        regs.lr = self.read_reg(Reg::Lr);
        regs.pc = self.read_reg(Reg::Pc);
        regs.xpsr = self.read_reg(Reg::Xpsr);
        regs.msp = self.read_reg(Reg::Msp);
        regs.psp = self.read_reg(Reg::Psp);
        regs.primask = self.read_reg(Reg::Primask);
        regs.control = self.read_reg(Reg::Control);
        Ok(())
    }

    fn write_registers(&mut self, regs: &Regs) -> TargetResult<(), Self> {
        // Apply only what changed, so a `G` packet that carries both SP and its banked
        // copy (MSP or PSP) does not undo the one the user edited.
        let mut old = Regs::default();
        self.read_registers(&mut old)?;
        for i in 0..13u8 {
            if regs.r[i as usize] != old.r[i as usize] {
                self.write_reg(Reg::Gpr(i), regs.r[i as usize]);
            }
        }
        let fields = [
            (Reg::Lr, regs.lr, old.lr),
            (Reg::Pc, regs.pc, old.pc),
            (Reg::Xpsr, regs.xpsr, old.xpsr),
            (Reg::Primask, regs.primask, old.primask),
            (Reg::Control, regs.control, old.control),
            (Reg::Msp, regs.msp, old.msp),
            (Reg::Psp, regs.psp, old.psp),
            (Reg::Sp, regs.sp, old.sp),
        ];
        for (reg, new, was) in fields {
            if new != was {
                self.write_reg(reg, new);
            }
        }
        Ok(())
    }

    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, (), Self>> {
        Some(self)
    }

    fn read_addrs(&mut self, start: u32, data: &mut [u8]) -> TargetResult<usize, Self> {
        let mut n = 0;
        for (i, b) in data.iter_mut().enumerate() {
            let addr = start.wrapping_add(i as u32);
            let byte = self.m.peek8(addr).or_else(|| Some((self.m.peek_device32(addr)? >> (8 * (addr & 3))) as u8));
            match byte {
                Some(v) => *b = v,
                None => break,
            }
            n += 1;
        }
        if n == 0 && !data.is_empty() {
            return Err(TargetError::Errno(EFAULT));
        }
        Ok(n)
    }

    fn write_addrs(&mut self, start: u32, data: &[u8]) -> TargetResult<(), Self> {
        // All or nothing: check the whole range before changing a byte.
        if (0..data.len()).any(|i| self.m.peek8(start.wrapping_add(i as u32)).is_none()) {
            return Err(TargetError::Errno(EFAULT));
        }
        self.m.load_bytes(start, data).map_err(|_| TargetError::Errno(EFAULT))?;
        // What the debugger writes does not trigger watchpoints.
        for w in &mut self.watchpoints {
            for (i, b) in w.bytes.iter_mut().enumerate() {
                *b = self.m.peek8(w.addr.wrapping_add(i as u32)).unwrap_or(*b);
            }
        }
        Ok(())
    }

    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<R: Runner> SingleRegisterAccess<()> for SimTarget<R> {
    fn read_register(&mut self, _tid: (), reg: Reg, buf: &mut [u8]) -> TargetResult<usize, Self> {
        let bytes = self.read_reg(reg).to_le_bytes();
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(n)
    }

    fn write_register(&mut self, _tid: (), reg: Reg, val: &[u8]) -> TargetResult<(), Self> {
        let bytes: [u8; 4] = val.try_into().map_err(|_| TargetError::NonFatal)?;
        self.write_reg(reg, u32::from_le_bytes(bytes));
        Ok(())
    }
}

// Signals GDB asks to deliver on resume have no meaning for bare-metal firmware: ignored.
impl<R: Runner> SingleThreadResume for SimTarget<R> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.start(Exec::Continue);
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    fn support_range_step(&mut self) -> Option<SingleThreadRangeSteppingOps<'_, Self>> {
        Some(self)
    }
}

impl<R: Runner> SingleThreadSingleStep for SimTarget<R> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.start(Exec::Step);
        Ok(())
    }
}

impl<R: Runner> SingleThreadRangeStepping for SimTarget<R> {
    fn resume_range_step(&mut self, start: u32, end: u32) -> Result<(), String> {
        self.start(Exec::Range(start, end));
        Ok(())
    }
}

impl<R: Runner> SimTarget<R> {
    fn plant(&mut self, addr: u32) -> bool {
        if addr & 1 != 0 || self.m.peek8(addr).is_none() {
            return false;
        }
        if self.m.breakpoints.insert(addr) {
            self.m.invalidate_code_range(addr, 2);
        }
        true
    }

    fn unplant(&mut self, addr: u32) {
        if !self.sw_breakpoints.contains(&addr)
            && !self.hw_breakpoints.contains(&addr)
            && self.m.breakpoints.remove(&addr)
        {
            self.m.invalidate_code_range(addr, 2);
        }
    }
}

impl<R: Runner> Breakpoints for SimTarget<R> {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

/// Write watchpoints (`watch`), any number and size. The core runs one instruction at a
/// time while any is set and stops after an instruction that changed the watched bytes
/// (like the DWT, after the access). Read and access watchpoints are not supported.
impl<R: Runner> HwWatchpoint for SimTarget<R> {
    fn add_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        if kind != WatchKind::Write {
            return Ok(false);
        }
        let Some(bytes) = self.snapshot(addr, len) else {
            return Ok(false);
        };
        self.watchpoints.push(Watchpoint { addr, bytes });
        Ok(true)
    }

    fn remove_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        if kind != WatchKind::Write {
            return Ok(false);
        }
        let found = self.watchpoints.iter().position(|w| w.addr == addr && w.bytes.len() == len as usize);
        Ok(found.map(|i| self.watchpoints.remove(i)).is_some())
    }
}

impl<R: Runner> SwBreakpoint for SimTarget<R> {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: ArmBreakpointKind) -> TargetResult<bool, Self> {
        let ok = self.plant(addr);
        if ok {
            self.sw_breakpoints.insert(addr);
        }
        Ok(ok)
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: ArmBreakpointKind) -> TargetResult<bool, Self> {
        let had = self.sw_breakpoints.remove(&addr);
        self.unplant(addr);
        Ok(had)
    }
}

/// Hardware breakpoints (`hbreak`) behave exactly like software ones: the simulator
/// never patches memory, so there is no difference (and no comparator limit).
impl<R: Runner> HwBreakpoint for SimTarget<R> {
    fn add_hw_breakpoint(&mut self, addr: u32, _kind: ArmBreakpointKind) -> TargetResult<bool, Self> {
        let ok = self.plant(addr);
        if ok {
            self.hw_breakpoints.insert(addr);
        }
        Ok(ok)
    }

    fn remove_hw_breakpoint(&mut self, addr: u32, _kind: ArmBreakpointKind) -> TargetResult<bool, Self> {
        let had = self.hw_breakpoints.remove(&addr);
        self.unplant(addr);
        Ok(had)
    }
}

const MONITOR_HELP: &str = "\
cairn-sim monitor commands:
  monitor reset   reset the core and devices (memory is kept); then run
                  `maintenance flush register-cache` so gdb rereads registers
  monitor stats   instructions executed, cycles and simulated time so far
  monitor help    this text";

impl<R: Runner> MonitorCmd for SimTarget<R> {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let cmd = String::from_utf8_lossy(cmd);
        match cmd.trim() {
            "reset" | "reset halt" | "system_reset" if !self.m.can_reset() => {
                outputln!(out, "monitor reset: not available for one processor of a device");
            }
            "reset" | "reset halt" | "system_reset" => {
                self.reset();
                outputln!(
                    out,
                    "core reset: pc 0x{:08x} ({}), sp 0x{:08x}",
                    self.m.pc,
                    self.m.symbols.describe(self.m.pc),
                    self.m.r[13]
                );
            }
            "stats" | "cycles" => {
                let hz = self.m.config.clock_hz.max(1) as f64;
                outputln!(
                    out,
                    "instructions {}, cycles {} ({} asleep), simulated time {:.6} s at {} Hz",
                    self.m.instructions,
                    self.m.cycles,
                    self.m.sleep_cycles,
                    self.m.cycles as f64 / hz,
                    self.m.config.clock_hz
                );
            }
            "" | "help" => outputln!(out, "{MONITOR_HELP}"),
            other => outputln!(out, "unknown monitor command '{other}'\n{MONITOR_HELP}"),
        }
        Ok(())
    }
}

/// Extended mode (`target extended-remote`): `run` and `R` reset the core (the ELF is
/// not reloaded; use `load` for that), and `kill` keeps the session open for a later
/// `run`. Implementing it also makes `kill` answer "OK" before a plain `target remote`
/// session ends, which gdbstub does not do otherwise (gdb then reports an error).
impl<R: Runner> ExtendedMode for SimTarget<R> {
    fn on_start(&mut self) -> Result<(), String> {
        self.extended = true;
        Ok(())
    }

    fn run(&mut self, _filename: Option<&[u8]>, _args: Args<'_, '_>) -> TargetResult<Pid, Self> {
        if !self.m.can_reset() {
            return Err(TargetError::NonFatal);
        }
        self.reset();
        Ok(Pid::new(1).expect("1 is not zero"))
    }

    fn attach(&mut self, _pid: Pid) -> TargetResult<(), Self> {
        Err(TargetError::NonFatal)
    }

    fn query_if_attached(&mut self, _pid: Pid) -> TargetResult<AttachKind, Self> {
        // "Attached": when gdb quits it detaches and the firmware runs on.
        Ok(AttachKind::Attach)
    }

    fn kill(&mut self, _pid: Option<Pid>) -> TargetResult<ShouldTerminate, Self> {
        self.killed = true;
        Ok(if self.extended { ShouldTerminate::No } else { ShouldTerminate::Yes })
    }

    fn restart(&mut self) -> Result<(), String> {
        if !self.m.can_reset() {
            return Err("a processor of a device cannot be restarted alone".into());
        }
        self.reset();
        Ok(())
    }
}
