//! ARM CMSDK APB timer (CTRL, VALUE, RELOAD, INTSTATUS/INTCLEAR), clocked by the core clock.

use super::countdown::Countdown;
use super::device::Effect;

pub struct CmsdkTimer {
    pub ctrl: u32,
    pub counter: Countdown,
    intstatus: bool,
}

const CTRL_ENABLE: u32 = 1;
const CTRL_IRQ_ENABLE: u32 = 8;

impl Default for CmsdkTimer {
    fn default() -> Self {
        CmsdkTimer { ctrl: 0, counter: Countdown::new(1), intstatus: false }
    }
}

impl CmsdkTimer {
    /// Fold expiries since the last access into INTSTATUS. As on QEMU's model, an expiry
    /// only latches the interrupt when IRQ enable is set at that moment; CTRL changes
    /// always sync first, so CTRL is constant between syncs.
    fn sync(&mut self, now: u64) {
        if self.counter.take_flag(now) && self.ctrl & CTRL_IRQ_ENABLE != 0 {
            self.intstatus = true;
        }
    }

    pub fn read(&mut self, off: u32, now: u64) -> u32 {
        self.sync(now);
        match off {
            0x0 => self.ctrl,
            0x4 => self.counter.value(now),
            0x8 => self.counter.reload,
            0xC => self.intstatus as u32,
            0xFD0..=0xFFC => super::cmsdk_id_register(off, 0x22),
            _ => 0,
        }
    }

    pub fn write(&mut self, off: u32, value: u32, now: u64) {
        self.sync(now);
        match off {
            0x0 => {
                self.ctrl = value & 0xf;
                self.counter.set_running(now, self.ctrl & CTRL_ENABLE != 0);
            }
            0x4 => self.counter.set_value(now, value),
            0x8 => {
                // Writing RELOAD also loads the counter (CMSDK TRM; QEMU does the same).
                self.counter.set_reload(now, value);
                self.counter.set_value(now, value);
            }
            0xC if value & 1 != 0 => self.intstatus = false,
            _ => {}
        }
    }

    /// Interrupt line level.
    pub fn irq(&mut self, now: u64) -> bool {
        self.sync(now);
        self.intstatus && self.ctrl & CTRL_IRQ_ENABLE != 0
    }

    pub fn next_event(&self, now: u64) -> Option<u64> {
        if self.ctrl & CTRL_IRQ_ENABLE != 0 && !self.intstatus {
            self.counter.next_zero(now)
        } else {
            None
        }
    }
}

impl super::device::Device for CmsdkTimer {
    fn read(&mut self, off: u32, _size: u32, now: u64, _log: &mut super::io_event::EventLog) -> u32 {
        CmsdkTimer::read(self, off, now)
    }

    fn write(&mut self, off: u32, value: u32, _size: u32, now: u64, _log: &mut super::io_event::EventLog) -> Effect {
        CmsdkTimer::write(self, off, value, now);
        if off == 0 {
            Effect::TimerCtrl { enabled: value & CTRL_ENABLE != 0 }
        } else {
            Effect::None
        }
    }

    fn irq_lines(&mut self, now: u64) -> u32 {
        self.irq(now) as u32
    }

    fn next_event(&self, now: u64) -> Option<u64> {
        CmsdkTimer::next_event(self, now)
    }

    fn reset(&mut self) {
        *self = CmsdkTimer::default();
    }
}
