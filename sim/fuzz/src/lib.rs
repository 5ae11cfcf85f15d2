//! Fuzzing harnesses for cairn-sim, shared by the cargo-fuzz targets in `fuzz_targets/`
//! and by the stable regression test `sim/cairn-sim/tests/fuzz_regressions.rs` (which
//! includes this file with `#[path]`), so an input that once crashed a target is replayed
//! through exactly the same code in `make test`.
//!
//! Neither harness may panic on any input: faults, lockups, sleeping forever, semihosting
//! exits and limits are all normal outcomes.

use cairn_sim::config::BoardConfig;
use cairn_sim::machine::{Machine, Stop};

/// Instructions each harness runs at most.
pub const MAX_INSTRUCTIONS: u64 = 10_000;
/// Simulated cycles each harness runs at most (keeps sleeping firmware short).
pub const CYCLE_LIMIT: u64 = 200_000;
/// Instructions per `run` call; console output is dropped between calls so firmware that
/// prints in a loop cannot grow memory without bound.
const CHUNK: u64 = 1_000;

/// Run `m` for up to `MAX_INSTRUCTIONS` instructions or `CYCLE_LIMIT` cycles.
fn run_bounded(m: &mut Machine) -> Stop {
    m.cycle_limit = m.cycles.saturating_add(CYCLE_LIMIT);
    let mut stop = Stop::Limit;
    while m.instructions < MAX_INSTRUCTIONS {
        let budget = (MAX_INSTRUCTIONS - m.instructions).min(CHUNK);
        stop = m.run(budget);
        if let Some(c) = m.console.memory() {
            c.bytes.clear();
        }
        if stop != Stop::Limit || m.cycles >= m.cycle_limit {
            break;
        }
    }
    stop
}

/// `elf_load`: arbitrary bytes as a firmware file for the default board; if it loads,
/// reset and run it briefly. Returns why the run stopped, or None if the file was refused.
pub fn elf_load(data: &[u8]) -> Option<Stop> {
    let mut m = Machine::new(BoardConfig::mps2_an385());
    cairn_sim::elf::load_elf(&mut m, data).ok()?;
    m.reset();
    Some(run_bounded(&mut m))
}

/// Bytes of register seeds at the start of a `decode_exec` input (r0..r15, little-endian).
pub const SEED_BYTES: usize = 64;
/// Where the code of a `decode_exec` input is placed in flash (and mirrored in SRAM).
pub const CODE_ADDR: u32 = 0x100;
const FLASH_SIZE: u32 = 64 << 10;
const SRAM_BASE: u32 = 0x2000_0000;
const SRAM_SIZE: u32 = 64 << 10;
/// HardFault (and NMI) handler: `b .`, an infinite loop.
const HANG_HANDLER: u32 = 0xC0;
/// Every other exception handler: `bx lr`, an immediate exception return.
const RETURN_HANDLER: u32 = 0xC4;
const VECTORS: u32 = 48; // 16 system exceptions + 32 IRQs

/// The board `decode_exec` runs on: the default board with 64 KiB of flash and SRAM.
pub fn small_board(flags: u32) -> BoardConfig {
    let mut cfg = BoardConfig::mps2_an385();
    cfg.flash_size = FLASH_SIZE;
    cfg.sram_size = SRAM_SIZE;
    cfg.flash_wait_states = (flags >> 4) & 3;
    cfg.mul_cycles = if flags & (1 << 6) != 0 { 32 } else { 1 };
    cfg
}

/// `decode_exec`: the first 64 bytes seed r0..r15 (the r15 word is a set of flags: board
/// options, stack placement, APSR flags, PRIMASK), the rest is Thumb code placed at 0x100 in
/// flash and mirrored at the start of SRAM. The vector table sends HardFault and NMI to an
/// infinite loop and everything else to `bx lr`. Returns why the run stopped.
pub fn decode_exec(data: &[u8]) -> Stop {
    let mut seeds = [0u32; 16];
    for (i, s) in seeds.iter_mut().enumerate() {
        let mut w = [0u8; 4];
        for (j, b) in w.iter_mut().enumerate() {
            *b = data.get(i * 4 + j).copied().unwrap_or(0);
        }
        *s = u32::from_le_bytes(w);
    }
    let code = data.get(SEED_BYTES..).unwrap_or(&[]);
    let flags = seeds[15];

    let mut m = Machine::new(small_board(flags));
    let mut image = vec![0u8; CODE_ADDR as usize];
    let sp_top = SRAM_BASE + SRAM_SIZE;
    image[0..4].copy_from_slice(&sp_top.to_le_bytes());
    image[4..8].copy_from_slice(&(CODE_ADDR | 1).to_le_bytes());
    for n in 2..VECTORS {
        let handler = if n == 2 || n == 3 { HANG_HANDLER } else { RETURN_HANDLER };
        let off = 4 * n as usize;
        image[off..off + 4].copy_from_slice(&(handler | 1).to_le_bytes());
    }
    image[HANG_HANDLER as usize..HANG_HANDLER as usize + 2].copy_from_slice(&0xE7FEu16.to_le_bytes());
    image[RETURN_HANDLER as usize..RETURN_HANDLER as usize + 2].copy_from_slice(&0x4770u16.to_le_bytes());
    let room = (FLASH_SIZE - CODE_ADDR) as usize;
    let code = &code[..code.len().min(room)];
    image.extend_from_slice(code);
    let sram_code = &code[..code.len().min(SRAM_SIZE as usize / 2)];
    m.load_bytes(0, &image).expect("image fits in flash");
    m.load_bytes(SRAM_BASE, sram_code).expect("code fits in SRAM");

    m.reset();
    m.r[..13].copy_from_slice(&seeds[..13]);
    m.r[14] = seeds[14];
    m.r[13] = if flags & 1 != 0 {
        seeds[13] & !3 // anywhere, even outside memory
    } else {
        (SRAM_BASE + SRAM_SIZE / 2 + seeds[13] % (SRAM_SIZE / 2)) & !3
    };
    m.set_apsr(flags & 0xF000_0000);
    m.primask = flags & (1 << 1) != 0;
    run_bounded(&mut m)
}

/// `config_files`: arbitrary bytes as a board file and as a device file (the two TOML
/// formats that place devices and processors). Parsing must refuse cleanly or succeed; a
/// board that parses is checked and decoded into the machine's device table. Returns
/// whether each parsed.
pub fn config_files(data: &[u8]) -> (bool, bool) {
    let text = String::from_utf8_lossy(data);
    let board = match cairn_sim::board::BoardSpec::parse(&text) {
        Ok(b) => {
            let _ = cairn_sim::devices::DeviceTable::new(&b);
            true
        }
        Err(_) => false,
    };
    // No processor's firmware exists under this folder: a device file that gets as far as
    // its processors is refused there, after its other tables were read.
    let device = cairn_sim::device::file::DeviceFile::parse(&text, std::path::Path::new("/nonexistent")).is_ok();
    (board, device)
}
