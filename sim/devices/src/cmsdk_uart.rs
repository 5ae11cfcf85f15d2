//! ARM CMSDK APB UART. Transmission is instantaneous: a byte written to DATA with the
//! transmitter enabled is delivered at once and TX-done is signalled immediately.

use super::device::Effect;

#[derive(Default)]
pub struct CmsdkUart {
    pub ctrl: u32,
    pub bauddiv: u32,
    intstatus: u32,
}

const CTRL_TX_EN: u32 = 1;
const CTRL_TX_INTEN: u32 = 4;
const CTRL_RX_INTEN: u32 = 8;
const INT_TX: u32 = 1;
const INT_RX: u32 = 2;

impl CmsdkUart {
    pub fn read(&mut self, off: u32) -> u32 {
        match off {
            0x0 => 0, // DATA: no receive input
            0x4 => 0, // STATE: TX never full, RX never full
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
            0x4 => None, // overrun flags: write-1-to-clear, never set here
            0x8 => {
                self.ctrl = value & 0x7f;
                None
            }
            0xC => {
                self.intstatus &= !value;
                None
            }
            0x10 => {
                self.bauddiv = value & 0x000f_ffff;
                None
            }
            _ => None,
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

    fn reset(&mut self) {
        *self = CmsdkUart::default();
    }
}
