//! Marker GPIO: 32 output pins for firmware to mark instants (SimBed's "pins"). Every
//! write is logged with its cycle, even one that changes no pin, so a firmware can mark
//! an instant without caring about the previous level.

/// Register offsets.
pub const OUT: u32 = 0x0;
pub const SET: u32 = 0x4;
pub const CLR: u32 = 0x8;
pub const TGL: u32 = 0xC;

#[derive(Clone, Debug, Default)]
pub struct Gpio {
    pub out: u32,
}

impl Gpio {
    pub fn read(&self, off: u32) -> u32 {
        match off {
            OUT | SET | CLR | TGL => self.out,
            _ => 0,
        }
    }

    /// Apply a write; returns the new pin levels when `off` is a pin register.
    pub fn write(&mut self, off: u32, value: u32) -> Option<u32> {
        self.out = match off {
            OUT => value,
            SET => self.out | value,
            CLR => self.out & !value,
            TGL => self.out ^ value,
            _ => return None,
        };
        Some(self.out)
    }
}
