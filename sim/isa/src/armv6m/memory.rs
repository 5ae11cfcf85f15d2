//! The core's memories: flash and SRAM reads and writes on the fast path (anything else
//! goes to the processor's bus), loading, side-effect-free peeks, and the decode caches
//! that a store into code invalidates.

use super::bus::Bus;
use super::core::{Core, PAGE_CODE, PAGE_WATCH};
use super::op::Op;
use super::stop::FaultKind;

impl<S: Bus> Core<S> {
    /// Load bytes into memory outside of simulation (ELF loading, debugger writes).
    /// Fails if any byte falls outside flash or SRAM.
    pub fn load_bytes(&mut self, addr: u32, bytes: &[u8]) -> Result<(), u32> {
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            if let Some(off) = self.flash_offset(a, 1) {
                self.flash[off] = *b;
            } else if let Some(off) = self.sram_offset(a, 1) {
                self.sram[off] = *b;
            } else {
                return Err(a);
            }
        }
        self.invalidate_code_range(addr, bytes.len() as u32);
        Ok(())
    }

    /// Forget decoded instructions overlapping [addr, addr+len).
    pub fn invalidate_code_range(&mut self, addr: u32, len: u32) {
        let start = addr.saturating_sub(2);
        let end = addr.saturating_add(len);
        let mut a = start & !1;
        while a < end {
            if let Some(off) = self.flash_offset(a, 2) {
                self.flash_ops[off >> 1] = Op::UNDECODED;
            } else if let Some(off) = self.sram_offset(a, 2) {
                self.sram_ops[off >> 1] = Op::UNDECODED;
            }
            a = a.wrapping_add(2);
            if a == 0 {
                break;
            }
        }
    }

    #[inline(always)]
    pub fn flash_offset(&self, addr: u32, size: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.flash_base);
        if (off as u64 + size as u64) <= self.flash.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn sram_offset(&self, addr: u32, size: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.sram_base);
        if (off as u64 + size as u64) <= self.sram.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    /// Read memory without side effects (debugger, diagnostics). Devices read as absent.
    pub fn peek8(&self, addr: u32) -> Option<u8> {
        if let Some(off) = self.flash_offset(addr, 1) {
            Some(self.flash[off])
        } else {
            self.sram_offset(addr, 1).map(|off| self.sram[off])
        }
    }

    pub fn peek32(&self, addr: u32) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..4 {
            v |= (self.peek8(addr.wrapping_add(i))? as u32) << (8 * i);
        }
        Some(v)
    }

    #[inline(always)]
    pub fn read32(&mut self, addr: u32) -> Result<u32, FaultKind> {
        self.read32_counted(addr, true)
    }

    /// A literal-pool load (LDR rt, [pc, #imm]): its flash wait states are part of the
    /// instruction's static cost, so it never needs settling (energy/cost.rs).
    #[inline(always)]
    pub fn read32_literal(&mut self, addr: u32) -> Result<u32, FaultKind> {
        self.read32_counted(addr, false)
    }

    /// Flash wait states of a data read. With energy accounting they vary per execution,
    /// so the read ends the run loop's block and the instruction is settled exactly.
    #[inline(always)]
    fn flash_data_wait(&mut self, settle: bool) {
        self.cycles += self.flash_wait_states as u64;
        if settle && self.flash_reads_end_block {
            self.next_event = 0;
        }
    }

    #[inline(always)]
    fn read32_counted(&mut self, addr: u32, settle: bool) -> Result<u32, FaultKind> {
        if addr & 3 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            let b = &self.sram[off..off + 4];
            return Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(settle);
            let b = &self.flash[off..off + 4];
            return Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        S::read(self, addr, 4)
    }

    #[inline(always)]
    pub fn read16(&mut self, addr: u32) -> Result<u32, FaultKind> {
        if addr & 1 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            return Ok(u16::from_le_bytes([self.sram[off], self.sram[off + 1]]) as u32);
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(true);
            return Ok(u16::from_le_bytes([self.flash[off], self.flash[off + 1]]) as u32);
        }
        S::read(self, addr, 2)
    }

    #[inline(always)]
    pub fn read8(&mut self, addr: u32) -> Result<u32, FaultKind> {
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            return Ok(self.sram[off] as u32);
        }
        let off = addr.wrapping_sub(self.flash_base) as usize;
        if off < self.flash.len() {
            self.flash_data_wait(true);
            return Ok(self.flash[off] as u32);
        }
        S::read(self, addr, 1)
    }

    /// One test per store, whatever the page holds (decoded code, a watched variable).
    #[inline(always)]
    fn sram_written(&mut self, off: usize, size: usize) {
        if self.sram_page_flags[off >> 8] != 0 {
            self.sram_page_written(off, size);
        }
    }

    #[cold]
    #[inline(never)]
    fn sram_page_written(&mut self, off: usize, size: usize) {
        let flags = self.sram_page_flags[off >> 8];
        if flags & PAGE_CODE != 0 {
            self.invalidate_sram_code(off);
        }
        if flags & PAGE_WATCH != 0 {
            S::watched_store(self, off, size);
        }
    }

    fn invalidate_sram_code(&mut self, off: usize) {
        let idx = off >> 1;
        let lo = idx.saturating_sub(1);
        let hi = (idx + 2).min(self.sram_ops.len());
        for op in &mut self.sram_ops[lo..hi] {
            *op = Op::UNDECODED;
        }
    }

    #[inline(always)]
    pub fn write32(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        if addr & 3 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off..off + 4].copy_from_slice(&value.to_le_bytes());
            self.sram_written(off, 4);
            return Ok(());
        }
        S::write(self, addr, value, 4)
    }

    #[inline(always)]
    pub fn write16(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        if addr & 1 != 0 {
            return Err(FaultKind::Unaligned(addr));
        }
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off..off + 2].copy_from_slice(&(value as u16).to_le_bytes());
            self.sram_written(off, 2);
            return Ok(());
        }
        S::write(self, addr, value & 0xffff, 2)
    }

    #[inline(always)]
    pub fn write8(&mut self, addr: u32, value: u32) -> Result<(), FaultKind> {
        let off = addr.wrapping_sub(self.sram_base) as usize;
        if off < self.sram.len() {
            self.sram[off] = value as u8;
            self.sram_written(off, 1);
            return Ok(());
        }
        S::write(self, addr, value & 0xff, 1)
    }
}
