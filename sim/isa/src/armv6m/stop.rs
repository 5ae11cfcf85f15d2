//! Why the core faults, and why a run returns.

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
    /// The main stack went below the limit an observer watches (what ARMv8-M's MSPLIM
    /// checks; ARMv6-M has none): the instruction at `pc` (or the exception entry whose
    /// handler starts there) left MSP at `msp`. The run stops only when asked to.
    StackOverflow { pc: u32, msp: u32 },
    /// `pause_cycle` reached, or asleep with nothing due before it: the device scheduler
    /// resumes the processor later. Never returned when `pause_cycle` is `u64::MAX`.
    Pause,
}
