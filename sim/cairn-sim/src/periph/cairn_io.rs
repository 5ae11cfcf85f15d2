//! Cairn's devices in the Cairn window: the marker GPIO, the I/O ports, the ADC and the
//! stimulus interrupt controller, with their interrupt lines. What arrives from outside
//! (stimulus firings, input-port values) comes in through [`CairnIo::stimulus`] and
//! [`CairnIo::deliver`], called by the scenario's drivers at the scheduled cycle; what
//! happens at the pins goes out as events appended to an [`EventLog`] the caller passes.

use super::adc::Adc;
use super::gpio::Gpio;
use super::io_event::{EventLog, IoKind};
use super::io_ports::{IoPorts, PORTS};
use super::stim_ctrl::{StimCtrl, LINES};

pub const GPIO_BASE: u32 = 0x4100_1000;
pub const PORTS_BASE: u32 = 0x4100_2000;
pub const ADC_BASE: u32 = 0x4100_3000;
pub const STIM_BASE: u32 = 0x4100_4000;
/// IRQ numbers (external interrupt k is exception 16 + k); QEMU's mps2-an385 leaves 16-23 unused.
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
        self.gpio = Gpio::default();
        self.ports = IoPorts::default();
        self.adc.regs = Default::default();
        self.stim = StimCtrl::default();
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

    /// Interrupt lines as a bitmap of external IRQ numbers.
    pub fn irq_lines(&self) -> u32 {
        let mut lines = (self.ports.irq() as u32) << INPUT_IRQ;
        lines |= (self.adc.regs.irq() as u32) << ADC_IRQ;
        lines |= (self.stim.status & ((1 << LINES) - 1)) << STIM_IRQ_BASE;
        lines
    }

    /// Read a word-aligned register in the Cairn window (other than the trace port).
    pub fn read(&mut self, addr: u32, now: u64, log: &mut EventLog) -> u32 {
        let off = addr & 0xfff;
        match addr & !0xfff {
            GPIO_BASE => self.gpio.read(off),
            PORTS_BASE => self.ports.read(off),
            ADC_BASE => self.adc.read(off, now, log),
            STIM_BASE => self.stim.read(off),
            _ => 0,
        }
    }

    /// Write a word-aligned register in the Cairn window (other than the trace port).
    pub fn write(&mut self, addr: u32, value: u32, now: u64, log: &mut EventLog) {
        let off = addr & 0xfff;
        match addr & !0xfff {
            GPIO_BASE => {
                if let Some(levels) = self.gpio.write(off, value) {
                    log.log(now, IoKind::Gpio, 0, levels);
                }
            }
            PORTS_BASE => {
                if let Some(port) = self.ports.write(off, value) {
                    debug_assert!(port < PORTS);
                    log.log(now, IoKind::Output, port as u8, value);
                }
            }
            ADC_BASE => self.adc.write(off, value, now),
            STIM_BASE => self.stim.write(off, value),
            _ => {}
        }
    }
}
