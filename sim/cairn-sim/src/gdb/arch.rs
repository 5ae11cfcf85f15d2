//! The register set GDB sees: an ARMv6-M ("M-profile") target description, which
//! `gdbstub_arch` does not provide (its `Armv4t` puts a CPSR and FPA registers where
//! GDB expects xPSR and nothing).
//!
//! Remote register numbers (for `p`/`P` packets) follow GDB's `arm-m-profile.xml`:
//! r0-r12 = 0-12, sp = 13, lr = 14, pc = 15, xpsr = 25; then msp = 26, psp = 27,
//! primask = 28, control = 29. The `g` packet carries them in that order, without gaps.

use core::num::NonZeroUsize;
use gdbstub::arch::{Arch, RegId, Registers};
use gdbstub_arch::arm::ArmBreakpointKind;

pub const TARGET_XML: &str = r#"<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
  <architecture>arm</architecture>
  <feature name="org.gnu.gdb.arm.m-profile">
    <reg name="r0" bitsize="32" regnum="0"/>
    <reg name="r1" bitsize="32"/>
    <reg name="r2" bitsize="32"/>
    <reg name="r3" bitsize="32"/>
    <reg name="r4" bitsize="32"/>
    <reg name="r5" bitsize="32"/>
    <reg name="r6" bitsize="32"/>
    <reg name="r7" bitsize="32"/>
    <reg name="r8" bitsize="32"/>
    <reg name="r9" bitsize="32"/>
    <reg name="r10" bitsize="32"/>
    <reg name="r11" bitsize="32"/>
    <reg name="r12" bitsize="32"/>
    <reg name="sp" bitsize="32" type="data_ptr"/>
    <reg name="lr" bitsize="32"/>
    <reg name="pc" bitsize="32" type="code_ptr"/>
    <reg name="xpsr" bitsize="32" regnum="25"/>
  </feature>
  <feature name="org.gnu.gdb.arm.m-system">
    <reg name="msp" bitsize="32" regnum="26" type="data_ptr"/>
    <reg name="psp" bitsize="32" regnum="27" type="data_ptr"/>
  </feature>
  <feature name="org.cairn.sim.armv6m-special">
    <reg name="primask" bitsize="32" regnum="28" type="int"/>
    <reg name="control" bitsize="32" regnum="29" type="int"/>
  </feature>
</target>
"#;

/// The Cortex-M0+ as GDB sees it.
pub enum CortexM0Plus {}

impl Arch for CortexM0Plus {
    type Usize = u32;
    type Registers = Regs;
    type RegId = Reg;
    type BreakpointKind = ArmBreakpointKind;

    fn target_description_xml() -> Option<&'static str> {
        Some(TARGET_XML)
    }
}

/// All registers, in `g`-packet order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Regs {
    pub r: [u32; 13],
    pub sp: u32,
    pub lr: u32,
    pub pc: u32,
    pub xpsr: u32,
    pub msp: u32,
    pub psp: u32,
    pub primask: u32,
    pub control: u32,
}

const NUM_REGS: usize = 13 + 3 + 5;

impl Regs {
    fn words(&self) -> [u32; NUM_REGS] {
        let mut w = [0; NUM_REGS];
        w[..13].copy_from_slice(&self.r);
        w[13..].copy_from_slice(&[
            self.sp,
            self.lr,
            self.pc,
            self.xpsr,
            self.msp,
            self.psp,
            self.primask,
            self.control,
        ]);
        w
    }
}

impl Registers for Regs {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for w in self.words() {
            w.to_le_bytes().into_iter().for_each(|b| write_byte(Some(b)));
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != NUM_REGS * 4 {
            return Err(());
        }
        let mut w = [0u32; NUM_REGS];
        for (v, c) in w.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        self.r.copy_from_slice(&w[..13]);
        [self.sp, self.lr, self.pc, self.xpsr, self.msp, self.psp, self.primask, self.control] =
            [w[13], w[14], w[15], w[16], w[17], w[18], w[19], w[20]];
        Ok(())
    }
}

/// One register, as named by a `p`/`P` packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    Gpr(u8),
    Sp,
    Lr,
    Pc,
    Xpsr,
    Msp,
    Psp,
    Primask,
    Control,
}

impl Reg {
    /// The core's name for it.
    pub fn core(self) -> cairn_isa::armv6m::Reg {
        use cairn_isa::armv6m::Reg as R;
        match self {
            Reg::Gpr(i) => R::Gpr(i),
            Reg::Sp => R::Sp,
            Reg::Lr => R::Lr,
            Reg::Pc => R::Pc,
            Reg::Xpsr => R::Xpsr,
            Reg::Msp => R::Msp,
            Reg::Psp => R::Psp,
            Reg::Primask => R::Primask,
            Reg::Control => R::Control,
        }
    }
}

impl RegId for Reg {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        let reg = match id {
            0..=12 => Reg::Gpr(id as u8),
            13 => Reg::Sp,
            14 => Reg::Lr,
            15 => Reg::Pc,
            25 => Reg::Xpsr,
            26 => Reg::Msp,
            27 => Reg::Psp,
            28 => Reg::Primask,
            29 => Reg::Control,
            _ => return None,
        };
        Some((reg, NonZeroUsize::new(4)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_round_trip_through_the_g_packet() {
        let mut regs = Regs::default();
        for (i, r) in regs.r.iter_mut().enumerate() {
            *r = 0x1000 + i as u32;
        }
        regs.sp = 0x2000_0ff0;
        regs.pc = 0x100;
        regs.xpsr = 0x6100_0000;
        regs.control = 2;
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap()));
        assert_eq!(bytes.len(), NUM_REGS * 4);
        assert_eq!(&bytes[16 * 4..17 * 4], &0x6100_0000u32.to_le_bytes());
        let mut back = Regs::default();
        back.gdb_deserialize(&bytes).unwrap();
        assert_eq!(back, regs);
        assert!(back.gdb_deserialize(&bytes[4..]).is_err());
    }

    #[test]
    fn register_numbers_follow_the_m_profile_description() {
        assert_eq!(Reg::from_raw_id(15).unwrap().0, Reg::Pc);
        assert_eq!(Reg::from_raw_id(25).unwrap().0, Reg::Xpsr);
        assert_eq!(Reg::from_raw_id(29).unwrap().0, Reg::Control);
        assert!(Reg::from_raw_id(16).is_none());
    }
}
