//! `cairn-sim`: command-line entry point. Exit statuses: the firmware's semihosting exit
//! code; 124 when a time or instruction limit ends the run; 125 on lockup or asleep with
//! nothing to wake the core; 123 when `--stack-check=fault` stops a main-stack overflow; 2
//! on usage, input file, ELF or output write errors; 70 on an internal error (docs/cli.md).

use cairn_sim::board::BoardSpec;
use cairn_sim::config::BoardConfig;
use cairn_sim::console::{diagnostic, ProcessConsole};
use cairn_sim::energy::profile::Profile;
use cairn_sim::input_file::{read_input, DATA_LIMIT};
use cairn_sim::machine::{Machine, Stop};
use cairn_sim::out_file::OutFile;
use cairn_sim::report::{lockup_report, stats_json};
use cairn_sim::rtos::Layout as RtosLayout;
use cairn_sim::scenario::{parse_wait_states, Scenario};
use cairn_sim::stack::StackCheck;
use cairn_sim::units::{parse_duration_ps, parse_hz, parse_size, parse_uint};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

mod device_run;

const EXIT_USAGE: i32 = 2;
const EXIT_LIMIT: i32 = 124;
const EXIT_LOCKUP: i32 = 125;
const EXIT_INTERNAL: i32 = 70;
const EXIT_STACK: i32 = 123;

#[derive(Parser)]
#[command(name = "cairn-sim", version, about = "Cycle-accurate Cortex-M0+ simulator for Cairn firmware")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a firmware ELF file.
    Run(Box<RunArgs>),
    /// Differential-testing helper: run instruction sequences from a JSON-lines file.
    #[command(hide = true)]
    ExecCases { file: String },
}

#[derive(clap::Args, Default)]
struct RunArgs {
    /// Firmware ELF file (may come from the scenario's `firmware` key instead).
    firmware: Option<PathBuf>,
    /// Board: a shipped board's name, or a board file (a path ending in .toml).
    #[arg(long, value_name = "NAME|FILE.toml", default_value = "mps2-an385")]
    board: String,
    /// Device/scenario description (TOML, docs/scenario.md).
    #[arg(long, value_name = "FILE.toml")]
    device: Option<PathBuf>,
    /// Energy profile: a built-in name (stm32l053, nrf51822) or a profile TOML file.
    #[arg(long, value_name = "NAME|FILE")]
    energy: Option<String>,
    /// Voltage range of the energy profile's part (STM32L053: 1, 2 or 3); default: the
    /// lowest-power range that runs the clock.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    voltage_range: Option<String>,
    /// Attribute time and energy to another RTOS's tasks: freertos, zephyr, riot, or
    /// current=SYMBOL[.member|[N]...][,name=MEMBER] (docs/rtos.md).
    #[arg(long, value_name = "NAME|SPEC")]
    rtos: Option<String>,
    /// Core clock, e.g. 25MHz or 48000000.
    #[arg(long, value_name = "HZ", allow_hyphen_values = true)]
    clock: Option<String>,
    /// Stop after this much simulated time (e.g. 10ms, 2s); exit status 124.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    max_time: Option<String>,
    /// Stop after this many instructions; exit status 124.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_instructions: Option<String>,
    /// Seed for stochastic stimuli (default 0).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    seed: Option<String>,
    /// Write run statistics as JSON.
    #[arg(long, value_name = "FILE.json")]
    stats: Option<PathBuf>,
    /// Write a Chrome/Perfetto JSON trace.
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
    /// Write a VCD waveform (GPIO pins, I/O ports, stimuli, IRQ lines, power state).
    #[arg(long, value_name = "FILE.vcd")]
    vcd: Option<PathBuf>,
    /// Scenario I/O section (stimuli, pins, ports, ADC, measurements); normally part of --device.
    #[arg(long, value_name = "FILE.toml")]
    io: Option<PathBuf>,
    /// Write a CSV of I/O events (cycle,time_s,kind,name,value).
    #[arg(long, value_name = "FILE.csv")]
    io_log: Option<PathBuf>,
    /// Serve the GDB remote protocol on this TCP port and wait for a debugger.
    #[arg(long, value_name = "PORT", allow_hyphen_values = true)]
    gdb: Option<String>,
    /// Device runs with --gdb: the processor (its name) the debugger attaches to.
    #[arg(long, value_name = "NAME")]
    gdb_processor: Option<String>,
    /// Flash size (e.g. 256K, 4M).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    flash_size: Option<String>,
    /// SRAM size (e.g. 64K, 4M).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    sram_size: Option<String>,
    /// Flash wait states per instruction fetch and data access (0 to 15).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    flash_wait_states: Option<String>,
    /// MULS latency in cycles: 1 (fast multiplier) or 32 (small multiplier).
    #[arg(long, value_name = "CYCLES", value_parser = ["1", "32"], allow_hyphen_values = true)]
    mul_cycles: Option<String>,
    /// What MSP going below the ELF's __stack_limit (or the scenario's [stack] limit) does:
    /// warn (default), fault (stop, exit 123) or off.
    #[arg(long, value_name = "warn|fault|off")]
    stack_check: Option<String>,
    /// Device runs: cap the scheduler's window (e.g. 1us); the results do not depend on it.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    quantum: Option<String>,
    /// Device runs: write every bus frame as CSV (id, times, source, destination, faults).
    #[arg(long, value_name = "FILE.csv")]
    bus_log: Option<PathBuf>,
    /// Device runs: each processor's console to DIR/NAME.txt instead of stdout with its name.
    #[arg(long, value_name = "DIR")]
    console_dir: Option<PathBuf>,
}

