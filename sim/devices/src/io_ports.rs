//! Cairn I/O ports: 8 output ports (each write is an output event carrying its value) and
//! 8 input ports whose values the scenario delivers at scheduled times. An arrival sets the
//! port's STATUS bit; STATUS & IRQ_EN drives the input-port interrupt line (level).

pub const PORTS: usize = 8;
/// OUT[n] at 0x000 + 4n.
pub const OUT_BASE: u32 = 0x000;
/// IN[n] at 0x100 + 4n.
pub const IN_BASE: u32 = 0x100;
pub const IN_STATUS: u32 = 0x180;
pub const IN_CLEAR: u32 = 0x184;
pub const IN_IRQ_EN: u32 = 0x188;

#[derive(Clone, Debug, Default)]
pub struct IoPorts {
    pub out: [u32; PORTS],
    pub inp: [u32; PORTS],
    pub status: u32,
    pub irq_en: u32,
}

fn port_index(off: u32, base: u32) -> Option<usize> {
    let i = off.checked_sub(base)? / 4;
    (i < PORTS as u32).then_some(i as usize)
}

impl IoPorts {
    pub fn read(&self, off: u32) -> u32 {
        if let Some(i) = port_index(off, OUT_BASE) {
            return self.out[i];
        }
        if let Some(i) = port_index(off, IN_BASE) {
            return self.inp[i];
        }
        match off {
            IN_STATUS => self.status,
            IN_IRQ_EN => self.irq_en,
            _ => 0,
        }
    }

    /// Apply a write; returns `Some(port)` when it was an output-port write.
    pub fn write(&mut self, off: u32, value: u32) -> Option<usize> {
        if let Some(i) = port_index(off, OUT_BASE) {
            self.out[i] = value;
            return Some(i);
        }
        match off {
            IN_CLEAR => self.status &= !value,
            IN_IRQ_EN => self.irq_en = value & 0xff,
            _ => {}
        }
        None
    }

    /// A scenario value arrives on input port `i`.
    pub fn deliver(&mut self, i: usize, value: u32) {
        self.inp[i] = value;
        self.status |= 1 << i;
    }

    pub fn irq(&self) -> bool {
        self.status & self.irq_en != 0
    }
}
