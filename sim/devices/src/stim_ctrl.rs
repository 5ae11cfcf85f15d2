//! Stimulus interrupt controller: LINES lines, each raised by a scenario stimulus. A firing
//! sets STATUS bit k (a level on IRQ STIM_IRQ_BASE + k until the handler writes CLEAR) and
//! increments COUNT[k], the firing's sequence number (for by-sequence delay matching and
//! for noticing firings that arrived while the bit was still set).

pub const LINES: usize = 6;
pub const STATUS: u32 = 0x00;
pub const CLEAR: u32 = 0x04;
/// COUNT[k] at 0x10 + 4k.
pub const COUNT_BASE: u32 = 0x10;

#[derive(Clone, Debug, Default)]
pub struct StimCtrl {
    pub status: u32,
    pub count: [u32; LINES],
}

impl StimCtrl {
    pub fn read(&self, off: u32) -> u32 {
        if let Some(k) = off.checked_sub(COUNT_BASE).map(|d| d / 4).filter(|&k| (k as usize) < LINES) {
            return self.count[k as usize];
        }
        match off {
            STATUS => self.status,
            _ => 0,
        }
    }

    pub fn write(&mut self, off: u32, value: u32) {
        if off == CLEAR {
            self.status &= !value;
        }
    }

    /// Line `k` fires; returns its sequence number (1 for the first firing).
    pub fn fire(&mut self, k: usize) -> u32 {
        self.status |= 1 << k;
        self.count[k] = self.count[k].wrapping_add(1);
        self.count[k]
    }
}
