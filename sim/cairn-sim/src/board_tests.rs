//! The shipped board file as the machine decodes it (its own parsing is tested in cairn-board's
//! users; these need the machine's device table and configuration).

use crate::board::*;
use crate::io::TRACE_PORT;
use crate::periph::cairn_io::{ADC_BASE, ADC_IRQ, GPIO_BASE, INPUT_IRQ, PORTS_BASE, STIM_BASE, STIM_IRQ_BASE};

fn shipped() -> BoardSpec {
    BoardSpec::embedded("mps2-an385").unwrap()
}

#[test]
/// The shipped file gives the map firmware and QEMU expect (the addresses in the headers and
/// docs/board-mps2-an385.md).
fn the_shipped_board_gives_the_mps2_an385_map() {
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
    assert_eq!(at("bus"), (DeviceKind::CairnBusCtrl, 0x4100_5000, vec![24, 25, 26]));
    assert_eq!(at("rtc"), (DeviceKind::CairnRtc, 0x4100_6000, vec![27]));
    assert_eq!(b.devices.len(), 12, "a device the decoder does not have");
    let bus = |name: &str| b.buses.iter().find(|x| x.name == name).map(|x| (x.base, x.size));
    assert_eq!(bus("apb"), Some((0x4000_0000, 0x2_0000)));
    assert_eq!(bus("cairn"), Some((0x4100_0000, 0x20_0000)));
    assert_eq!(b.buses.len(), 2);
}

#[test]
fn the_machine_decodes_the_shipped_board_as_its_file_says() {
    use crate::devices::{Decoded, DeviceTable, Slot};
    let mut t = DeviceTable::new(&shipped());
    let mut at = |addr: u32| match t.decode(addr) {
        Decoded::Device(slot, off) => Some((slot, off)),
        Decoded::Empty => None,
        Decoded::Unmapped => panic!("0x{addr:08x} unmapped"),
    };
    assert_eq!(at(0x4000_0004), Some((Slot::Timer(0), 4)));
    assert_eq!(at(0x4000_1ffc), Some((Slot::Timer(1), 0xffc)));
    assert_eq!(at(0x4000_4000), Some((Slot::Uart(0), 0)));
    assert_eq!(at(0x4000_5008), Some((Slot::Uart(1), 8)));
    assert_eq!(at(0x4000_6010), Some((Slot::Uart(2), 0x10)));
    assert_eq!(at(0x4000_2000), None, "APB without a device");
    assert_eq!(at(0x4001_fffc), None);
    assert_eq!(at(TRACE_PORT), Some((Slot::Trace, 0)));
    assert_eq!(at(GPIO_BASE), Some((Slot::Gpio, 0)));
    assert_eq!(at(PORTS_BASE + 0x100), Some((Slot::Ports, 0x100)));
    assert_eq!(at(ADC_BASE), Some((Slot::Adc, 0)));
    assert_eq!(at(STIM_BASE + 4), Some((Slot::Stim, 4)));
    assert_eq!(at(0x4100_5028), Some((Slot::Bus, 0x28)));
    assert_eq!(at(0x4100_6000), Some((Slot::Rtc, 0)));
    assert_eq!(at(0x411f_fffc), None, "the Cairn window without a device");
    for addr in [0x4002_0000, 0x40ff_fffc, 0x4120_0000, 0x3fff_fffc] {
        assert!(matches!(t.decode(addr), Decoded::Unmapped), "0x{addr:08x}");
    }
}

#[test]
fn bad_bus_windows_and_second_cairn_devices_are_refused() {
    let bus =
        |name: &str, base: u32, size: &str| format!("[[bus]]\nname = \"{name}\"\nbase = {base}\nsize = \"{size}\"\n");
    let cases: Vec<(String, &str)> = vec![
        (bus("a", 0x2000_0000, "4K"), "bus 'a': window 0x20000000..0x20000fff overlaps memory.sram"),
        (
            format!("{}{}", bus("a", 0x4000_0000, "8K"), bus("b", 0x4000_1000, "4K")),
            "bus 'b': window 0x40001000..0x40001fff overlaps bus 'a'",
        ),
        (bus("a", 0xE000_0000, "4K"), "bus 'a': window 0xe0000000..0xe0000fff overlaps the core's system space"),
        (bus("a", 0x4000_0000, "1"), "bus 'a': size: invalid size '1'"),
        (
            format!("{}{}", dev("g", "cairn-gpio", 0x4100_1000, "[]"), dev("h", "cairn-gpio", 0x4100_2000, "[]")),
            "device 'h': a board has one cairn-gpio (device 'g' is one)",
        ),
    ];
    for (extra, needle) in cases {
        let e = with(&extra).unwrap_err();
        assert!(e.contains(needle), "{needle}\n  got: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // Devices may sit on a bus window.
    let b =
        with(&format!("{}{}", bus("apb", 0x4000_0000, "64K"), dev("t", "cmsdk-timer", 0x4000_1000, "[8]"))).unwrap();
    assert_eq!(b.buses.len(), 1);
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
