//! The main stack against its limit: the lowest MSP seen (the low-water mark) and the first
//! time MSP went below the limit. ARMv6-M has no MSPLIM, so an overflow of the main stack
//! runs on over whatever lies below it (`.bss`, the heap) and shows only much later; the
//! simulator can see it at the instruction that caused it. This is the state and its rules;
//! the processor tells it each MSP that may be a new low.

/// What an overflow of the main stack does to the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackCheck {
    /// A one-line warning, and the stats say so; the run goes on, as hardware would.
    #[default]
    Warn,
    /// The run stops at the instruction that went below the limit.
    Fault,
    /// Not watched, even when the firmware names a limit.
    Off,
}

impl StackCheck {
    pub const NAMES: &'static str = "warn, fault, off";

    pub fn parse(s: &str) -> Result<StackCheck, String> {
        match s {
            "warn" => Ok(StackCheck::Warn),
            "fault" => Ok(StackCheck::Fault),
            "off" => Ok(StackCheck::Off),
            _ => Err(format!("unknown stack check '{s}' (known: {})", StackCheck::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            StackCheck::Warn => "warn",
            StackCheck::Fault => "fault",
            StackCheck::Off => "off",
        }
    }
}

/// The main stack's watch. `watch` is what the run loop compares SP with after each
/// instruction that may lower it, so that only a new low takes the slow path: the
/// low-water mark while the main stack is the one in use, 0 (nothing is below) while the
/// process stack is.
#[derive(Clone, Debug, Default)]
pub struct StackWatch {
    /// Watching at all (a limit is known and the check is not `Off`).
    pub watching: bool,
    pub watch: u32,
    /// MSP below this is an overflow (`__stack_limit`, or the scenario's `stack.limit`).
    pub limit: u32,
    /// What the limit is, for messages: a symbol's name or `stack.limit`.
    pub limit_name: String,
    /// The initial MSP (the vector table's first word).
    pub top: u32,
    /// The lowest MSP seen.
    pub low_water: u32,
    pub check: StackCheck,
    /// The first overflow: (pc, msp).
    pub overflow: Option<(u32, u32)>,
}

impl StackWatch {
    /// Watch a main stack that starts at `top` and must stay at or above `limit`.
    pub fn new(limit: u32, limit_name: &str, top: u32, check: StackCheck) -> StackWatch {
        let watching = check != StackCheck::Off;
        let watch = if watching { top } else { 0 };
        let limit_name = limit_name.to_string();
        StackWatch { watching, watch, limit, limit_name, top, low_water: top, check, overflow: None }
    }

    /// MSP is `msp` after the instruction at `pc` (`main_in_use`: SP is MSP). True when
    /// this is the first time MSP is below the limit.
    pub fn note(&mut self, msp: u32, main_in_use: bool, pc: u32) -> bool {
        self.low_water = self.low_water.min(msp);
        self.watch = if main_in_use { self.low_water } else { 0 };
        if msp < self.limit && self.overflow.is_none() {
            self.overflow = Some((pc, msp));
            return true;
        }
        false
    }

    /// The deepest the main stack went, in bytes below its top.
    pub fn peak_bytes(&self) -> u32 {
        self.top.saturating_sub(self.low_water)
    }

    pub fn overflowed(&self) -> bool {
        self.overflow.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_the_low_water_mark_and_the_first_overflow() {
        let mut w = StackWatch::new(0x2000_f800, "__stack_limit", 0x2001_0000, StackCheck::Warn);
        assert_eq!((w.watch, w.low_water, w.peak_bytes()), (0x2001_0000, 0x2001_0000, 0));
        assert!(!w.note(0x2000_fff0, true, 0x100));
        assert!(!w.note(0x2000_fff8, true, 0x102), "a higher MSP is no new low");
        assert_eq!((w.low_water, w.watch, w.peak_bytes()), (0x2000_fff0, 0x2000_fff0, 16));
        assert!(!w.note(0x2000_f800, true, 0x104), "the limit itself is still inside the stack");
        assert!(w.note(0x2000_f7fc, true, 0x106), "one word below the limit");
        assert!(!w.note(0x2000_f000, true, 0x108), "only the first overflow is reported");
        assert_eq!(w.overflow, Some((0x106, 0x2000_f7fc)));
        assert_eq!(w.peak_bytes(), 0x1000);
    }

    #[test]
    fn the_process_stack_in_use_is_not_compared() {
        let mut w = StackWatch::new(0x2000_f800, "__stack_limit", 0x2001_0000, StackCheck::Fault);
        assert!(!w.note(0x2000_ff00, false, 0x100));
        assert_eq!(w.watch, 0, "no PSP value is below the watch");
        assert_eq!(w.low_water, 0x2000_ff00);
        assert!(!w.note(0x2000_ff00, true, 0x104));
        assert_eq!(w.watch, 0x2000_ff00);
    }

    #[test]
    fn off_watches_nothing() {
        let w = StackWatch::new(0x2000_f800, "__stack_limit", 0x2001_0000, StackCheck::Off);
        assert!(!w.watching);
        assert_eq!(StackCheck::parse("fault"), Ok(StackCheck::Fault));
        assert_eq!(StackCheck::parse("off").map(StackCheck::name), Ok("off"));
        assert_eq!(StackCheck::parse("loud"), Err("unknown stack check 'loud' (known: warn, fault, off)".into()));
    }
}
