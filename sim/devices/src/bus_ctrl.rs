//! Cairn's bus controller: a module's port on the inter-processor bus (mPlatform's CPLD).
//! The firmware composes a frame in `TX_DATA`, queues it with `TX_SEND` and reads arrived
//! frames from the RX FIFO (docs/device.md has the register map). The controller only
//! queues: what it sends (frames, pops, power requests) goes to its `outbox`, stamped with
//! the cycle, and what the bus delivers comes in through its `inbox`, stamped with the
//! cycle it arrives at; the device layer above moves both. The controller belongs to the
//! always-powered bus, so a reset of its processor keeps its FIFOs.

use super::device::{Device, Effect};
use super::io_event::EventLog;
use std::collections::VecDeque;

pub const BROADCAST: u8 = 0xFF;

pub const STATUS_TX_READY: u32 = 1 << 0;
pub const STATUS_RX_AVAIL: u32 = 1 << 1;
pub const STATUS_TX_IDLE: u32 = 1 << 2;
pub const STATUS_RX_CORRUPT: u32 = 1 << 3;
pub const STATUS_ERROR: u32 = 1 << 4;

const IRQ_RX: u32 = 1 << 0;
const IRQ_TXDONE: u32 = 1 << 1;
const IRQ_ERR: u32 = 1 << 2;

pub const ERR_TX_FULL: u32 = 1 << 0;
pub const ERR_TOO_LONG: u32 = 1 << 1;
pub const ERR_BAD_DEST: u32 = 1 << 2;

/// A frame as the receiving controller holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub src: u8,
    pub dst: u8,
    pub data: Vec<u8>,
    /// A fault rule corrupted it on the wire: the controller's check fails.
    pub corrupt: bool,
}

/// What the controller asks of the bus, at a cycle of its processor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Send {
        dst: u8,
        data: Vec<u8>,
    },
    /// The head of the RX FIFO was freed: room for another frame (flow control).
    Pop,
    /// Power a module on or off (its own address: this processor, at once).
    Power {
        target: u8,
        on: bool,
    },
}

/// What the bus delivers to the controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    Frame(Frame),
    /// One of this module's frames reached its destination(s).
    TxDone,
}

/// How the controller is connected: set by the device layer; a lone processor's controller
/// is not connected and refuses every frame.
#[derive(Clone, Debug, Default)]
pub struct Link {
    pub address: u8,
    /// Addresses of every module on the bus, this one included.
    pub modules: Vec<u8>,
    pub max_frame: u32,
    pub tx_fifo: u32,
}

#[derive(Default)]
pub struct BusCtrl {
    pub link: Option<Link>,
    irq_en: u32,
    txdone: bool,
    err: u32,
    tx_dest: u32,
    compose: Vec<u8>,
    rx: VecDeque<Frame>,
    rx_read: usize,
    /// This module's frames queued or on the wire.
    tx_outstanding: u32,
    /// Requests since the device layer last took them, with their cycles.
    pub outbox: Vec<(u64, Request)>,
    /// Deliveries not yet due, in cycle order.
    inbox: VecDeque<(u64, Delivery)>,
}

impl BusCtrl {
    /// Queue a delivery for `at` (a cycle of this processor). Deliveries come in time order.
    pub fn deliver(&mut self, at: u64, d: Delivery) {
        let i = self.inbox.partition_point(|(c, _)| *c <= at);
        self.inbox.insert(i, (at, d));
    }

    pub fn rx_frames(&self) -> usize {
        self.rx.len()
    }

    fn status(&self) -> u32 {
        let Some(link) = &self.link else { return STATUS_TX_IDLE | self.error_bit() };
        let mut s = self.error_bit();
        if self.tx_outstanding < link.tx_fifo {
            s |= STATUS_TX_READY;
        }
        if let Some(f) = self.rx.front() {
            s |= STATUS_RX_AVAIL;
            if f.corrupt {
                s |= STATUS_RX_CORRUPT;
            }
        }
        if self.tx_outstanding == 0 {
            s |= STATUS_TX_IDLE;
        }
        s
    }

    fn error_bit(&self) -> u32 {
        if self.err != 0 {
            STATUS_ERROR
        } else {
            0
        }
    }

    fn known(&self, addr: u32) -> bool {
        self.link.as_ref().is_some_and(|l| addr == BROADCAST as u32 || l.modules.iter().any(|&m| m as u32 == addr))
    }

