//! The board file places the devices: a board with a timer, a UART and the stimulus
//! controller at other addresses and interrupt numbers than mps2-an385 decodes and wires
//! them where its file says, and nowhere else.

mod common;
use cairn_sim::board::BoardSpec;
use cairn_sim::machine::FaultKind;
use cairn_sim::BoardConfig;
use common::*;

const TIMER0: u32 = 0x5000_8000;
const TIMER0_IRQ: u32 = 30;
const UART0: u32 = 0x5000_3000;
const STIM: u32 = 0x6000_0000;

fn moved() -> BoardConfig {
    BoardConfig::from_spec(&BoardSpec::parse(include_str!("fixtures/board-moved.toml")).unwrap())
}

/// Sets the timer at r0 going (RELOAD = 99, CTRL = ENABLE | IRQEN), then sleeps until its
/// interrupt; returns the machine in the handler of `irq_n`.
fn timer_program(cfg: BoardConfig, timer: u32, irq_n: u32) -> cairn_sim::Machine {
    let sleep = CODE + 8;
    let code = [movs(1, 99), str_imm(1, 0, 8), movs(2, 9), str_imm(2, 0, 0), wfi(), b_to(sleep + 2, sleep + 2)];
    let mut m = boot_cfg(cfg, &code);
    m.r[0] = timer;
    m.write32(NVIC_ISER, 1 << irq_n).unwrap();
    step_until(&mut m, 10, |m| m.pc == handler(irq(irq_n)));
    assert_eq!(m.ipsr, irq(irq_n));
    m
}

#[test]
fn a_timer_at_another_base_and_irq_interrupts_the_firmware_there() {
    let m = timer_program(moved(), TIMER0, TIMER0_IRQ);
    // CTRL written at cycle 4, the count 99 reaches 0 99 cycles later, entry takes 15.
    assert_eq!(m.cycles, 4 + 99 + 15);
    let shipped = timer_program(cfg(), 0x4000_0000, 8);
    assert_eq!(shipped.cycles, m.cycles, "the same timing as mps2-an385's timer0");
    let mut m = m;
    assert_eq!(m.read32(TIMER0 + 0xC).unwrap(), 1, "INTSTATUS at the new base");
    assert_eq!(m.read32(TIMER0 + 0xFE0).unwrap(), 0x22, "the timer's PID0");
    assert_eq!(m.exc.pending >> 16 & (1 << 8), 0, "mps2-an385's timer0 IRQ stays quiet");
}

#[test]
fn a_uart_at_another_base_is_the_console_and_raises_its_tx_irq_there() {
    let mut m = boot_cfg(moved(), &[wfi()]);
    m.write32(UART0 + 8, 0b101).unwrap(); // TXEN | TXINTEN
    m.write32(UART0, u32::from(b'A')).unwrap();
    assert_eq!(m.console.memory().unwrap().text(), "A");
    m.update_irq_lines();
    assert_eq!((m.exc.pending >> 16) as u32, 1 << 29, "TX is the UART's second line: irq 29");
}

#[test]
fn the_stimulus_controller_drives_the_irq_numbers_of_the_file() {
    let mut m = boot_cfg(moved(), &[wfi()]);
    m.io.dev.stim.fire(2);
    m.update_irq_lines();
    assert_eq!((m.exc.pending >> 16) as u32, 1 << 2);
    assert_eq!(m.read32(STIM).unwrap(), 1 << 2, "STATUS at the new base");
}

#[test]
fn the_stats_name_the_irq_the_file_gives_each_stimulus_line() {
    let io = "[[stimulus]]\nname = \"s\"\nkind = \"periodic\"\nperiod = \"10us\"\ncount = 1\nline = 2\n";
    let table: toml::Table = io.parse().unwrap();
    for (cfg, want) in [(moved(), 2), (cfg(), 18 + 2)] {
        let mut m = boot_cfg(cfg, &[wfi()]);
        m.install_io_scenario(cairn_sim::scenario_io::parse_io_scenario(&table, std::path::Path::new(".")).unwrap(), 0);
        let j = cairn_sim::io_system::io_json(&m);
        assert_eq!(j["stimuli"]["s"]["irq"], want, "{}", m.config.name);
        assert_eq!(j["stimuli"]["s"]["line"], 2);
    }
}

