//! Board and core parameters. Defaults describe `mps2-an385` with a Cortex-M0+ core.

/// Cycle costs of exception handling that the Cortex-M0+ TRM does not give per phase.
#[derive(Clone, Debug)]
pub struct ExceptionTiming {
    /// IRQ taken at an instruction boundary -> first handler instruction starts (TRM: 15).
    pub entry: u64,
    /// Extra cycles of an exception return (unstacking) on top of the returning BX/POP.
    pub exit: u64,
    /// Extra cycles of a tail-chained entry on top of the returning BX/POP.
    pub tail_chain: u64,
}

impl Default for ExceptionTiming {
    fn default() -> Self {
        ExceptionTiming { entry: 15, exit: 13, tail_chain: 9 }
    }
}

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
}

pub const BOARD_NAMES: &[&str] = &["mps2-an385"];

impl BoardConfig {
    pub fn mps2_an385() -> BoardConfig {
        BoardConfig {
            name: "mps2-an385".into(),
            // The MPS2 FPGA images clock the core at 25 MHz (QEMU models the same).
            clock_hz: 25_000_000,
            flash_base: 0x0000_0000,
            flash_size: 4 << 20,
            sram_base: 0x2000_0000,
            sram_size: 4 << 20,
            flash_wait_states: 0,
            mul_cycles: 1,
            systick_ref_hz: 1_000_000,
            exceptions: ExceptionTiming::default(),
            voltage_range: None,
        }
    }

    pub fn by_name(name: &str) -> Option<BoardConfig> {
        match name {
            "mps2-an385" => Some(Self::mps2_an385()),
            _ => None,
        }
    }
}
