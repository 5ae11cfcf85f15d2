//! What the core reaches beyond its registers and memories: the processor's bus. The
//! processor that owns a core implements `Bus` for its own state (the `S` of `Core<S>`):
//! the system space and devices behind addresses that are not flash or SRAM, the devices'
//! events and interrupt lines, semihosting, and the observers attached to the core.
//!
//! Every method is an associated function on the whole core, because the processor's
//! state lives inside the core it drives (`Core::sys`) and a device access needs both (a
//! device raises an interrupt in the core's exception state). Calls are monomorphised:
//! the core pays for nothing a processor does not do.

use super::core::Core;
use super::observer::Observer;
use super::stop::FaultKind;

pub trait Bus: Sized {
    /// The observers attached to the core; told of its rare events at run time, and of
    /// every instruction when they count executions.
    type Observers: Observer<Self>;

    /// A read of `size` bytes (1, 2, 4) at an address outside flash and SRAM.
    fn read(m: &mut Core<Self>, addr: u32, size: u32) -> Result<u32, FaultKind>;

    /// A write of the low `size` bytes of `value` at an address outside SRAM.
    fn write(m: &mut Core<Self>, addr: u32, value: u32, size: u32) -> Result<(), FaultKind>;

    /// Raise the device events due at the core's current cycle (pending exceptions).
    fn process_events(m: &mut Core<Self>);

    /// The earliest future cycle at which a device raises an event (u64::MAX: none).
    fn next_event(m: &Core<Self>) -> u64;

    /// Sample level-sensitive interrupt lines into the pending set (after an exception
    /// return, a line still asserted pends again).
    fn update_irq_lines(m: &mut Core<Self>);

    /// Reset the devices (power-on, SYSRESETREQ). The core resets its own state after.
    fn reset_devices(m: &mut Core<Self>);

    /// `BKPT 0xAB`: a semihosting call (r0 = operation, r1 = parameter, result in r0).
    fn semihost(m: &mut Core<Self>);

    /// A store hit an SRAM page marked `PAGE_WATCH` (bytes [off, off + size) of SRAM).
    fn watched_store(m: &mut Core<Self>, off: usize, size: usize);
}