/// End the run with exit status 2 and one line on stderr; output files not yet complete
/// are removed (out_file.rs).
fn fail(msg: impl std::fmt::Display) -> ! {
    cairn_sim::out_file::remove_pending();
    diagnostic(format_args!("cairn-sim: {msg}"));
    std::process::exit(EXIT_USAGE)
}

/// A numeric option's value, checked like the same value in a scenario file
/// (units.rs); numeric options take values starting with '-' so that a negative number
/// is refused for what it is rather than taken for an unknown option.
fn option_value<T>(name: &str, value: Option<&str>, parse: impl Fn(&str) -> Result<T, String>) -> Option<T> {
    value.map(|v| parse(v).unwrap_or_else(|e| fail(format_args!("{name}: {e}"))))
}

/// The run's board configuration from the board, the scenario and the options; an error is
/// the one line to report.
fn board_config(args: &RunArgs, sc: &Scenario) -> Result<BoardConfig, String> {
    let board = if args.board == "mps2-an385" { sc.board.as_deref().unwrap_or(&args.board) } else { &args.board };
    let mut cfg = if board == args.board && board.ends_with(".toml") {
        BoardSpec::from_file(Path::new(board)).map(|b| BoardConfig::from_spec(&b))
    } else {
        BoardConfig::by_name(board)
    }?;
    if let Some(c) = sc.clock_hz {
        cfg.clock_hz = c;
    }
    if let Some(s) = sc.flash_size {
        cfg.flash_size = s;
    }
    if let Some(s) = sc.sram_size {
        cfg.sram_size = s;
    }
    if let Some(c) = option_value("--clock", args.clock.as_deref(), parse_hz) {
        cfg.clock_hz = c;
    }
    if let Some(s) = option_value("--flash-size", args.flash_size.as_deref(), parse_size) {
        cfg.flash_size = s;
    }
    if let Some(s) = option_value("--sram-size", args.sram_size.as_deref(), parse_size) {
        cfg.sram_size = s;
    }
    // Other memory sizes must still leave the board's devices where they are.
    if (cfg.flash_size, cfg.sram_size) != (cfg.board.flash.size, cfg.board.sram.size) {
        cfg.board.flash.size = cfg.flash_size;
        cfg.board.sram.size = cfg.sram_size;
        cfg.board.check().map_err(|e| format!("{}: {e}", cfg.board.name))?;
    }
    // The profile's voltage range: the option, else the scenario's, else the lowest-power one
    // that runs the clock; a clock no range runs is an error.
    let forced = option_value("--voltage-range", args.voltage_range.as_deref(), |s| {
        parse_uint(s, 0, u32::MAX as u64).map(|r| r as u32)
    });
    cfg.voltage_range = forced.or(sc.voltage_range);
    let range = match &sc.profile {
        Some(p) => Some(p.range(cfg.clock_hz, cfg.voltage_range).map_err(|e| format!("{}: {e}", p.name))?),
        None if cfg.voltage_range.is_some() => {
            return Err("--voltage-range: needs an energy profile (--energy or [energy] profile)".into())
        }
        None => None,
    };
    // Flash wait states: the option, else the scenario, else what the energy profile's part
    // needs at this clock in its range, else the board's.
    let wait_states = option_value("--flash-wait-states", args.flash_wait_states.as_deref(), parse_wait_states);
    if let Some(w) = wait_states.or(sc.flash_wait_states) {
        cfg.flash_wait_states = w;
    } else if let Some(r) = range {
        cfg.flash_wait_states = r.wait_states(cfg.clock_hz);
    }
    if let Some(m) = &args.mul_cycles {
        cfg.mul_cycles = if m == "32" { 32 } else { 1 };
    }
    Ok(cfg)
}

