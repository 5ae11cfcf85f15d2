//! What every memory-mapped device offers the machine that places it on a board: register
//! reads and writes at an offset in its window, its interrupt lines, the next cycle at which
//! it raises one by itself, and reset. A device never calls upward: what an access causes
//! outside the device (a byte on the console, accounted energy, a trace word) comes back as
//! an [`Effect`] that the machine applies at once, at the same cycle; the I/O events of the
//! Cairn devices go into the [`EventLog`] the machine passes.

use super::io_event::EventLog;

/// What a register write causes outside the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond the device's own registers.
    None,
    /// A UART transmitted this byte; `bauddiv` is its divider at that moment (the line's busy time).
    TxByte { byte: u8, bauddiv: u32 },
    /// A timer's CTRL was written; whether it is enabled afterwards (enabled time is charged).
    TimerCtrl { enabled: bool },
    /// The kernel wrote one event word to the trace port. It changes no device state.
    TraceWord(u32),
    /// The device's own schedule of events changed (the ADC's periodic conversions).
    Reschedule,
    /// The processor powered itself off (the bus controller's POWER register): it stops now.
    PowerOff,
}

pub trait Device {
    /// Read the register word at `off` (word-aligned) in the window; `size` is the access
    /// size in bytes (the machine extracts the lane).
    fn read(&mut self, off: u32, size: u32, now: u64, log: &mut EventLog) -> u32;

    /// Write `value` (already shifted into its lane) to the register word at `off`.
    fn write(&mut self, off: u32, value: u32, size: u32, now: u64, log: &mut EventLog) -> Effect;

    /// Levels of the device's interrupt lines: bit k is its k-th line, which the board maps
    /// to an NVIC number.
    fn irq_lines(&mut self, now: u64) -> u32;

    /// The earliest future cycle at which the device raises a line by itself, if any.
    fn next_event(&self, _now: u64) -> Option<u64> {
        None
    }

    /// Raise what is due at `now`. Devices that fold elapsed time in on access (the timers)
    /// have nothing to do here.
    fn process_due(&mut self, _now: u64, _log: &mut EventLog) {}

    /// Registers back to their reset values (power-on, SYSRESETREQ).
    fn reset(&mut self);
}