    fn send(&mut self, now: u64) {
        let data = std::mem::take(&mut self.compose);
        let Some(link) = &self.link else {
            self.err |= ERR_BAD_DEST;
            return;
        };
        if self.tx_outstanding >= link.tx_fifo {
            self.err |= ERR_TX_FULL;
        } else if !self.known(self.tx_dest) || self.tx_dest == link.address as u32 {
            self.err |= ERR_BAD_DEST;
        } else {
            self.tx_outstanding += 1;
            self.outbox.push((now, Request::Send { dst: self.tx_dest as u8, data }));
        }
    }

    fn read_rx(&mut self, size: u32) -> u32 {
        let Some(f) = self.rx.front() else { return 0 };
        let mut v = 0u32;
        for k in 0..size as usize {
            v |= (*f.data.get(self.rx_read + k).unwrap_or(&0) as u32) << (8 * k);
        }
        self.rx_read += size as usize;
        v
    }
}

impl Device for BusCtrl {
    fn read(&mut self, off: u32, size: u32, _now: u64, _log: &mut EventLog) -> u32 {
        match off {
            // The data register is read at the lane of the access: the whole value is the
            // next `size` bytes, shifted into the lane by the caller's extraction.
            0x28 => self.read_rx(size),
            _ => self.peek(off).unwrap_or(0),
        }
    }

    fn write(&mut self, off: u32, value: u32, size: u32, now: u64, _log: &mut EventLog) -> Effect {
        match off {
            0x08 => self.irq_en = value & 7,
            0x0C if value & IRQ_TXDONE != 0 => self.txdone = false,
            0x10 => self.tx_dest = value & 0xFF,
            0x14 => {
                let max = self.link.as_ref().map_or(0, |l| l.max_frame) as usize;
                for k in 0..size {
                    if self.compose.len() >= max {
                        self.err |= ERR_TOO_LONG;
                        break;
                    }
                    self.compose.push((value >> (8 * k)) as u8);
                }
            }
            0x18 => self.send(now),
            0x2C if self.rx.pop_front().is_some() => {
                self.rx_read = 0;
                self.outbox.push((now, Request::Pop));
            }
            0x30 => self.err &= !value,
            0x34 => {
                let target = value & 0xFF;
                let on = value & (1 << 8) != 0;
                if !self.known(target) || target == BROADCAST as u32 {
                    self.err |= ERR_BAD_DEST;
                } else {
                    let own = self.link.as_ref().is_some_and(|l| l.address as u32 == target);
                    self.outbox.push((now, Request::Power { target: target as u8, on }));
                    if own && !on {
                        return Effect::PowerOff;
                    }
                }
            }
            _ => {}
        }
        Effect::None
    }

    fn irq_lines(&mut self, _now: u64) -> u32 {
        self.irq_lines_now() & self.irq_en
    }

    fn next_event(&self, _now: u64) -> Option<u64> {
        self.inbox.front().map(|(c, _)| *c)
    }

    fn process_due(&mut self, now: u64, _log: &mut EventLog) {
        while self.inbox.front().is_some_and(|(c, _)| *c <= now) {
            let (_, d) = self.inbox.pop_front().expect("checked");
            match d {
                Delivery::Frame(f) => self.rx.push_back(f),
                Delivery::TxDone => {
                    self.tx_outstanding = self.tx_outstanding.saturating_sub(1);
                    self.txdone = true;
                }
            }
        }
    }

    /// The processor's side is reset; the FIFOs and frames on their way belong to the bus.
    fn reset(&mut self) {
        self.irq_en = 0;
        self.txdone = false;
        self.err = 0;
        self.tx_dest = 0;
        self.compose.clear();
        self.rx_read = 0;
    }
}

impl BusCtrl {
    /// A register as the firmware would read it, for a debugger: every read but RX_DATA's
    /// (which moves through the frame) changes nothing, so only RX_DATA is refused.
    pub fn peek(&self, off: u32) -> Option<u32> {
        Some(match off {
            0x00 => self.link.as_ref().map_or(0, |l| l.address as u32 | (l.modules.len() as u32) << 8 | 1 << 16),
            0x04 => self.status(),
            0x08 => self.irq_en,
            0x0C => self.irq_lines_now(),
            0x10 => self.tx_dest,
            0x1C => self.compose.len() as u32,
            0x20 => self.rx.front().map_or(0, |f| f.src as u32),
            0x24 => self.rx.front().map_or(0, |f| f.data.len() as u32),
            0x28 => return None,
            0x30 => self.err,
            0x38 => self.rx.len() as u32,
            0x3C => self.tx_outstanding,
            _ => 0,
        })
    }