/// A machine with the firmware loaded, the ELF's bytes, and where the `--rtos` task
/// pointer is (resolved before any output file is created).
fn load_firmware(cfg: BoardConfig, firmware: &Path, sc: &Scenario) -> (Machine, Vec<u8>, Option<RtosLayout>) {
    let path = firmware.display().to_string();
    let bytes = read_input(firmware, DATA_LIMIT).unwrap_or_else(|e| fail(e));
    let mut m = Machine::new(cfg);
    if let Err(e) = cairn_sim::elf::load_elf(&mut m, &bytes) {
        fail(format_args!("{path}: {e}"));
    }
    let rtos_layout = sc.rtos.as_ref().map(|spec| {
        cairn_sim::rtos::resolve(&bytes, spec)
            .unwrap_or_else(|e| fail(format_args!("--rtos {}: {path}: {e}", spec.label)))
    });
    (m, bytes, rtos_layout)
}

/// The main-stack guard (stack_guard.rs), after the reset that starts the run: the
/// scenario's limit, else the ELF's `__stack_limit`; none, nothing is watched.
fn attach_stack_guard(m: &mut Machine, bytes: &[u8], sc: &Scenario, check: Option<StackCheck>, path: &str) {
    use cairn_sim::stack_guard::{StackLimit, LIMIT_SYMBOL};
    let check = check.or(sc.stack.check).unwrap_or_default();
    let (limit, name) = match &sc.stack.limit {
        Some(StackLimit::Address(a)) => (Some(*a), "stack.limit".to_string()),
        Some(StackLimit::Symbol(s)) => match cairn_sim::elf::symbol_address(bytes, s) {
            Some(a) => (Some(a), s.clone()),
            None => fail(format_args!("stack.limit: {path}: no symbol '{s}' in the ELF")),
        },
        None => (cairn_sim::elf::symbol_address(bytes, LIMIT_SYMBOL), LIMIT_SYMBOL.to_string()),
    };
    if let (Some(limit), true) = (limit, check != StackCheck::Off) {
        m.watch_stack(limit, &name, check);
    }
}

/// The `--stack-check` option's value.
fn stack_check_option(args: &RunArgs) -> Option<StackCheck> {
    args.stack_check
        .as_deref()
        .map(|s| StackCheck::parse(s).unwrap_or_else(|e| fail(format_args!("--stack-check: {e}"))))
}

/// Energy accounting, the RTOS task watch and the stack guard, after the reset that starts
/// the run.
fn attach_observers(
    m: &mut Machine,
    bytes: &[u8],
    sc: &Scenario,
    rtos: Option<RtosLayout>,
    stack_check: Option<StackCheck>,
    path: &str,
) {
    attach_stack_guard(m, bytes, sc, stack_check, path);
    if let Some(p) = sc.profile.as_ref().filter(|_| sc.measure.energy) {
        cairn_sim::elf::attach_source_files(m, bytes);
        m.enable_energy(p, sc.voltage_v, &sc.categories).unwrap_or_else(|e| fail(e));
        let board = &mut m.0.sys;
        if let (Some(t), Some(e)) = (board.trace.as_mut(), board.energy.as_deref()) {
            t.set_currents(e.rates.currents_ua());
        }
    }
    if let Some(layout) = rtos {
        m.install_rtos(layout).unwrap_or_else(|e| fail(format_args!("--rtos: {path}: {e}")));
    }
}