#[test]
fn energy_counts_every_timer_of_the_board() {
    // mps2-an385 with a third timer in the free APB frame at 0x40002000, IRQ 10.
    let text = include_str!("../../boards/mps2-an385.toml").to_owned()
        + "[[device]]\nname = \"timer2\"\nkind = \"cmsdk-timer\"\nbase = 0x40002000\nirq = [10]\n";
    let mut m = boot_cfg(BoardConfig::from_spec(&BoardSpec::parse(&text).unwrap()), &[wfi()]);
    let profile = cairn_sim::energy::profile::Profile::parse(&flat_profile_toml(3.0, 100.0)).unwrap();
    m.enable_energy(&profile, None, &[]).unwrap();
    m.write32(0x4000_2008, 1000).unwrap(); // RELOAD
    m.write32(0x4000_2000, 1).unwrap(); // CTRL.ENABLE
    m.cycles += 500;
    m.write32(0x4000_2000, 0).unwrap();
    assert_eq!(m.energy.as_ref().unwrap().timer_cycles, 500, "the third timer's enabled time");
}

#[test]
fn only_the_files_windows_decode() {
    let mut m = boot_cfg(moved(), &[wfi()]);
    // The bus window without a device reads as zero and ignores writes.
    assert_eq!(m.read32(0x5000_0000), Ok(0));
    assert_eq!(m.write32(0x5000_0000, 1), Ok(()));
    // mps2-an385's device addresses are not on this board.
    for addr in [0x4000_0000, 0x4000_4000, 0x4100_0000, 0x4100_4000, 0x6000_1000] {
        assert_eq!(m.read32(addr), Err(FaultKind::BusError(addr)), "0x{addr:08x}");
    }
}

mod sim_cli;

#[test]
fn the_cli_takes_a_board_file_and_refuses_a_bad_one_in_one_line() {
    use sim_cli::{run, tmp};
    let good = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/board-moved.toml");
    // The board is read before the firmware: a good file gets as far as the missing ELF.
    let (status, _, err) = run(&["run", "--board", good, "nonexistent.elf"]);
    assert_eq!((status, err.lines().count()), (2, 1), "{err}");
    assert!(err.contains("nonexistent.elf"), "{err}");
    let text = include_str!("fixtures/board-moved.toml");
    for (from, to, needle) in [
        (
            "base = 0x5000_8000",
            "base = 0x2000_8000",
            "device 'timer0': window 0x20008000..0x20008fff overlaps memory.sram",
        ),
        ("irq = [30]", "irq = [28]", "device 'timer0': irq 28 is already driven by device 'uart0'"),
        ("kind = \"cmsdk-timer\"", "kind = \"pl031\"", "device 'timer0': unknown kind 'pl031'"),
    ] {
        let p = tmp("board", "bad.toml");
        std::fs::write(&p, text.replace(from, to)).unwrap();
        let (status, _, err) = run(&["run", "--board", p.to_str().unwrap(), "nonexistent.elf"]);
        assert_eq!((status, err.lines().count()), (2, 1), "{err}");
        assert!(err.starts_with(&format!("cairn-sim: {}: {needle}", p.display())), "{err}");
    }
    // A memory size that reaches a device of the board is refused the same way.
    let p = tmp("board", "near.toml");
    std::fs::write(&p, text.replace("base = 0x5000_8000", "base = 0x2010_0000")).unwrap();
    let near = p.to_str().unwrap();
    assert_eq!(run(&["run", "--board", near, "nonexistent.elf"]).2.lines().count(), 1);
    let (status, _, err) = run(&["run", "--board", near, "--sram-size", "4M", "nonexistent.elf"]);
    assert_eq!(
        (status, err.trim_end()),
        (2, "cairn-sim: moved: device 'timer0': window 0x20100000..0x20100fff overlaps memory.sram")
    );
    let (status, _, err) = run(&["run", "--board", "/no/such/board.toml", "x.elf"]);
    assert_eq!(
        (status, err.trim_end()),
        (2, "cairn-sim: cannot read /no/such/board.toml: No such file or directory (os error 2)")
    );
}
