//! The simulated processor: an ARMv6-M core (crate cairn-isa) with its bus — the
//! architecture's system space and the board's devices, placed by the board file — and
//! the observers attached to it (energy, trace, RTOS watch, idle and I/O measurements).
//!
//! `Machine` is the core with the processor's state (`Board`) inside it: it dereferences
//! to `Core<Board>`, which dereferences to `Board`, so code names registers, memories and
//! devices alike. `Board` implements the core's `Bus`; the hooks reach the processor's
//! methods through `Machine::of`, the same object seen as the processor.

use crate::attached::Attached;
use crate::config::BoardConfig;
use crate::console::{ConsoleSink, MemoryConsole};
use crate::devices::DeviceTable;
use crate::periph::bus_ctrl::BusCtrl;
use crate::periph::cmsdk_timer::CmsdkTimer;
use crate::periph::cmsdk_uart::CmsdkUart;
use crate::periph::rtc::Rtc;
use crate::periph::systick::SysTick;
use crate::periph::trace_port::TracePort;
use crate::symbols::Symbols;
use cairn_isa::armv6m::{Bus, Core, CoreConfig};
use ref_cast::RefCast;

pub use crate::console::Stream;
pub use cairn_isa::armv6m::{FaultKind, Stop, PAGE_CODE, PAGE_WATCH};

/// Everything of a processor but its core.
pub struct Board {
    // --- the architecture's SysTick and the board's devices ---
    pub systick: SysTick,
    /// The board's CMSDK timers and UARTs, in board-file order.
    pub timers: Vec<CmsdkTimer>,
    pub uarts: Vec<CmsdkUart>,
    pub trace_port: TracePort,
    /// The module's port on a device's bus, and its real-time clock.
    pub bus_ctrl: BusCtrl,
    pub rtc: Rtc,
    /// Where the board file places each device, and its interrupt numbers.
    pub devices: DeviceTable,

    pub config: BoardConfig,
    pub symbols: Symbols,
    /// Where the firmware's console output goes: kept in memory unless the owner (the CLI)
    /// puts another sink here.
    pub console: Box<dyn ConsoleSink>,
    /// Semihosting: open handles (index = handle - 1), for SYS_OPEN of ":tt".
    pub semihost_handles: Vec<Stream>,
    /// Warnings already printed (each is printed once).
    pub warned: std::collections::BTreeSet<String>,
    /// Words written to the trace port.
    pub trace_port_words: u64,
    /// Fault triggers on trace-port words: (word, mask, occurrences left, rule): a word `w`
    /// with `w & mask == word` counts; when one reaches zero its rule goes to `triggered`
    /// and the run pauses at this instruction.
    pub trace_triggers: Vec<(u32, u32, u64, usize)>,
    pub triggered: Vec<usize>,
    /// Cycles spent powered off (in a device).
    pub off_cycles: u64,
    /// Exception-event recorder for `--trace`, when enabled.
    pub trace: Option<crate::trace::TraceLog>,
    /// Sized function symbols of the loaded ELF (for energy attribution).
    pub functions: Vec<crate::energy::categories::FuncInfo>,
    /// Hot-loop energy counters (empty unless energy accounting is on).
    pub meter: crate::energy::Meter,
    /// The RTOS current-task watch (`--rtos`), when enabled.
    pub rtos: Option<Box<crate::rtos::Watch>>,
    /// Energy accounting state, when a profile is active.
    pub energy: Option<Box<crate::energy::EnergyState>>,
    /// Idle periods (sleeps) of the core.
    pub idle: crate::idle::IdleStats,
    /// The main stack's low-water mark against its limit (stack_guard.rs); compared with SP
    /// in the run loop only while it is watched.
    pub stack: crate::stack::StackWatch,
    /// The processor's name in a device, for its diagnostics.
    pub processor_name: Option<String>,
    /// Cairn scenario devices (GPIO, I/O ports, ADC, stimuli) and the I/O event log.
    pub io: crate::io_system::IoSystem,
}

/// A processor: its core, with the board inside (see the module's comment).
#[derive(RefCast)]
#[repr(transparent)]
pub struct Machine(pub Core<Board>);

impl std::ops::Deref for Machine {
    type Target = Core<Board>;
    #[inline(always)]
    fn deref(&self) -> &Core<Board> {
        &self.0
    }
}

impl std::ops::DerefMut for Machine {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Core<Board> {
        &mut self.0
    }
}

