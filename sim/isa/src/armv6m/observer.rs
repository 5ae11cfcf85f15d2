//! The events the core produces, and the interface through which whatever watches it
//! (accounting, event logs, waveforms, task following) is told of them. The core knows
//! the events, never their observers.
//!
//! The run loop is generic over an `Observer` chosen once per block, so the loop with
//! `NoObserver` is the loop with no observer code at all: its methods are empty and
//! `COUNTS_EXECUTIONS` is false, and the compiler drops the per-instruction bookkeeping.
//! Events outside the hot loop (sleep, exceptions, faults) are rare and go to the observers
//! the processor attaches (`Bus::Observers`), which decide at run time who is listening.

use super::core::Core;
use super::op::Kind;
use super::stop::FaultKind;

/// Receives the events of a `Core<S>`. Methods are associated functions on the core,
/// because an observer's state lives in the processor (`S`) the core drives; every
/// default does nothing.
pub trait Observer<S> {
    /// Whether the run loop counts each flash instruction's executions (in the array
    /// `block_begins` returns) and settles each block's last instruction. An observer that
    /// counts is told nothing else per instruction: an instruction's cycles are its static
    /// cost, plus taken branches, plus the exact settlement of the block's last one.
    const COUNTS_EXECUTIONS: bool;

    /// Whether this observer counts executions now (it may be attached and idle): the
    /// core then executes through it rather than through `NoObserver`.
    #[inline(always)]
    fn counts(_m: &Core<S>) -> bool {
        false
    }

    /// Whether the next block can count executions (the counters cover all of flash: the
    /// run loop indexes them without bounds checks).
    #[inline(always)]
    fn counts_block(_m: &Core<S>) -> bool {
        false
    }

    /// A block of instructions begins: the array of execution counters (one per flash
    /// halfword, valid until the block ends). Null unless `COUNTS_EXECUTIONS`.
    #[inline(always)]
    fn block_begins(_m: &mut Core<S>) -> *mut u64 {
        std::ptr::null_mut()
    }

    /// An instruction (or fetch fault, as `Kind::Undefined`) outside flash took `cycles`.
    #[inline(always)]
    fn executed_outside_flash(_m: &mut Core<S>, _kind: Kind, _cycles: u64) {}

    /// The block ended with the flash instruction at `pc`, which started at cycle
    /// `before`: settle whatever its cycles differ from its static cost.
    #[inline(always)]
    fn settle(_m: &mut Core<S>, _pc: u32, _before: u64) {}

    /// A conditional branch in flash at `pc` was taken (one cycle beyond its static cost).
    #[inline(always)]
    fn branch_taken(_m: &mut Core<S>, _pc: u32) {}

    /// Whether the observer watches the main stack now: the run loop then executes its
    /// variant that reports each write that may lower SP (`stack_lowered`,
    /// `stack_registers_written`); the variant it runs otherwise has no code for them.
    #[inline(always)]
    fn watches_stack(_m: &Core<S>) -> bool {
        false
    }

    /// The instruction at `pc` may have lowered SP (PUSH, SUB SP, MOV SP or ADD SP from a
    /// register); only told while `watches_stack`. In the hot loop: keep it to a compare.
    #[inline(always)]
    fn stack_lowered(_m: &mut Core<S>, _pc: u32) {}

    /// The instruction at `pc` wrote MSP, PSP or CONTROL (MSR): the stack in use or the
    /// main stack's pointer may have changed. Only told while `watches_stack`.
    #[inline(always)]
    fn stack_registers_written(_m: &mut Core<S>, _pc: u32) {}

    /// An indirect call (BLX) to `target`.
    #[inline(always)]
    fn indirect_call(_m: &mut Core<S>, _target: u32) {}

    /// Cycles the core spent outside instructions (exception entry between blocks).
    #[inline(always)]
    fn core_cycles(_m: &mut Core<S>, _cycles: u64) {}

    /// The core starts sleeping (`deep`: SCR.SLEEPDEEP).
    #[inline(always)]
    fn sleep_begins(_m: &mut Core<S>, _deep: bool) {}

    /// The core, asleep since cycle `since`, wakes at the current cycle (before any
    /// wake-up latency).
    #[inline(always)]
    fn sleep_ends(_m: &mut Core<S>, _since: u64) {}

    /// The core sleeps from cycle `from` to `to` (nothing wakes it before).
    #[inline(always)]
    fn sleeps(_m: &mut Core<S>, _from: u64, _to: u64, _deep: bool) {}

    /// The core wakes after having slept: the wake-up latency in cycles, which delays it.
    #[inline(always)]
    fn wakeup_latency(_m: &mut Core<S>) -> u64 {
        0
    }

    /// The core wakes up over cycles `from` to `to` (its wake-up latency, when not zero).
    #[inline(always)]
    fn wakes(_m: &mut Core<S>, _from: u64, _to: u64) {}

    /// Exception `n` was entered; the PC is its handler's first instruction.
    #[inline(always)]
    fn exception_entered(_m: &mut Core<S>, _n: u32) {}

    /// Exception `n` starts returning.
    #[inline(always)]
    fn exception_returns(_m: &mut Core<S>, _n: u32) {}

    /// The pending or active exceptions may have changed.
    #[inline(always)]
    fn exceptions_changed(_m: &mut Core<S>) {}

    /// An exception return restored a context (thread or handler): what runs may differ.
    #[inline(always)]
    fn context_restored(_m: &mut Core<S>) {}

    /// A synchronous fault of the instruction at the PC.
    #[inline(always)]
    fn fault(_m: &mut Core<S>, _kind: FaultKind) {}
}

/// Nothing attached: every event compiles to nothing.
pub struct NoObserver;

impl<S> Observer<S> for NoObserver {
    const COUNTS_EXECUTIONS: bool = false;
}
