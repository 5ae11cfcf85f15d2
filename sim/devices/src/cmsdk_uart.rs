//! ARM CMSDK APB UART. Transmission is instantaneous: a byte written to DATA with the
//! transmitter enabled is delivered at once and TX-done is signalled immediately.
//!
//! Reception takes bytes from a scenario's `[[uart_input]]` ([`RxFeed`]): each arrives at
//! its own cycle (after its stop bit) into the one-byte receive buffer, as the CMSDK UART
//! TRM defines it: STATE.RXFULL until DATA is read, the RX interrupt when CTRL enables it,
//! and a byte arriving while the buffer is full replaces it and sets STATE.RXOVERRUN (and
//! INTSTATUS.RXOVERRUN when CTRL enables that interrupt). With the receiver disabled a byte
//! is lost. A UART without a feed has no receive input and pays nothing for it.

use super::device::Effect;
use super::io_event::{EventLog, IoKind};

#[derive(Default)]
pub struct CmsdkUart {
    pub ctrl: u32,
    pub bauddiv: u32,
    intstatus: u32,
    state: u32,
    rxbuf: u8,
    /// The bytes still to arrive, if the scenario feeds this UART.
    rx: Option<Box<RxFeed>>,
}

/// A UART's receive schedule: (cycle, byte) in time order, and which is next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RxFeed {
    /// This UART's number on the board (the io-log names it `uartN`).
    pub index: u8,
    pub arrivals: Vec<(u64, u8)>,
    pub next: usize,
}

const CTRL_TX_EN: u32 = 1;
const CTRL_RX_EN: u32 = 2;
const CTRL_TX_INTEN: u32 = 4;
const CTRL_RX_INTEN: u32 = 8;
const CTRL_RXO_INTEN: u32 = 0x20;
const INT_TX: u32 = 1;
const INT_RX: u32 = 2;
const INT_RXO: u32 = 8;
const STATE_RXFULL: u32 = 2;
const STATE_RXO: u32 = 8;
/// The overrun flags of STATE (write one to clear).
const STATE_OVERRUNS: u32 = 0xC;

impl CmsdkUart {
    pub fn read(&mut self, off: u32) -> u32 {
        match off {
            0x0 => {
                self.state &= !STATE_RXFULL;
                self.rxbuf as u32
            }
            // TX is never full: transmission is instantaneous.
            0x4 => self.state,
            0x8 => self.ctrl,
            0xC => self.intstatus,
            0x10 => self.bauddiv,
            0xFD0..=0xFFC => super::cmsdk_id_register(off, 0x21),
            _ => 0,
        }
    }

    /// Returns the byte to transmit, if a DATA write sends one.
    pub fn write(&mut self, off: u32, value: u32) -> Option<u8> {
        match off {
            0x0 => {
                if self.ctrl & CTRL_TX_EN == 0 {
                    return None;
                }
                if self.ctrl & CTRL_TX_INTEN != 0 {
                    self.intstatus |= INT_TX;
                }
                Some(value as u8)
            }
            0x4 => {
                self.state &= !(value & STATE_OVERRUNS);
                self.update_overrun_irq();
                None
            }
            0x8 => {
                self.ctrl = value & 0x7f;
                self.update_overrun_irq();
                None
            }
            0xC => {
                self.intstatus &= !value;
                // The overrun interrupt follows STATE: it stays while the flag is set.
                self.update_overrun_irq();
                None
            }
            0x10 => {
                self.bauddiv = value & 0x000f_ffff;
                None
            }
            _ => None,
        }
    }

    fn update_overrun_irq(&mut self) {
        if self.state & STATE_RXO != 0 && self.ctrl & CTRL_RXO_INTEN != 0 {
            self.intstatus |= INT_RXO;
        }
    }

    /// A byte has arrived on the receive line.
    pub fn receive(&mut self, byte: u8) {
        if self.ctrl & CTRL_RX_EN == 0 {
            return;
        }
        if self.state & STATE_RXFULL != 0 {
            self.state |= STATE_RXO;
            self.update_overrun_irq();
        }
        self.rxbuf = byte;
        self.state |= STATE_RXFULL;
        if self.ctrl & CTRL_RX_INTEN != 0 {
            self.intstatus |= INT_RX;
        }
    }

    /// Give the UART its receive schedule (replacing any earlier one).
    pub fn feed(&mut self, feed: RxFeed) {
        self.rx = (!feed.arrivals.is_empty()).then(|| Box::new(feed));
    }

    /// Whether bytes are still to arrive.
    pub fn has_feed(&self) -> bool {
        self.rx.is_some()
    }

    /// The cycle at which the next byte arrives.
    pub fn next_rx(&self) -> Option<u64> {
        let f = self.rx.as_deref()?;
        f.arrivals.get(f.next).map(|a| a.0)
    }

