//! Energy accounting: an instruction-level (Tiwari) model per core profile,
//! attributed to power state, code category, task and function.
//!
//! The run loop's energy variant (`run_loop::<_, _, true>`) only counts executions: one
//! increment per instruction in the current task's array (`Meter::exec`, one counter per
//! flash halfword). An instruction's cycles are its static cost (`cost.rs`, from the decoded
//! instruction and the configuration) plus whatever varied: a taken conditional branch adds
//! its extra cycle to `Meter::extra`, and everything else that can vary (exception entry and
//! return inside an instruction, faults, flash data reads with wait states, breakpoints,
//! task switches) ends the run loop's block, after which the last instruction is settled
//! exactly (`cycles - before - static`). So cycles per address = executions x static +
//! extra, exactly. Everything else (sleep, wake-up, task switches, calls into handlers)
//! happens at cold points. Joules are only computed when reporting, as exact integer
//! femtojoules per counter (`rates.rs`), so totals equal sums of parts.

pub mod categories;
pub mod curve;
pub mod profile;
pub mod range;
pub mod rates;

use cairn_isa::op::Kind;
use rates::Rates;

/// Instruction classes of the model. `Exception` is the core's own work (stacking on
/// exception entry outside any instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Class {
    Alu,
    Mul,
    Load,
    Store,
    Branch,
    Multi,
    System,
    Sleep,
    Exception,
}

impl Class {
    pub const COUNT: usize = 9;
    /// Counter slots per function (a power of two so the index is a shift).
    pub const SLOTS: usize = 16;
    pub const SHIFT: u32 = 4;
    pub const NAMES: [&'static str; Class::COUNT] =
        ["alu", "mul", "load", "store", "branch", "multi", "system", "sleep", "exception"];
}

/// The class of an instruction kind (a match the compiler turns into a table).
#[inline(always)]
pub fn class_of(kind: Kind) -> Class {
    use Kind::*;
    match kind {
        Mul => Class::Mul,
        LdrLit | LdrReg | LdrImm | LdrSp | LdrhReg | LdrhImm | LdrshReg | LdrbReg | LdrbImm | LdrsbReg => Class::Load,
        StrReg | StrImm | StrSp | StrhReg | StrhImm | StrbReg | StrbImm => Class::Store,
        Bx | Blx | BCond | B | Bl => Class::Branch,
        Push | Pop | Stm | Ldm => Class::Multi,
        Wfi | Wfe => Class::Sleep,
        Svc | Bkpt | Cpsie | Cpsid | Mrs | Msr | Barrier | Sev | DebugBreak | Undecoded | Undefined => Class::System,
        _ => Class::Alu,
    }
}

/// Cycles and executions of one instruction address (or one bucket): [cycles, count].
pub type Counter = [u64; 2];

/// The arrays the hot loop touches: empty unless energy accounting is on.
#[derive(Default)]
pub struct Meter {
    /// The current task's executions per flash halfword (calloc'd: only pages of code
    /// that runs are ever touched).
    pub exec: Vec<u64>,
    /// The current task's cycles beyond executions x static cost, per flash halfword
    /// (wrapping: an instruction that faulted took fewer cycles than its static cost).
    pub extra: Vec<u64>,
    /// The task whose counters were current when the first task switch of the running
    /// block happened (a switch ends the block, so it is the last instruction's task).
    pub switched_from: Option<u16>,
}

impl Meter {
    pub fn zeroed(n: usize) -> Meter {
        Meter { exec: vec![0; n], extra: vec![0; n], switched_from: None }
    }