fn run(args: RunArgs) -> i32 {
    if let Some(p) = &args.device {
        let text =
            cairn_sim::input_file::read_input_text(p, cairn_sim::input_file::TEXT_LIMIT).unwrap_or_else(|e| fail(e));
        if cairn_sim::device::file::is_device(&text) {
            return device_run::run(&args, p);
        }
    }
    let max_instructions =
        option_value("--max-instructions", args.max_instructions.as_deref(), |s| parse_uint(s, 0, u64::MAX));
    let seed = option_value("--seed", args.seed.as_deref(), |s| parse_uint(s, 0, u64::MAX)).unwrap_or(0);
    let gdb_port = option_value("--gdb", args.gdb.as_deref(), |s| parse_uint(s, 0, u16::MAX as u64).map(|p| p as u16));
    let stack_check = stack_check_option(&args);
    if args.gdb_processor.is_some() {
        fail("--gdb-processor: only with a device file of [[processor]] tables (docs/device.md)");
    }
    let mut sc = match &args.device {
        Some(p) => Scenario::load(p).unwrap_or_else(|e| fail(e)),
        None => Scenario::default(),
    };
    if let Some(name) = &args.energy {
        sc.profile = Some(Profile::load(name).unwrap_or_else(|e| fail(format_args!("--energy: {e}"))));
    }
    if let Some(r) = &args.rtos {
        sc.rtos = Some(cairn_sim::rtos::RtosSpec::parse(r).unwrap_or_else(|e| fail(format_args!("--rtos: {e}"))));
    }
    let cfg = board_config(&args, &sc).unwrap_or_else(|e| fail(e));
    // Scenario errors come before the ELF is read: one line naming the key, exit 2. An --io
    // file replaces the scenario's I/O section.
    let io_scenario = match &args.io {
        Some(p) => Some(cairn_sim::scenario_io::parse_io_file(p).unwrap_or_else(|e| fail(format_args!("--io: {e}")))),
        None => sc.io.take(),
    };
    // The command line's firmware wins over the scenario's.
    let Some(firmware) = args.firmware.clone().or(sc.firmware.clone()) else {
        fail("missing FIRMWARE.elf (give it on the command line or as `firmware` in the scenario)")
    };
    let path = firmware.display().to_string();
    let (mut m, bytes, rtos_layout) = load_firmware(cfg, &firmware, &sc);
    if let Some(ps) = option_value("--max-time", args.max_time.as_deref(), parse_duration_ps) {
        let cycles = ps.saturating_mul(m.config.clock_hz as u128).div_ceil(1_000_000_000_000);
        m.cycle_limit = cycles.min(u64::MAX as u128) as u64;
    }
    if let Some(p) = &args.trace {
        // Created before the run and written as it goes (like --io-log and --vcd).
        m.trace = Some(cairn_sim::trace::TraceLog::create(p, m.config.clock_hz).unwrap_or_else(|e| fail(e)));
    }
    // Like the other outputs, the stats file is started before the run (so a path that
    // cannot be written is reported before anything runs) and put in place when complete.
    let stats_file = args.stats.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    if let Some(sc) = io_scenario {
        m.check_uart_inputs(&sc).unwrap_or_else(|e| fail(e));
        m.install_io_scenario(sc, seed);
    }
    // The I/O outputs are streamed: their files are created now and written as the run goes.
    if args.stats.is_some() || args.vcd.is_some() || args.io_log.is_some() {
        m.stream_io(args.io_log.as_deref(), args.vcd.as_deref()).unwrap_or_else(|e| fail(e));
    } else {
        m.io.events.enabled = false;
    }
    m.console = Box::new(ProcessConsole::default());
    m.reset();
    attach_observers(&mut m, &bytes, &sc, rtos_layout, stack_check, &path);
    let start = std::time::Instant::now();
    let stop = if let Some(port) = gdb_port {
        match cairn_sim::gdb::serve(&mut m, port, max_instructions) {
            Ok(s) => s,
            Err(e) => {
                m.console.flush();
                fail(format_args!("--gdb: {e}"))
            }
        }
    } else {
        m.run(max_instructions.unwrap_or(u64::MAX))
    };
    // Asleep with nothing that could wake the core is a firmware bug, not a limit: the same
    // status (125) with or without --max-time, which only decides how long the stats' window is.
    let stop = if stop == Stop::Limit && m.asleep_forever() { Stop::SleepForever } else { stop };
    let host_seconds = start.elapsed().as_secs_f64();
    m.console.flush();
    // The firmware's output could not be written (not a closed pipe): that is the outcome.
    if let Some(e) = m.console.error() {
        fail(e);
    }
    // A write error of --io-log or --vcd (which also ends the run early) is the outcome.
    m.finish_io_stream().unwrap_or_else(|e| fail(e));
    if let (Some(p), Some(t)) = (&args.trace, m.trace.take()) {
        t.finish(m.cycles, &p.display().to_string()).unwrap_or_else(|e| fail(e));
    }
    let status = match &stop {
        Stop::Exit(code) => code & 0xff,
        Stop::Limit => {
            diagnostic(format_args!(
                "cairn-sim: limit reached after {} instructions, {} cycles",
                m.instructions, m.cycles
            ));
            EXIT_LIMIT
        }
        Stop::Lockup { kind, pc, ipsr } => {
            diagnostic(format_args!("{}", lockup_report(&m, *kind, *pc, *ipsr)));
            EXIT_LOCKUP
        }
        Stop::SleepForever => {
            diagnostic(format_args!(
                "cairn-sim: core asleep at pc 0x{:08x} ({}) with no enabled event that could wake it",
                m.pc,
                m.symbols.describe(m.pc)
            ));
            EXIT_LOCKUP
        }
        Stop::PowerOff => {
            diagnostic(format_args!(
                "cairn-sim: the processor powered itself off at pc 0x{:08x} ({}) with no bus to power it on",
                m.pc,
                m.symbols.describe(m.pc)
            ));
            EXIT_LOCKUP
        }
        Stop::StackOverflow { pc, msp } => {
            diagnostic(format_args!("cairn-sim: {}", cairn_sim::stack_guard::overflow_message(&m, *pc, *msp)));
            EXIT_STACK
        }
        Stop::Breakpoint | Stop::Pause => EXIT_LOCKUP,
    };
    if let Some(mut f) = stats_file {
        let mut json = stats_json(&m, host_seconds, status);
        if sc.measure.profile_top > 0 {
            if let Some(serde_json::Value::Array(rows)) = json.get_mut("profile") {
                rows.truncate(sc.measure.profile_top);
            }
        }
        let text = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
        if let Err(e) = f.write_all(text.as_bytes()) {
            fail(format_args!("cannot write {}: {e}", f.path().display()));
        }
        f.commit().unwrap_or_else(|e| fail(e));
    }
    status
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        cairn_sim::out_file::remove_pending();
        // The firmware's console is not flushed here: it belongs to the machine, which the
        // hook cannot reach without a global. Its sink writes every complete line as it
        // ends, so an internal error loses at most the unfinished last line, which the
        // report below supersedes anyway.
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let loc = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        diagnostic(format_args!("cairn-sim: internal error{loc}: {msg} (please report)"));
        std::process::exit(EXIT_INTERNAL);
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => match e.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                let mut out = std::io::stdout().lock();
                let written = write!(out, "{e}").and_then(|_| out.flush());
                std::process::exit(if written.is_ok() { 0 } else { EXIT_USAGE });
            }
            clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                fail("missing command: use 'cairn-sim run FIRMWARE.elf' (see cairn-sim --help)")
            }
            _ => {
                // Keep clap's message (which may continue on indented lines) on one line.
                let text = e.to_string();
                let msg: Vec<&str> = text
                    .lines()
                    .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                    .map(|l| l.trim())
                    .collect();
                let msg = msg.join(" ");
                let msg = msg.trim_start_matches("error: ");
                fail(format_args!("{msg} (see cairn-sim --help)"));
            }
        },
    };
    let status = match cli.command {
        Command::Run(args) => run(*args),
        Command::ExecCases { file } => cairn_sim::exec_cases::main(&file),
    };
    std::process::exit(status);
}