    /// Deliver every byte due at or before `now`, each logged at its own cycle.
    pub fn receive_due(&mut self, now: u64, log: &mut EventLog) {
        let Some(mut f) = self.rx.take() else { return };
        while let Some(&(cycle, byte)) = f.arrivals.get(f.next).filter(|a| a.0 <= now) {
            f.next += 1;
            log.log(cycle, IoKind::UartRx, f.index, byte as u32);
            self.receive(byte);
        }
        if f.next < f.arrivals.len() {
            self.rx = Some(f);
        }
    }

    pub fn tx_irq(&self) -> bool {
        self.intstatus & INT_TX != 0
    }

    pub fn rx_irq(&self) -> bool {
        self.intstatus & INT_RX != 0 && self.ctrl & CTRL_RX_INTEN != 0
    }
}

impl super::device::Device for CmsdkUart {
    fn read(&mut self, off: u32, _size: u32, _now: u64, _log: &mut super::io_event::EventLog) -> u32 {
        CmsdkUart::read(self, off)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, _now: u64, _log: &mut super::io_event::EventLog) -> Effect {
        match CmsdkUart::write(self, off, value) {
            Some(byte) => Effect::TxByte { byte, bauddiv: self.bauddiv },
            None => Effect::None,
        }
    }

    /// Bit 0 RX, bit 1 TX (the order of a board file's `irq` list).
    fn irq_lines(&mut self, _now: u64) -> u32 {
        self.rx_irq() as u32 | (self.tx_irq() as u32) << 1
    }

    fn next_event(&self, _now: u64) -> Option<u64> {
        self.next_rx()
    }

    fn process_due(&mut self, now: u64, log: &mut EventLog) {
        self.receive_due(now, log);
    }

    /// Registers back to reset values; the line's schedule goes on (the sender is outside).
    fn reset(&mut self) {
        let rx = self.rx.take();
        *self = CmsdkUart { rx, ..CmsdkUart::default() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uart(ctrl: u32) -> CmsdkUart {
        let mut u = CmsdkUart::default();
        u.write(0x8, ctrl);
        u
    }

    #[test]
    fn a_byte_fills_the_buffer_and_raises_rx_until_cleared() {
        let mut u = uart(CTRL_RX_EN | CTRL_RX_INTEN);
        u.receive(0x41);
        assert_eq!(u.read(0x4) & STATE_RXFULL, STATE_RXFULL);
        assert!(u.rx_irq());
        assert_eq!(u.read(0x0), 0x41);
        assert_eq!(u.read(0x4), 0, "reading DATA empties the buffer");
        assert!(u.rx_irq(), "the interrupt stays until INTSTATUS is cleared");
        u.write(0xC, INT_RX);
        assert!(!u.rx_irq());
    }

    #[test]
    fn overrun_keeps_the_newest_byte_and_sets_the_flags() {
        let mut u = uart(CTRL_RX_EN | CTRL_RXO_INTEN);
        u.receive(1);
        assert_eq!(u.read(0xC), 0, "no RX interrupt without RXINTEN");
        u.receive(2);
        assert_eq!(u.read(0x4), STATE_RXFULL | STATE_RXO);
        assert_eq!(u.read(0xC), INT_RXO);
        u.write(0xC, INT_RXO);
        assert_eq!(u.read(0xC), INT_RXO, "the overrun interrupt follows STATE");
        u.write(0x4, STATE_RXO);
        u.write(0xC, INT_RXO);
        assert_eq!(u.read(0xC), 0);
        assert_eq!(u.read(0x0), 2);
    }

    #[test]
    fn a_disabled_receiver_loses_the_byte() {
        let mut u = uart(CTRL_TX_EN);
        u.receive(7);
        assert_eq!(u.read(0x4), 0);
        assert_eq!(u.read(0x0), 0);
    }

    #[test]
    fn the_feed_delivers_in_time_and_logs_each_byte() {
        let mut u = uart(CTRL_RX_EN);
        u.feed(RxFeed { index: 1, arrivals: vec![(10, b'a'), (20, b'b'), (20, b'c')], next: 0 });
        let mut log = EventLog::default();
        assert_eq!(u.next_rx(), Some(10));
        u.receive_due(9, &mut log);
        assert_eq!(u.read(0x4), 0);
        u.receive_due(10, &mut log);
        assert_eq!(u.read(0x0), b'a' as u32);
        u.receive_due(25, &mut log);
        assert_eq!(u.read(0x4), STATE_RXFULL | STATE_RXO, "two bytes at once overrun");
        assert_eq!(u.read(0x0), b'c' as u32);
        assert!(!u.has_feed());
        let got: Vec<(u64, u8, u32)> = log.iter().map(|e| (e.cycle, e.index, e.value)).collect();
        assert_eq!(got, vec![(10, 1, 97), (20, 1, 98), (20, 1, 99)]);
        assert!(log.iter().all(|e| e.kind == IoKind::UartRx));
    }
}
