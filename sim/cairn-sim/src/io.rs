//! Address decoding for everything that is not plain flash/SRAM: the ARMv6-M system
//! space (NVIC, SCB, SysTick) and the board's devices, placed by its board file
//! (`devices.rs`). Any device write forces the run loop to re-evaluate events and
//! interrupts at the next instruction boundary.

use crate::devices::Decoded;
use crate::machine::{FaultKind, Machine};

/// Where the shipped board places the trace port (tests use it; decoding follows the board file).
pub const TRACE_PORT: u32 = 0x4100_0000;
const PPB_BASE: u32 = 0xE000_0000;
const PPB_END: u32 = 0xE010_0000;

/// Sub-word access helpers: device registers are 32 bits; narrower accesses see their lanes.
fn lane_shift(addr: u32) -> u32 {
    (addr & 3) * 8
}

fn size_mask(size: u32) -> u32 {
    match size {
        1 => 0xff,
        2 => 0xffff,
        _ => 0xffff_ffff,
    }
}

impl Machine {
    #[cold]
    #[inline(never)]
    pub fn io_read(&mut self, addr: u32, size: u32) -> Result<u32, FaultKind> {
        let word = addr & !3;
        let v = if (PPB_BASE..PPB_END).contains(&addr) {
            if !self.privileged() {
                return Err(FaultKind::BusError(addr));
            }
            self.ppb_read(word)?
        } else {
            match self.devices.decode(word) {
                Decoded::Device(slot, off) => self.device_read(slot, off, size),
                Decoded::Empty => 0,
                Decoded::Unmapped => return Err(FaultKind::BusError(addr)),
            }
        };
        Ok((v >> lane_shift(addr)) & size_mask(size))
    }

    #[cold]
    #[inline(never)]
    pub fn io_write(&mut self, addr: u32, value: u32, size: u32) -> Result<(), FaultKind> {
        let word = addr & !3;
        let v = (value & size_mask(size)) << lane_shift(addr);
        if (PPB_BASE..PPB_END).contains(&addr) {
            if !self.privileged() {
                return Err(FaultKind::BusError(addr));
            }
            let pending_before = self.exc.pending;
            self.ppb_write(word, v)?;
            self.note_new_pending(pending_before);
        } else {
            match self.devices.decode(word) {
                Decoded::Device(slot, off) => {
                    if !self.device_write(slot, off, v, size) {
                        // Trace words change no simulator state: no need to re-evaluate events.
                        return Ok(());
                    }
                }
                Decoded::Empty => {}
                // Flash is read-only to the core; everything else is unmapped.
                Decoded::Unmapped => return Err(FaultKind::BusError(addr)),
            }
        }
        self.next_event = 0;
        Ok(())
    }

    fn ppb_read(&mut self, addr: u32) -> Result<u32, FaultKind> {
        let now = self.cycles;
        let clock = self.config.clock_hz;
        Ok(match addr {
            0xE000_E010..=0xE000_E01C => self.systick.read(addr - 0xE000_E010, now, clock),
            0xE000_E100 => self.exc.enabled,
            0xE000_E180 => self.exc.enabled,
            0xE000_E200 | 0xE000_E280 => (self.exc.pending >> 16) as u32,
            0xE000_E400..=0xE000_E41C => {
                let base = ((addr - 0xE000_E400) / 4) as usize * 4;
                u32::from_le_bytes([
                    self.exc.irq_prio[base],
                    self.exc.irq_prio[base + 1],
                    self.exc.irq_prio[base + 2],
                    self.exc.irq_prio[base + 3],
                ])
            }
            // CPUID: ARM Cortex-M0+ r0p1.
            0xE000_ED00 => 0x410C_C601,
            0xE000_ED04 => self.icsr(),
            0xE000_ED08 => self.vtor,
            0xE000_ED0C => 0xFA05_0000,
            0xE000_ED10 => self.scr,
            // CCR: STKALIGN and UNALIGN_TRP are fixed to one on ARMv6-M.
            0xE000_ED14 => 0x0000_0208,
            0xE000_ED1C => (self.exc.shp[11] as u32) << 24,
            0xE000_ED20 => ((self.exc.shp[14] as u32) << 16) | ((self.exc.shp[15] as u32) << 24),
            0xE000_ED24 => 0,
            _ => return Err(FaultKind::BusError(addr)),
        })
    }