    /// Both arrays have one counter per flash halfword of a flash of `flash_len` bytes.
    pub fn fits(&self, flash_len: usize) -> bool {
        self.exec.len() == flash_len / 2 && self.extra.len() == flash_len / 2
    }
}

/// Power states of the report.
pub const STATES: [&str; 4] = ["active", "sleep", "deep_sleep", "wakeup"];

/// Task keys: 0 = kernel/none, 1..=255 = kernel task IDs, IRQ_TASK = exception handlers,
/// above it tasks of another RTOS (`--rtos`), named in `EnergyState::task_names`.
pub const IRQ_TASK: u16 = 256;

pub fn task_name(t: u16) -> String {
    match t {
        0 => "kernel".into(),
        IRQ_TASK => "irq".into(),
        n => format!("task{n}"),
    }
}

/// Everything a task accumulated (its flash counters live in `Meter` while it runs).
#[derive(Clone, Debug, Default)]
pub struct TaskAcc {
    /// Executions and extra cycles per flash halfword (`Meter::exec`, `Meter::extra`).
    pub exec: Vec<u64>,
    pub extra: Vec<u64>,
    /// Instructions outside flash (SRAM code) and fetch faults, per class.
    pub other: [Counter; Class::COUNT],
    /// Exception-entry cycles outside instructions, by handler address.
    pub core: std::collections::BTreeMap<u32, Counter>,
    /// Cycles asleep in [sleep, deep sleep].
    pub sleep: [u64; 2],
    /// Deep-sleep cycles during which a wake-up timer ran (charged the RTC current too).
    pub rtc: u64,
    /// Wake-up cycles and wake-up count out of [sleep, deep sleep].
    pub wakeup: [u64; 2],
    pub wakeups: [u64; 2],
}

pub struct Function {
    pub name: String,
    pub addr: u32,
    pub size: u32,
    pub category: usize,
}

pub struct EnergyState {
    pub profile: String,
    pub rates: Rates,
    /// Sorted by address; index 0 is "(unknown)": code outside any sized function symbol,
    /// and SRAM code.
    pub funcs: Vec<Function>,
    pub categories: Vec<String>,
    pub tasks: std::collections::BTreeMap<u16, TaskAcc>,
    /// Task whose counters are in `Meter`.
    pub cur: u16,
    /// Task reported by the kernel (START/CURRENT/END words); `cur` is IRQ_TASK in handlers.
    pub thread_task: u16,
    /// Names of tasks not named `task_name(key)` (RTOS tasks followed by `--rtos`).
    pub task_names: std::collections::BTreeMap<u16, String>,
    /// Calls counted as they happen (BLX, exception entries), by target address. BL calls
    /// are counted when reporting, from the BL's execution count and its static target.
    pub dyn_calls: std::collections::BTreeMap<u32, u64>,
    /// State index (0 sleep, 1 deep) of the sleep in progress.
    pub sleep_state: usize,
    /// Bytes written to UART0's data register while its BAUDDIV was unprogrammed (< 16,
    /// below the CMSDK minimum): charged at the profile's baud rate.
    pub uart_bytes: u64,
    /// Transmitter-busy cycles of bytes sent with a programmed BAUDDIV (10 bit times of
    /// BAUDDIV cycles each).
    pub uart_busy_cycles: u64,
    /// Cycles during which a CMSDK timer was enabled, summed over timers.
    pub timer_cycles: u64,
    /// Cycle since which each timer has been enabled.
    pub timer_since: Vec<Option<u64>>,
    /// Enabled-timer cycles that fell in deep sleep (not charged).
    pub timer_paused: u64,
    /// First cycle counted (accounting starts at `enable_energy`).
    pub start_cycle: u64,
    /// ADC conversions done before accounting started (not charged).
    pub adc_conversions_before: u64,
}

impl EnergyState {
    /// The report's name of task `t`.
    pub fn task_label(&self, t: u16) -> String {
        self.task_names.get(&t).cloned().unwrap_or_else(|| task_name(t))
    }

    /// Index of the function containing `addr` (0 = unknown).
    pub fn func_at(&self, addr: u32) -> usize {
        let i = self.funcs[1..].partition_point(|f| f.addr <= addr);
        if i == 0 {
            return 0;
        }
        let f = &self.funcs[i];
        if addr - f.addr < f.size {
            i
        } else {
            0
        }
    }
}
