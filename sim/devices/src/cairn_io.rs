//! Cairn's devices in the Cairn window: the marker GPIO, the I/O ports, the ADC and the
//! stimulus interrupt controller, with their interrupt lines. What arrives from outside
//! (stimulus firings, input-port values) comes in through [`CairnIo::stimulus`] and
//! [`CairnIo::deliver`], called by the scenario's drivers at the scheduled cycle; what
//! happens at the pins goes out as events appended to an [`EventLog`] the caller passes.
//! Each is a [`Device`] that the machine places where the board file says.

use super::adc::{self, Adc};
use super::device::{Device, Effect};
use super::gpio::Gpio;
use super::io_event::{EventLog, IoKind};
use super::io_ports::{IoPorts, PORTS};
use super::stim_ctrl::{StimCtrl, LINES};

/// Where the shipped mps2-an385 board file places them (firmware headers and tests use
/// these; the machine decodes from the board file).
pub const GPIO_BASE: u32 = 0x4100_1000;
pub const PORTS_BASE: u32 = 0x4100_2000;
pub const ADC_BASE: u32 = 0x4100_3000;
pub const STIM_BASE: u32 = 0x4100_4000;
/// Their IRQ numbers on that board (external interrupt k is exception 16 + k); QEMU's
/// mps2-an385 leaves 16-23 unused.
pub const INPUT_IRQ: u32 = 16;
pub const ADC_IRQ: u32 = 17;
pub const STIM_IRQ_BASE: u32 = 18;

#[derive(Default)]
pub struct CairnIo {
    pub gpio: Gpio,
    pub ports: IoPorts,
    pub adc: Adc,
    pub stim: StimCtrl,
}

impl CairnIo {
    /// Register state back to reset values (SYSRESETREQ). The ADC's wiring and its place
    /// on the periodic grid stay, as the scenario's schedule goes on.
    pub fn reset_registers(&mut self) {
        self.gpio.reset();
        self.ports.reset();
        self.adc.reset();
        self.stim.reset();
    }

    /// Stimulus number `source` of the scenario fires on controller line `line`.
    pub fn stimulus(&mut self, cycle: u64, line: usize, source: u8, log: &mut EventLog) {
        let seq = self.stim.fire(line);
        log.log(cycle, IoKind::Stimulus, source, seq);
    }

    /// A value arrives on input port `port`.
    pub fn deliver(&mut self, cycle: u64, port: u8, value: u32, log: &mut EventLog) {
        self.ports.deliver(port as usize, value);
        log.log(cycle, IoKind::Input, port, value);
    }
}

impl Device for Gpio {
    fn read(&mut self, off: u32, _size: u32, _now: u64, _log: &mut EventLog) -> u32 {
        Gpio::read(self, off)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, now: u64, log: &mut EventLog) -> Effect {
        if let Some(levels) = Gpio::write(self, off, value) {
            log.log(now, IoKind::Gpio, 0, levels);
        }
        Effect::None
    }

    fn irq_lines(&mut self, _now: u64) -> u32 {
        0
    }

    fn reset(&mut self) {
        *self = Gpio::default();
    }
}

impl Device for IoPorts {
    fn read(&mut self, off: u32, _size: u32, _now: u64, _log: &mut EventLog) -> u32 {
        IoPorts::read(self, off)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, now: u64, log: &mut EventLog) -> Effect {
        if let Some(port) = IoPorts::write(self, off, value) {
            debug_assert!(port < PORTS);
            log.log(now, IoKind::Output, port as u8, value);
        }
        Effect::None
    }

    /// One line: an input port received a value (and its interrupt is enabled).
    fn irq_lines(&mut self, _now: u64) -> u32 {
        self.irq() as u32
    }

    fn reset(&mut self) {
        *self = IoPorts::default();
    }
}

/// The ADC's periodic conversions are not its own `next_event`: the I/O system schedules
/// them together with the scenario's drivers, so that at one cycle the drivers go first.
impl Device for Adc {
    fn read(&mut self, off: u32, _size: u32, now: u64, log: &mut EventLog) -> u32 {
        Adc::read(self, off, now, log)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, now: u64, _log: &mut EventLog) -> Effect {
        Adc::write(self, off, value, now);
        if off == adc::CTRL {
            // Starting or stopping periodic conversions changes the schedule.
            Effect::Reschedule
        } else {
            Effect::None
        }
    }

    /// One line: conversion done.
    fn irq_lines(&mut self, _now: u64) -> u32 {
        self.regs.irq() as u32
    }

    /// The wiring to the scenario's signals and the place on the periodic grid stay, as
    /// the scenario's schedule goes on.
    fn reset(&mut self) {
        self.regs = Default::default();
    }
}

impl Device for StimCtrl {
    fn read(&mut self, off: u32, _size: u32, _now: u64, _log: &mut EventLog) -> u32 {
        StimCtrl::read(self, off)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, _now: u64, _log: &mut EventLog) -> Effect {
        StimCtrl::write(self, off, value);
        Effect::None
    }

    /// Line k: stimulus line k fired and is not cleared yet.
    fn irq_lines(&mut self, _now: u64) -> u32 {
        self.status & ((1 << LINES) - 1)
    }

    fn reset(&mut self) {
        *self = StimCtrl::default();
    }
}
