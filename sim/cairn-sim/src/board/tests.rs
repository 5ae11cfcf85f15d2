use super::*;
use crate::io::TRACE_PORT;
use crate::periph::cairn_io::{ADC_BASE, ADC_IRQ, GPIO_BASE, INPUT_IRQ, PORTS_BASE, STIM_BASE, STIM_IRQ_BASE};

fn shipped() -> BoardSpec {
    BoardSpec::embedded("mps2-an385").unwrap()
}

#[test]
fn the_shipped_board_is_what_the_address_decoder_implements() {
    let b = shipped();
    assert_eq!((b.core.as_str(), b.clock_hz, b.systick_ref_hz), ("cortex-m0plus", 25_000_000, 1_000_000));
    assert_eq!(b.flash, Region { base: 0, size: 4 << 20 });
    assert_eq!(b.sram, Region { base: 0x2000_0000, size: 4 << 20 });
    let at = |name: &str| {
        let d = b.device(name).unwrap_or_else(|| panic!("no device {name}"));
        (d.kind, d.base, d.irq.clone())
    };
    assert_eq!(at("timer0"), (DeviceKind::CmsdkTimer, 0x4000_0000, vec![8]));
    assert_eq!(at("timer1"), (DeviceKind::CmsdkTimer, 0x4000_1000, vec![9]));
    assert_eq!(at("uart0"), (DeviceKind::CmsdkUart, 0x4000_4000, vec![0, 1]));
    assert_eq!(at("uart1"), (DeviceKind::CmsdkUart, 0x4000_5000, vec![2, 3]));
    assert_eq!(at("uart2"), (DeviceKind::CmsdkUart, 0x4000_6000, vec![4, 5]));
    assert_eq!(at("trace"), (DeviceKind::CairnTracePort, TRACE_PORT, vec![]));
    assert_eq!(at("gpio"), (DeviceKind::CairnGpio, GPIO_BASE, vec![]));
    assert_eq!(at("ports"), (DeviceKind::CairnIoPorts, PORTS_BASE, vec![INPUT_IRQ]));
    assert_eq!(at("adc"), (DeviceKind::CairnAdc, ADC_BASE, vec![ADC_IRQ]));
    let stim: Vec<u32> = (0..crate::periph::stim_ctrl::LINES as u32).map(|k| STIM_IRQ_BASE + k).collect();
    assert_eq!(at("stimuli"), (DeviceKind::CairnStimulus, STIM_BASE, stim));
    assert_eq!(b.devices.len(), 10, "a device the decoder does not have");
}

#[test]
fn the_default_board_config_comes_from_the_board_file() {
    let b = shipped();
    let c = crate::config::BoardConfig::mps2_an385();
    assert_eq!((c.name.as_str(), c.clock_hz, c.systick_ref_hz), (b.name.as_str(), b.clock_hz, b.systick_ref_hz));
    assert_eq!(
        (c.flash_base, c.flash_size, c.sram_base, c.sram_size),
        (b.flash.base, b.flash.size, b.sram.base, b.sram.size)
    );
}

const MINIMAL: &str = r#"
format = 1
name = "t"
core = "cortex-m0plus"
clock = "8MHz"
systick_ref = 1000000
[memory.flash]
base = 0
size = "64K"
[memory.sram]
base = 0x20000000
size = 16384
"#;

fn with(extra: &str) -> Result<BoardSpec, String> {
    BoardSpec::parse(&format!("{MINIMAL}{extra}"))
}

fn dev(name: &str, kind: &str, base: u32, irq: &str) -> String {
    format!("[[device]]\nname = \"{name}\"\nkind = \"{kind}\"\nbase = {base}\nirq = {irq}\n")
}

#[test]
fn a_minimal_board_parses_with_numbers_or_strings() {
    let b = with("").unwrap();
    assert_eq!((b.clock_hz, b.systick_ref_hz, b.flash.size, b.sram.size), (8_000_000, 1_000_000, 65536, 16384));
    assert!(b.devices.is_empty());
}

#[test]
fn bad_boards_are_refused_with_one_line_naming_the_key() {
    let timer = |name: &str, base: u32, irq: &str| dev(name, "cmsdk-timer", base, irq);
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{}{}", timer("a", 0x4000_0000, "[8]"), timer("a", 0x4000_1000, "[9]")),
            "device 'a': the name is used twice",
        ),
        (
            format!("{}{}", timer("a", 0x4000_0000, "[8]"), timer("b", 0x4000_1000, "[8]")),
            "irq 8 is already driven by device 'a'",
        ),
        (timer("a", 0x4000_0000, "[32]"), "device 'a': irq 32 is out of range 0..=31"),
        (timer("a", 0x4000_0000, "[8, 9]"), "a cmsdk-timer drives 1 interrupt line(s), irq lists 2"),
        (timer("a", 0x4000_0800, "[8]"), "device 'a': base 0x40000800 is not aligned"),
        (timer("a", 0x2000_2000, "[8]"), "device 'a': window 0x20002000..0x20002fff overlaps memory.sram"),
        (timer("a", 0xE000_E000, "[8]"), "overlaps the core's system space"),
        (
            format!("{}{}", timer("a", 0x4000_0000, "[8]"), timer("b", 0x4000_0000, "[9]")),
            "device 'b': window 0x40000000..0x40000fff overlaps device 'a'",
        ),
        (dev("a", "pl011", 0x4000_0000, "[1]"), "device 'a': unknown kind 'pl011' (known: cmsdk-timer"),
        ("colour = 1\n".into(), "unknown field `colour`"),
    ];
    for (extra, needle) in cases {
        let e = with(&extra).unwrap_err();
        assert!(e.contains(needle), "{needle}\n  got: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    for (from, to, needle) in [
        ("format = 1", "format = 2", "format: unsupported board format 2"),
        ("core = \"cortex-m0plus\"", "core = \"cortex-m4\"", "core: unknown core 'cortex-m4'"),
        ("clock = \"8MHz\"", "clock = 0", "clock: invalid frequency '0'"),
        ("size = \"64K\"", "size = 4294967296", "memory.flash.size: invalid size '4294967296'"),
    ] {
        let e = BoardSpec::parse(&MINIMAL.replace(from, to)).unwrap_err();
        assert!(e.contains(needle), "{needle}\n  got: {e}");
    }
    assert_eq!(BoardSpec::embedded("nope").unwrap_err(), "unknown board 'nope' (known: mps2-an385)");
}