    fn irq_lines_now(&self) -> u32 {
        ((!self.rx.is_empty() as u32) * IRQ_RX)
            | ((self.txdone as u32) * IRQ_TXDONE)
            | (((self.err != 0) as u32) * IRQ_ERR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linked() -> BusCtrl {
        BusCtrl {
            link: Some(Link { address: 1, modules: vec![0, 1, 2], max_frame: 8, tx_fifo: 2 }),
            ..Default::default()
        }
    }

    fn w(b: &mut BusCtrl, off: u32, v: u32, size: u32) -> Effect {
        b.write(off, v, size, 7, &mut EventLog::default())
    }

    fn r(b: &mut BusCtrl, off: u32, size: u32) -> u32 {
        b.read(off, size, 7, &mut EventLog::default())
    }

    #[test]
    fn composes_and_queues_frames_with_their_cycle() {
        let mut b = linked();
        assert_eq!(r(&mut b, 0, 4), 1 | 3 << 8 | 1 << 16);
        w(&mut b, 0x10, 2, 4);
        w(&mut b, 0x14, 0x4433_2211, 4);
        w(&mut b, 0x14, 0x55, 1);
        assert_eq!(r(&mut b, 0x1C, 4), 5);
        w(&mut b, 0x18, 0, 4);
        assert_eq!(b.outbox, vec![(7, Request::Send { dst: 2, data: vec![0x11, 0x22, 0x33, 0x44, 0x55] })]);
        assert_eq!(r(&mut b, 0x3C, 4), 1);
        assert_eq!(r(&mut b, 0x04, 4) & STATUS_TX_IDLE, 0);
    }

    #[test]
    fn refuses_what_the_bus_cannot_carry() {
        let mut b = linked();
        w(&mut b, 0x10, 9, 4);
        w(&mut b, 0x18, 0, 4);
        assert_eq!(r(&mut b, 0x30, 4), ERR_BAD_DEST);
        w(&mut b, 0x30, ERR_BAD_DEST, 4);
        w(&mut b, 0x10, 0, 4);
        w(&mut b, 0x14, 0, 4);
        w(&mut b, 0x14, 0, 4);
        w(&mut b, 0x14, 0, 1);
        assert_eq!(r(&mut b, 0x30, 4), ERR_TOO_LONG);
        assert_eq!(r(&mut b, 0x1C, 4), 8);
        w(&mut b, 0x18, 0, 4);
        w(&mut b, 0x18, 0, 4);
        assert_eq!(r(&mut b, 0x04, 4) & STATUS_TX_READY, 0);
        w(&mut b, 0x18, 0, 4);
        assert_eq!(r(&mut b, 0x30, 4), ERR_TOO_LONG | ERR_TX_FULL);
        assert_eq!(b.outbox.len(), 2);
        let mut lone = BusCtrl::default();
        w(&mut lone, 0x18, 0, 4);
        assert_eq!(r(&mut lone, 0x30, 4), ERR_BAD_DEST);
        assert_eq!(r(&mut lone, 0, 4), 0);
    }

    #[test]
    fn delivers_at_the_cycle_and_pops_with_a_request() {
        let mut b = linked();
        let f = Frame { src: 0, dst: 1, data: vec![1, 2, 3, 4, 5], corrupt: false };
        b.deliver(20, Delivery::Frame(f));
        b.deliver(10, Delivery::TxDone);
        assert_eq!(b.next_event(0), Some(10));
        b.process_due(15, &mut EventLog::default());
        assert_eq!(r(&mut b, 0x04, 4) & STATUS_RX_AVAIL, 0);
        b.process_due(20, &mut EventLog::default());
        w(&mut b, 0x08, 1, 4);
        assert_eq!(b.irq_lines(20), 1);
        assert_eq!(r(&mut b, 0x24, 4), 5);
        assert_eq!(r(&mut b, 0x28, 4), 0x0403_0201);
        assert_eq!(r(&mut b, 0x28, 1), 5);
        assert_eq!(r(&mut b, 0x28, 1), 0);
        w(&mut b, 0x2C, 0, 4);
        assert_eq!(b.outbox, vec![(7, Request::Pop)]);
        assert_eq!(b.irq_lines(20), 0);
        assert_eq!(r(&mut b, 0x0C, 4), IRQ_TXDONE);
    }

    #[test]
    fn powering_itself_off_stops_the_processor() {
        let mut b = linked();
        assert_eq!(w(&mut b, 0x34, 1, 4), Effect::PowerOff);
        assert_eq!(w(&mut b, 0x34, 2 | 1 << 8, 4), Effect::None);
        assert_eq!(b.outbox[1], (7, Request::Power { target: 2, on: true }));
    }
}