    fn ppb_write(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        let now = self.cycles;
        match addr {
            0xE000_E010..=0xE000_E01C => self.systick.write(addr - 0xE000_E010, value, now),
            0xE000_E100 => self.exc.enabled |= value,
            0xE000_E180 => self.exc.enabled &= !value,
            0xE000_E200 => self.exc.pending |= (value as u64) << 16,
            0xE000_E280 => self.exc.pending &= !((value as u64) << 16),
            0xE000_E400..=0xE000_E41C => {
                let base = ((addr - 0xE000_E400) / 4) as usize * 4;
                for i in 0..4 {
                    // Only the top two priority bits are implemented.
                    self.exc.irq_prio[base + i] = (value >> (8 * i)) as u8 & 0xC0;
                }
                self.exc.refresh_priorities();
            }
            0xE000_ED00 => {}
            0xE000_ED04 => self.write_icsr(value),
            0xE000_ED08 => self.vtor = value & 0xFFFF_FF80,
            0xE000_ED0C => {
                if value >> 16 == 0x05FA {
                    if value & 4 != 0 {
                        // Takes effect at the next instruction boundary (service()).
                        self.reset_requested = true;
                    } else if value & 2 != 0 {
                        // VECTCLRACTIVE: debug-only reset of active state.
                        self.exc.active = 0;
                    }
                }
            }
            0xE000_ED10 => self.scr = value & 0x16,
            0xE000_ED14 => {}
            0xE000_ED1C => {
                self.exc.shp[11] = (value >> 24) as u8 & 0xC0;
                self.exc.refresh_priorities();
            }
            0xE000_ED20 => {
                self.exc.shp[14] = (value >> 16) as u8 & 0xC0;
                self.exc.shp[15] = (value >> 24) as u8 & 0xC0;
                self.exc.refresh_priorities();
            }
            0xE000_ED24 => {}
            _ => return Err(FaultKind::BusError(addr)),
        }
        Ok(())
    }

    fn icsr(&mut self) -> u32 {
        self.update_irq_lines();
        let e = &self.exc;
        let vectpending = e.highest_pending().map(|(n, _)| n).unwrap_or(0);
        let isrpending = (e.pending >> 16) as u32 & e.enabled != 0;
        let mut v = self.ipsr & 0x3f;
        v |= vectpending << 12;
        v |= (isrpending as u32) << 22;
        v |= ((e.pending >> 2) & 1) as u32 * (1 << 31);
        v |= ((e.pending >> 14) & 1) as u32 * (1 << 28);
        v |= ((e.pending >> 15) & 1) as u32 * (1 << 26);
        v
    }

    fn write_icsr(&mut self, value: u32) {
        if value & (1 << 31) != 0 {
            self.exc.pending |= 1 << 2;
        }
        if value & (1 << 28) != 0 {
            self.exc.pending |= 1 << 14;
        } else if value & (1 << 27) != 0 {
            self.exc.pending &= !(1 << 14);
        }
        if value & (1 << 26) != 0 {
            self.exc.pending |= 1 << 15;
        } else if value & (1 << 25) != 0 {
            self.exc.pending &= !(1 << 15);
        }
    }

    /// Sample device interrupt lines into the NVIC (level-sensitive: an asserted line that
    /// is not active becomes pending).
    pub fn update_irq_lines(&mut self) {
        let lines = self.device_irq_lines();
        let active_irqs = (self.exc.active >> 16) as u32;
        self.exc.pending |= ((lines & !active_irqs) as u64) << 16;
    }

    /// Earliest future cycle at which a device raises an interrupt.
    pub fn next_device_event(&self) -> u64 {
        let now = self.cycles;
        let systick = self.systick.next_event(now).unwrap_or(u64::MAX);
        systick.min(self.device_next_event()).min(self.io.next_at)
    }

    /// Raise device events that are due at the current cycle.
    pub fn process_device_events(&mut self) {
        let now = self.cycles;
        if self.systick.take_due(now) {
            self.exc.pending |= 1 << 15;
        }
        if self.io.next_at <= now {
            self.io.process(now);
        }
        if self.devices.has_bus | self.devices.has_rtc | self.devices.uart_rx {
            self.process_due_board();
        }
        self.update_irq_lines();
        if self.io.stream.is_some() {
            self.io_stream_service();
        }
        if self.trace.as_ref().is_some_and(|t| t.failed()) {
            // The CLI reports the write error when the run ends.
            self.cycle_limit = self.cycle_limit.min(self.cycles);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BoardConfig;

    #[test]
    fn trace_port_counts_and_records_words() {
        let mut m = Machine::new(BoardConfig::mps2_an385());
        m.trace = Some(crate::trace::TraceLog::in_memory(m.config.clock_hz));
        m.cycles = 25;
        m.write32(TRACE_PORT, 0x0203_0004).unwrap();
        assert_eq!(m.trace_port_words, 1);
        assert_eq!(m.read32(TRACE_PORT).unwrap(), 0, "the Cairn window reads as zero");
        // Narrow writes are not trace words; other registers in the window are RAZ/WI.
        m.write8(TRACE_PORT, 1).unwrap();
        m.write32(TRACE_PORT + 0x100, 7).unwrap();
        m.write8(crate::periph::cairn_io::GPIO_BASE + 0x800, 7).unwrap();
        assert_eq!(m.trace_port_words, 1);
        let json = String::from_utf8(m.trace.take().unwrap().finish(m.cycles, "trace").unwrap()).unwrap();
        assert!(json.contains("\"ts\":1.000000,\"name\":\"event 2\",\"args\":{\"a\":3,\"b\":4}"), "{json}");
        // Just past the window is unmapped.
        const CAIRN_END: u32 = 0x4120_0000;
        assert_eq!(m.read32(CAIRN_END), Err(FaultKind::BusError(CAIRN_END)));
    }
}
