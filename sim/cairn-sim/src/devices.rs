//! The board's memory-mapped devices placed where its board file says: the table the address
//! decoder searches (windows sorted by base), each device's interrupt numbers, and the
//! effects of an access applied at the cycle it happens. The devices live in the machine
//! (timers, UARTs) and in its I/O system (Cairn's devices, which the scenario's drivers
//! also reach); a window names its device by [`Slot`], so dispatch is a `match`, not a
//! virtual call, and decoding costs a binary search over a handful of windows.

use crate::attached::Attached;
use crate::board::{BoardSpec, DeviceKind};
use crate::machine::{Board, Machine, Stream};
use crate::periph::device::{Device, Effect};

/// Which device a window decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The n-th CMSDK timer of the board file (`Machine::timers[n]`).
    Timer(u8),
    /// The n-th CMSDK UART (`Machine::uarts[n]`); the first is the console.
    Uart(u8),
    Trace,
    Gpio,
    Ports,
    Adc,
    Stim,
    Bus,
    Rtc,
}

#[derive(Clone, Debug)]
pub struct Window {
    pub base: u32,
    /// Last address of the window (inclusive, so a window may end at 0xFFFF_FFFF).
    pub last: u32,
    pub slot: Slot,
    /// NVIC number of each of the device's lines (bit k of `irq_lines` is `irq[k]`).
    pub irq: Vec<u8>,
}

/// A device with interrupt lines, as `update_irq_lines` samples it (several times per
/// device write, so kept small and free of indirection).
#[derive(Clone, Copy, Debug)]
struct IrqSource {
    slot: Slot,
    /// The NVIC number of line 0 when the lines' numbers are consecutive (the usual case:
    /// the lines map with one shift).
    first: u8,
    consecutive: bool,
    /// Index into `windows`, for the general mapping.
    window: u16,
}

#[derive(Clone, Debug, Default)]
pub struct DeviceTable {
    /// Sorted by base; windows never overlap (the board check).
    pub windows: Vec<Window>,
    /// The windows' bases, for the binary search of decoding.
    bases: Vec<u32>,
    /// Timers and UARTs whose lines have consecutive numbers: (index, NVIC number of line
    /// 0), sampled without dispatch, as they are the devices a firmware polls and writes most.
    timer_irqs: Vec<(u8, u8)>,
    uart_irqs: Vec<(u8, u8)>,
    /// Every other device with interrupt lines.
    irq_sources: Vec<IrqSource>,
    /// Devices that raise lines by themselves: the timers, by index.
    timed: Vec<u8>,
    /// The board has a bus controller / a real-time clock (devices with their own events).
    pub has_bus: bool,
    pub has_rtc: bool,
    /// Some UART was given bytes to receive (`Machine::feed_uarts`).
    pub uart_rx: bool,
    /// The window the last access decoded to: a firmware polling a status register hits
    /// the same one again and again.
    hint: usize,
    /// Bus windows (first, last address): no device there reads as zero, ignores writes.
    buses: Vec<(u32, u32)>,
    pub timers: usize,
    pub uarts: usize,
}

/// What an address outside flash, SRAM and the system space decodes to.
pub enum Decoded {
    Device(Slot, u32),
    /// Inside a bus window but no device: read as zero, writes ignored.
    Empty,
    Unmapped,
}

impl DeviceTable {
    pub fn new(board: &BoardSpec) -> DeviceTable {
        let mut t = DeviceTable::default();
        for d in &board.devices {
            let slot = match d.kind {
                DeviceKind::CmsdkTimer => {
                    t.timers += 1;
                    Slot::Timer((t.timers - 1) as u8)
                }
                DeviceKind::CmsdkUart => {
                    t.uarts += 1;
                    Slot::Uart((t.uarts - 1) as u8)
                }
                DeviceKind::CairnTracePort => Slot::Trace,
                DeviceKind::CairnGpio => Slot::Gpio,
                DeviceKind::CairnIoPorts => Slot::Ports,
                DeviceKind::CairnAdc => Slot::Adc,
                DeviceKind::CairnStimulus => Slot::Stim,
                DeviceKind::CairnBusCtrl => {
                    t.has_bus = true;
                    Slot::Bus
                }
                DeviceKind::CairnRtc => {
                    t.has_rtc = true;
                    Slot::Rtc
                }
            };
            let last = d.base + (d.kind.window_bytes() - 1);
            t.windows.push(Window { base: d.base, last, slot, irq: d.irq.iter().map(|&n| n as u8).collect() });
        }
        t.windows.sort_by_key(|w| w.base);
        t.bases = t.windows.iter().map(|w| w.base).collect();
        for (i, w) in t.windows.iter().enumerate() {
            if let Some(&first) = w.irq.first() {
                let consecutive = w.irq.iter().enumerate().all(|(k, &n)| n as usize == first as usize + k);
                match w.slot {
                    Slot::Timer(n) if consecutive => t.timer_irqs.push((n, first)),
                    Slot::Uart(n) if consecutive => t.uart_irqs.push((n, first)),
                    slot => t.irq_sources.push(IrqSource { slot, first, consecutive, window: i as u16 }),
                }
            }
            if let Slot::Timer(n) = w.slot {
                t.timed.push(n);
            }
        }
        t.buses = board.buses.iter().map(|b| (b.base, b.base + (b.size - 1))).collect();
        t
    }