impl Machine {
    pub fn new(config: BoardConfig) -> Machine {
        let clock_hz = config.clock_hz;
        let devices = DeviceTable::new(&config.board);
        let core = CoreConfig {
            flash_base: config.flash_base,
            flash_size: config.flash_size,
            sram_base: config.sram_base,
            sram_size: config.sram_size,
            flash_wait_states: config.flash_wait_states,
            mul_cycles: config.mul_cycles,
            exceptions: config.exceptions.clone(),
        };
        let board = Board {
            systick: SysTick::new(config.clock_hz, config.systick_ref_hz),
            timers: (0..devices.timers).map(|_| CmsdkTimer::default()).collect(),
            uarts: (0..devices.uarts).map(|_| CmsdkUart::default()).collect(),
            trace_port: TracePort,
            bus_ctrl: BusCtrl::default(),
            rtc: Rtc::new(clock_hz),
            devices,
            config,
            symbols: Symbols::default(),
            console: Box::new(MemoryConsole::default()),
            semihost_handles: Vec::new(),
            warned: Default::default(),
            trace_port_words: 0,
            trace_triggers: Vec::new(),
            triggered: Vec::new(),
            off_cycles: 0,
            trace: None,
            functions: Vec::new(),
            meter: Default::default(),
            energy: None,
            rtos: None,
            idle: Default::default(),
            stack: Default::default(),
            processor_name: None,
            io: crate::io_system::IoSystem::new(clock_hz),
        };
        Machine(Core::new(&core, board))
    }

    /// The processor whose core this is.
    #[inline(always)]
    pub fn of(core: &mut Core<Board>) -> &mut Machine {
        Machine::ref_cast_mut(core)
    }

    /// The processor whose core this is, read-only.
    #[inline(always)]
    pub fn of_ref(core: &Core<Board>) -> &Machine {
        Machine::ref_cast(core)
    }

    fn reset_devices(&mut self) {
        let (clock_hz, ref_hz) = (self.config.clock_hz, self.config.systick_ref_hz);
        self.systick = SysTick::new(clock_hz, ref_hz);
        self.reset_board_devices();
        // The core restarts on the main stack; its low-water mark is the run's.
        if self.stack.watching {
            self.stack.watch = self.stack.low_water;
        }
        // Cairn's devices also take the scenario's firings when the board does not place them.
        self.io.reset_registers();
    }

    /// Install the I/O section of a scenario (stimuli, ports, ADC, UART input, measurements)
    /// before a run (`check_uart_inputs` first: an input for a UART the board lacks is dropped). Call after the clock is final: scenario times are converted to its cycles.
    pub fn install_io_scenario(&mut self, sc: crate::scenario_io::IoScenario, seed: u64) {
        self.io.clock_hz = self.config.clock_hz;
        self.feed_uarts(&sc);
        self.io.install(sc, seed);
        self.next_event = 0;
    }

    /// Record power state and IRQ changes for a waveform (`--vcd`).
    pub fn record_timeline(&mut self) {
        self.io.timeline = Some(Default::default());
    }

    // ------------------------------------------------------------------ console

    pub fn emit(&mut self, stream: Stream, byte: u8) {
        let now = self.cycles;
        self.console.write_at(stream, byte, now);
        if self.console.error().is_some() {
            // The CLI reports the write error when the run ends, at this instruction.
            self.cycle_limit = self.cycle_limit.min(self.cycles);
            self.next_event = 0;
        }
    }
}

impl Bus for Board {
    type Observers = Attached;

    #[inline(always)]
    fn read(m: &mut Core<Board>, addr: u32, size: u32) -> Result<u32, FaultKind> {
        Machine::of(m).io_read(addr, size)
    }

    #[inline(always)]
    fn write(m: &mut Core<Board>, addr: u32, value: u32, size: u32) -> Result<(), FaultKind> {
        Machine::of(m).io_write(addr, value, size)
    }

    fn process_events(m: &mut Core<Board>) {
        Machine::of(m).process_device_events()
    }

    fn next_event(m: &Core<Board>) -> u64 {
        Machine::of_ref(m).next_device_event()
    }

    fn update_irq_lines(m: &mut Core<Board>) {
        Machine::of(m).update_irq_lines()
    }

    fn reset_devices(m: &mut Core<Board>) {
        Machine::of(m).reset_devices()
    }

    fn semihost(m: &mut Core<Board>) {
        Machine::of(m).semihost()
    }

    fn watched_store(m: &mut Core<Board>, off: usize, size: usize) {
        Machine::of(m).rtos_store(off, size)
    }
}
