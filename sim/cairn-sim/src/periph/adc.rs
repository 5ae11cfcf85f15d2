//! Cairn ADC register block. Conversion values come from the scenario's channel sources
//! (stimuli::adc_source); this file holds only the register state. With CTRL.PERIODIC the
//! machine samples every channel at the scenario's `rate_hz` and sets STATUS.READY
//! (STATUS.OVERRUN if READY was still set); otherwise a read of DATA[n] converts channel n
//! at that cycle.

pub const CHANNELS: usize = 8;
pub const CTRL: u32 = 0x00;
pub const STATUS: u32 = 0x04;
pub const CLEAR: u32 = 0x08;
pub const NCHAN: u32 = 0x0C;
pub const RATE_HZ: u32 = 0x10;
pub const BITS: u32 = 0x14;
/// DATA[n] at 0x20 + 4n.
pub const DATA_BASE: u32 = 0x20;

pub const CTRL_PERIODIC: u32 = 1;
pub const CTRL_IRQ_EN: u32 = 2;
pub const STATUS_READY: u32 = 1;
pub const STATUS_OVERRUN: u32 = 2;

#[derive(Clone, Debug, Default)]
pub struct AdcRegs {
    pub ctrl: u32,
    pub status: u32,
    pub data: [u32; CHANNELS],
}

impl AdcRegs {
    pub fn data_index(off: u32) -> Option<usize> {
        let i = off.checked_sub(DATA_BASE)? / 4;
        (i < CHANNELS as u32).then_some(i as usize)
    }

    pub fn periodic(&self) -> bool {
        self.ctrl & CTRL_PERIODIC != 0
    }

    pub fn irq(&self) -> bool {
        self.ctrl & CTRL_IRQ_EN != 0 && self.status & STATUS_READY != 0
    }

    /// A periodic conversion of all channels completed.
    pub fn complete(&mut self) {
        if self.status & STATUS_READY != 0 {
            self.status |= STATUS_OVERRUN;
        }
        self.status |= STATUS_READY;
    }
}

/// Map a value in [lo, hi] to an unsigned `bits`-bit code (clamped, rounded).
pub fn to_code(v: f64, lo: f64, hi: f64, bits: u32) -> u32 {
    let max = ((1u64 << bits.clamp(1, 32)) - 1) as f64;
    let x = ((v - lo) / (hi - lo) * max).round();
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= max {
        max as u32
    } else {
        x as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(to_code(-1.0, -1.0, 1.0, 12), 0);
        assert_eq!(to_code(1.0, -1.0, 1.0, 12), 4095);
        assert_eq!(to_code(0.0, -1.0, 1.0, 12), 2048);
        assert_eq!(to_code(7.0, -1.0, 1.0, 12), 4095);
        assert_eq!(to_code(f64::NAN, -1.0, 1.0, 12), 0);
    }
}
