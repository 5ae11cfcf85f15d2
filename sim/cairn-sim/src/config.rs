//! Board and core parameters of one run: a board description (`board`) plus what the
//! options and the energy profile change (wait states, multiplier, voltage range).

pub use cairn_isa::armv6m::ExceptionTiming;

#[derive(Clone, Debug)]
pub struct BoardConfig {
    pub name: String,
    pub clock_hz: u64,
    pub flash_base: u32,
    pub flash_size: u32,
    pub sram_base: u32,
    pub sram_size: u32,
    /// Wait states added to each instruction fetched and each data access made to flash.
    pub flash_wait_states: u32,
    /// MULS latency: 1 (fast multiplier) or 32 (small multiplier).
    pub mul_cycles: u32,
    /// SysTick reference clock (CLKSOURCE = 0).
    pub systick_ref_hz: u64,
    pub exceptions: ExceptionTiming,
    /// The energy profile's voltage range, when forced (`--voltage-range`); None = the
    /// lowest-power range that runs `clock_hz`.
    pub voltage_range: Option<u32>,
    /// The board description: the machine places its devices and wires their interrupt
    /// lines from it.
    pub board: crate::board::BoardSpec,
}

impl BoardConfig {
    /// The run parameters of a board description; flash wait states, the multiplier and
    /// exception timing are the core's defaults (options and energy profiles change them).
    pub fn from_spec(b: &crate::board::BoardSpec) -> BoardConfig {
        BoardConfig {
            name: b.name.clone(),
            clock_hz: b.clock_hz,
            flash_base: b.flash.base,
            flash_size: b.flash.size,
            sram_base: b.sram.base,
            sram_size: b.sram.size,
            flash_wait_states: 0,
            mul_cycles: 1,
            systick_ref_hz: b.systick_ref_hz,
            exceptions: ExceptionTiming::default(),
            voltage_range: None,
            board: b.clone(),
        }
    }

    /// The default board, from its shipped description (sim/boards/mps2-an385.toml).
    pub fn mps2_an385() -> BoardConfig {
        Self::by_name("mps2-an385").expect("the shipped mps2-an385 board file is valid (tested)")
    }

    /// A shipped board by name; the error is one line listing the known boards.
    pub fn by_name(name: &str) -> Result<BoardConfig, String> {
        crate::board::BoardSpec::embedded(name).map(|b| Self::from_spec(&b))
    }
}
