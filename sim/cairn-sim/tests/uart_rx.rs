//! UART receive: a scenario's `[[uart_input]]` bytes arrive on UART0's receive line at
//! their exact cycles (one byte per 10 bit times), and hand-assembled firmware echoes each
//! from the RX interrupt; the receive buffer's overrun; a UART the board lacks.

mod common;
use cairn_sim::periph::io_event::IoKind;
use cairn_sim::scenario_io::{parse_io_scenario, IoScenario};
use cairn_sim::{Machine, Stop};
use common::*;
use std::path::Path;

const UART0: u32 = 0x4000_4000;
const UART0_RX_EXC: u32 = 16;
/// CTRL: TX enable, RX enable, RX interrupt enable.
const TX_RX_RXINT: u32 = 0b1011;

fn scenario(text: &str) -> IoScenario {
    parse_io_scenario(&text.parse::<toml::Table>().unwrap(), Path::new(".")).unwrap()
}

/// Main: `wfi; b main`; r4 holds UART0's base. The RX handler reads DATA, writes it back
/// to DATA (the console) and clears INTSTATUS.RX.
fn echo_machine(ctrl: u32) -> Machine {
    let mut m = with_config(cfg());
    let mut a = Asm::new(CODE);
    a.i(wfi());
    let here = a.here();
    a.i(b_to(here, CODE));
    a.load(&mut m);
    let h = handler(UART0_RX_EXC);
    load(&mut m, h, &[ldr_imm(1, 4, 0), str_imm(1, 4, 0), movs(2, 2), str_imm(2, 4, 0xC), bx(14)]);
    m.reset();
    m.r[4] = UART0;
    m.write32(UART0 + 8, ctrl).unwrap();
    m.write32(NVIC_ISER, 1).unwrap();
    m
}

fn run_until(m: &mut Machine, cycles: u64) {
    m.cycle_limit = cycles;
    assert_eq!(m.run(u64::MAX), Stop::Limit);
}

fn console(m: &mut Machine) -> String {
    m.console.memory().unwrap().text()
}

fn rx_events(m: &Machine) -> Vec<(u64, u8, u32)> {
    m.io.events.iter().filter(|e| e.kind == IoKind::UartRx).map(|e| (e.cycle, e.index, e.value)).collect()
}

#[test]
fn bytes_arrive_one_per_frame_and_are_echoed() {
    let mut m = echo_machine(TX_RX_RXINT);
    // 25 MHz and 1 Mbaud: a frame of 10 bits is 250 cycles; 100 us is cycle 2500.
    let sc = scenario("[[uart_input]]\nat = \"100us\"\nbaud = 1000000\ntext = \"hi!\"\n");
    m.check_uart_inputs(&sc).unwrap();
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 10_000);
    assert_eq!(rx_events(&m), vec![(2750, 0, b'h' as u32), (3000, 0, b'i' as u32), (3250, 0, b'!' as u32)]);
    assert_eq!(console(&mut m), "hi!");
    assert_eq!(m.read32(UART0 + 4).unwrap(), 0, "every byte was read: no RXFULL, no overrun");
    let mut csv = Vec::new();
    cairn_sim::io_system::write_io_log(&m, &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.contains("\n2750,1.1e-4,uart_rx,uart0,104\n"), "{csv}");
}

#[test]
fn inputs_on_one_line_wait_for_each_other() {
    let mut m = echo_machine(TX_RX_RXINT);
    // The second input starts while the first is still sending: it follows it.
    let sc = scenario(
        "[[uart_input]]\nbaud = 1000000\nbytes = \"41 42\"\n[[uart_input]]\nat = \"5us\"\nbaud = 500000\ntext = \"C\"\n",
    );
    m.install_io_scenario(sc, 0);
    run_until(&mut m, 5_000);
    assert_eq!(rx_events(&m), vec![(250, 0, 0x41), (500, 0, 0x42), (1000, 0, 0x43)]);
    assert_eq!(console(&mut m), "ABC");
}

#[test]
fn unread_bytes_overrun_the_buffer() {
    // No RX interrupt: nobody reads DATA, the second byte overruns the first.
    let mut m = echo_machine(0b0010_0011);
    m.install_io_scenario(scenario("[[uart_input]]\nbaud = 1000000\ntext = \"xy\"\n"), 0);
    run_until(&mut m, 1_000);
    assert_eq!(m.read32(UART0 + 4).unwrap(), 0b1010, "RXFULL and RX overrun");
    assert_eq!(m.read32(UART0 + 0xC).unwrap(), 0b1000, "the RX overrun interrupt");
    assert_eq!(m.read32(UART0).unwrap(), b'y' as u32);
    assert_eq!(console(&mut m), "");
}

#[test]
fn a_receiver_left_disabled_loses_the_bytes() {
    let mut m = echo_machine(0b0001);
    m.install_io_scenario(scenario("[[uart_input]]\nbaud = 1000000\ntext = \"z\"\n"), 0);
    run_until(&mut m, 1_000);
    assert_eq!(rx_events(&m).len(), 1, "the byte is on the line (and in the io-log)");
    assert_eq!(m.read32(UART0 + 4).unwrap(), 0);
    assert_eq!(console(&mut m), "");
}

#[test]
fn the_uart_must_be_on_the_board() {
    let m = with_config(cfg());
    let e = m.check_uart_inputs(&scenario("[[uart_input]]\nuart = \"uart9\"\ntext = \"z\"\n")).unwrap_err();
    assert_eq!(e, "uart_input[0].uart: board mps2-an385 has no UART 'uart9' (its UARTs: uart0, uart1, uart2)");
}

#[test]
fn without_input_the_event_loop_does_not_look_at_the_uarts() {
    let mut m = echo_machine(TX_RX_RXINT);
    m.install_io_scenario(scenario("[[stimulus]]\nname = \"s\"\nkind = \"periodic\"\nperiod = \"1ms\"\nline = 0\n"), 0);
    assert!(!m.devices.uart_rx);
    m.install_io_scenario(scenario("[[uart_input]]\nuart = \"uart2\"\ntext = \"z\"\n"), 0);
    assert!(m.devices.uart_rx);
}