    #[inline]
    pub fn decode(&mut self, addr: u32) -> Decoded {
        if let Some(w) = self.windows.get(self.hint) {
            if addr.wrapping_sub(w.base) <= w.last - w.base {
                return Decoded::Device(w.slot, addr - w.base);
            }
        }
        let i = self.bases.partition_point(|&b| b <= addr);
        if let Some(w) = i.checked_sub(1).and_then(|i| self.windows.get(i)) {
            if addr <= w.last {
                self.hint = i - 1;
                return Decoded::Device(w.slot, addr - w.base);
            }
        }
        if self.buses.iter().any(|&(b, l)| (b..=l).contains(&addr)) {
            Decoded::Empty
        } else {
            Decoded::Unmapped
        }
    }
}

/// Run `$body` with `$d` the device of `$slot` and `$log` the I/O event log, borrowing
/// disjoint fields of the machine (static dispatch to each device type).
macro_rules! with_device {
    ($m:expr, $slot:expr, |$d:ident, $log:ident| $body:expr) => {{
        let m: &mut Board = &mut $m.0.sys;
        let $log = &mut m.io.events;
        match $slot {
            Slot::Timer(i) => {
                let $d = &mut m.timers[i as usize];
                $body
            }
            Slot::Uart(i) => {
                let $d = &mut m.uarts[i as usize];
                $body
            }
            Slot::Trace => {
                let $d = &mut m.trace_port;
                $body
            }
            Slot::Gpio => {
                let $d = &mut m.io.dev.gpio;
                $body
            }
            Slot::Ports => {
                let $d = &mut m.io.dev.ports;
                $body
            }
            Slot::Adc => {
                let $d = &mut m.io.dev.adc;
                $body
            }
            Slot::Stim => {
                let $d = &mut m.io.dev.stim;
                $body
            }
            Slot::Bus => {
                let $d = &mut m.bus_ctrl;
                $body
            }
            Slot::Rtc => {
                let $d = &mut m.rtc;
                $body
            }
        }
    }};
}

impl Machine {
    /// A device register's word as a debugger may read it: only where reading has no side
    /// effect. So far the bus controller, whose ID tells which processor of a device this is.
    pub fn peek_device32(&self, addr: u32) -> Option<u32> {
        let w = self.devices.windows.iter().find(|w| w.slot == Slot::Bus && (w.base..=w.last).contains(&addr))?;
        self.bus_ctrl.peek((addr - w.base) & !3)
    }

    /// Read a device register (word-aligned offset `off` in its window).
    pub(crate) fn device_read(&mut self, slot: Slot, off: u32, size: u32) -> u32 {
        let now = self.cycles;
        if is_cairn_io(slot) {
            self.io.before_access(now);
        }
        with_device!(self, slot, |d, log| Device::read(d, off, size, now, log))
    }

