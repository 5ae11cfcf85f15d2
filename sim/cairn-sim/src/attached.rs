//! The observers attached to one machine's core — energy accounting, the trace, the power
//! and exception timeline of the waveform — each optional, told of the core's events
//! through the core's `Observer` interface. The run loop counts executions with this
//! observer only while energy accounting is on; otherwise it runs with `NoObserver`, and
//! the rare events below ask at run time who is listening.

use crate::cpu::observer::Observer;
use crate::cpu::op::Kind;
use crate::machine::{Board, FaultKind, Machine};
use crate::observe::timeline::PowerState;
use cairn_isa::armv6m::Core;

pub struct Attached;

/// What the machine's devices and the RTOS watch report, passed on to the observers that
/// listen (the trace, energy accounting): the devices do not name their observers.
impl Attached {
    /// The kernel wrote an event word to the trace port.
    pub fn trace_word(m: &mut Machine, at: u64, word: u32) {
        if let Some(t) = m.trace.as_mut() {
            t.kernel_event(at, word);
        }
        m.energy_trace_word(word);
    }

    /// Timer `i`'s CTRL was written: enabled or not from now on.
    pub fn timer_ctrl(m: &mut Machine, i: usize, enabled: bool) {
        m.energy_timer_ctrl(i, enabled);
    }

    /// The console UART sent a byte at this divider.
    pub fn uart_byte(m: &mut Machine, bauddiv: u32) {
        m.energy_uart_byte(bauddiv);
    }

    /// The followed RTOS switched to task `key` (`to` is None when no task runs).
    pub fn task_switched(m: &mut Machine, key: u16, to: Option<&crate::rtos::Task>) {
        if let Some(t) = m.0.sys.trace.as_mut() {
            t.rtos_switch(m.0.cycles, to.map(|t| (t.key, t.name.as_str(), t.tcb)));
        }
        m.energy_set_thread_task(key, to.map(|t| t.name.as_str()));
    }
}

impl Observer<Board> for Attached {
    const COUNTS_EXECUTIONS: bool = true;

    /// Energy accounting is on.
    #[inline(always)]
    fn counts(m: &Core<Board>) -> bool {
        m.energy.is_some()
    }

    #[inline(always)]
    fn counts_block(m: &Core<Board>) -> bool {
        m.energy.is_some() && m.meter.fits(m.flash.len())
    }

    #[inline(always)]
    fn block_begins(m: &mut Core<Board>) -> *mut u64 {
        let m = Machine::of(m);
        // A task switch (which swaps the counter arrays) ends the block, and the switching
        // instruction was counted before it ran: the whole block counts in this array.
        m.meter.switched_from = None;
        m.meter.exec.as_mut_ptr()
    }

    #[inline(always)]
    fn executed_outside_flash(m: &mut Core<Board>, kind: Kind, cycles: u64) {
        let m = Machine::of(m);
        m.energy_charge_other(kind, cycles);
    }

    #[inline(always)]
    fn settle(m: &mut Core<Board>, pc: u32, before: u64) {
        let m = Machine::of(m);
        m.energy_settle(pc, before);
    }

    #[inline(always)]
    fn branch_taken(m: &mut Core<Board>, pc: u32) {
        let m = Machine::of(m);
        m.energy_branch_taken(pc);
    }

    #[inline(always)]
    fn indirect_call(m: &mut Core<Board>, target: u32) {
        let m = Machine::of(m);
        m.energy_note_call(target);
    }

    #[inline(always)]
    fn core_cycles(m: &mut Core<Board>, cycles: u64) {
        let m = Machine::of(m);
        if m.energy.is_some() {
            m.energy_charge_core(cycles);
        }
    }

    #[inline(always)]
    fn watches_stack(m: &Core<Board>) -> bool {
        m.stack.watching
    }

    /// Only a new low of the main stack leaves the run loop's compare.
    #[inline(always)]
    fn stack_lowered(m: &mut Core<Board>, pc: u32) {
        if m.r[13] < m.stack.watch {
            Machine::of(m).stack_moved(pc);
        }
    }

    fn stack_registers_written(m: &mut Core<Board>, pc: u32) {
        Machine::of(m).stack_moved(pc);
    }

    fn sleep_begins(m: &mut Core<Board>, deep: bool) {
        let m = Machine::of(m);
        m.energy_sleep_begins(deep);
    }

    fn sleep_ends(m: &mut Core<Board>, since: u64) {
        let slept = m.cycles - since;
        m.idle.record(slept);
    }

    fn sleeps(m: &mut Core<Board>, from: u64, to: u64, deep: bool) {
        let m = Machine::of(m);
        if let Some(t) = m.trace.as_mut() {
            t.sleep(from, to, deep);
        }
        if let Some(tl) = m.io.timeline.as_mut() {
            let state = if deep { PowerState::DeepSleep } else { PowerState::Sleep };
            tl.power.push((from, state));
            tl.power.push((to, PowerState::Run));
        }
        m.energy_sleep(to - from);
    }

    fn wakeup_latency(m: &mut Core<Board>) -> u64 {
        let m = Machine::of(m);
        m.energy_wakeup()
    }

    fn wakes(m: &mut Core<Board>, from: u64, to: u64) {
        let m = Machine::of(m);
        if let Some(t) = m.trace.as_mut() {
            t.wakeup(from, to);
        }
    }

    fn exception_entered(m: &mut Core<Board>, n: u32) {
        if let Some(t) = m.sys.trace.as_mut() {
            t.exception_entry(m.cycles, n);
        }
        Self::exceptions_changed(m);
        let pc = m.pc;
        // Stacking lowered SP; the handler runs on the main stack.
        if m.stack.watching {
            Machine::of(m).stack_moved(pc);
        }
        Machine::of(m).energy_note_handler_entry(pc);
    }

    fn exception_returns(m: &mut Core<Board>, n: u32) {
        if let Some(t) = m.sys.trace.as_mut() {
            t.exception_exit(m.cycles, n);
        }
    }

    /// Recorded for the waveform (only with `--vcd`).
    #[inline]
    fn exceptions_changed(m: &mut Core<Board>) {
        if let Some(tl) = m.sys.io.timeline.as_mut() {
            tl.note_exceptions(m.cycles, m.exc.pending, m.exc.active);
        }
    }

    fn context_restored(m: &mut Core<Board>) {
        let m = Machine::of(m);
        // The stack in use may have changed.
        if m.stack.watching {
            let pc = m.pc;
            m.stack_moved(pc);
        }
        m.energy_sync_task();
    }

    fn fault(m: &mut Core<Board>, kind: FaultKind) {
        if let Some(t) = m.sys.trace.as_mut() {
            t.fault(m.cycles, kind, m.pc);
        }
    }
}