    /// Write a device register and apply what the write causes outside the device, at this
    /// cycle. Returns false when nothing in the simulator changed (a trace word), so the
    /// run loop need not re-evaluate events.
    pub(crate) fn device_write(&mut self, slot: Slot, off: u32, value: u32, size: u32) -> bool {
        let now = self.cycles;
        if is_cairn_io(slot) {
            self.io.before_access(now);
        }
        let effect = with_device!(self, slot, |d, log| Device::write(d, off, value, size, now, log));
        match effect {
            Effect::None => {}
            Effect::TraceWord(word) => {
                self.trace_port_words += 1;
                Attached::trace_word(self, now, word);
                if !self.trace_triggers.is_empty() {
                    self.trace_trigger(word);
                }
                return false;
            }
            Effect::TimerCtrl { enabled } => {
                let Slot::Timer(i) = slot else { unreachable!("only timers report CTRL") };
                Attached::timer_ctrl(self, i as usize, enabled);
            }
            Effect::TxByte { byte, bauddiv } => {
                // Only the first UART is connected to the host (as on QEMU with one -serial);
                // the others' bytes are dropped.
                if slot == Slot::Uart(0) {
                    Attached::uart_byte(self, bauddiv);
                    self.emit(Stream::Stdout, byte);
                }
            }
            Effect::Reschedule => self.io.reschedule(),
            Effect::PowerOff => {
                self.stop = Some(crate::machine::Stop::PowerOff);
                self.next_event = 0;
            }
        }
        true
    }

    #[cold]
    fn trace_trigger(&mut self, word: u32) {
        let b = &mut self.0.sys;
        let mut reached = false;
        for t in b.trace_triggers.iter_mut().filter(|t| word & t.1 == t.0 && t.2 > 0) {
            t.2 -= 1;
            if t.2 == 0 {
                b.triggered.push(t.3);
                reached = true;
            }
        }
        if reached {
            self.stop = Some(crate::machine::Stop::Pause);
            self.next_event = 0;
        }
    }

    /// Device interrupt lines as a bitmap of NVIC numbers, through the board's wiring.
    pub(crate) fn device_irq_lines(&mut self) -> u32 {
        let now = self.cycles;
        let mut lines = 0u32;
        let b = &mut self.0.sys;
        for &(i, first) in &b.devices.uart_irqs {
            let u = &b.uarts[i as usize];
            lines |= (u.rx_irq() as u32 | (u.tx_irq() as u32) << 1) << first;
        }
        for &(i, first) in &b.devices.timer_irqs {
            lines |= (b.timers[i as usize].irq(now) as u32) << first;
        }
        // Borrowed out of the table for the loop, so the devices can be reached mutably.
        let sources = std::mem::take(&mut self.devices.irq_sources);
        for src in &sources {
            let mut bits = with_device!(self, src.slot, |d, _log| Device::irq_lines(d, now));
            if bits == 0 {
                continue;
            }
            if src.consecutive {
                lines |= bits << src.first;
                continue;
            }
            let irq = &self.devices.windows[src.window as usize].irq;
            while bits != 0 {
                lines |= 1 << irq[bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
        }
        self.devices.irq_sources = sources;
        lines
    }

    /// Earliest future cycle at which a board device raises a line by itself.
    pub(crate) fn device_next_event(&self) -> u64 {
        let now = self.cycles;
        let mut t = u64::MAX;
        for &i in &self.devices.timed {
            if let Some(e) = self.timers[i as usize].next_event(now) {
                t = t.min(e);
            }
        }
        if self.devices.has_bus {
            t = t.min(self.bus_ctrl.next_event(now).unwrap_or(u64::MAX));
        }
        if self.devices.has_rtc {
            t = t.min(self.rtc.next_event(now).unwrap_or(u64::MAX));
        }
        if self.devices.uart_rx {
            t = self.uarts.iter().filter_map(|u| u.next_rx()).fold(t, u64::min);
        }
        t
    }

    /// Raise what the bus controller, the real-time clock and the UARTs' receive lines have
    /// due at this cycle.
    pub(crate) fn process_due_board(&mut self) {
        let now = self.cycles;
        let b = &mut self.0.sys;
        if b.devices.has_bus {
            b.bus_ctrl.process_due(now, &mut b.io.events);
        }
        if b.devices.has_rtc {
            b.rtc.process_due(now, &mut b.io.events);
        }
        if b.devices.uart_rx {
            for u in b.uarts.iter_mut().filter(|u| u.next_rx().is_some_and(|c| c <= now)) {
                b.io.before_access(now);
                u.receive_due(now, &mut b.io.events);
            }
        }
    }

    /// Every board device back to its reset values.
    pub(crate) fn reset_board_devices(&mut self) {
        for w in 0..self.devices.windows.len() {
            let slot = self.devices.windows[w].slot;
            with_device!(self, slot, |d, _log| Device::reset(d));
        }
    }
}

fn is_cairn_io(slot: Slot) -> bool {
    matches!(slot, Slot::Gpio | Slot::Ports | Slot::Adc | Slot::Stim)
}
