//! A scenario's `[[uart_input]]` wired to the board's UARTs: each named UART gets its
//! receive schedule in cycles, and the machine's event loop delivers the bytes (through
//! `devices.rs`) only on a board where some UART was fed, so a run without UART input
//! pays nothing for it.

use crate::board::DeviceKind;
use crate::machine::Machine;
use crate::periph::cmsdk_uart::RxFeed;
use crate::scenario_io::IoScenario;
use crate::time::ps_to_cycle;

impl Machine {
    /// The board's UART names, in the order of `Machine::uarts`.
    fn uart_names(&self) -> Vec<String> {
        self.config.board.devices.iter().filter(|d| d.kind == DeviceKind::CmsdkUart).map(|d| d.name.clone()).collect()
    }

    /// A scenario's UART inputs must name UARTs of this board: the error is one line naming the key.
    pub fn check_uart_inputs(&self, sc: &IoScenario) -> Result<(), String> {
        let names = self.uart_names();
        for (i, u) in sc.uart_inputs.iter().enumerate() {
            if !names.contains(&u.uart) {
                let known = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(format!(
                    "uart_input[{i}].uart: board {} has no UART '{}' (its UARTs: {known})",
                    self.config.board.name, u.uart
                ));
            }
        }
        Ok(())
    }

    /// Give each UART the scenario's bytes for it (none: it has no receive input).
    pub(crate) fn feed_uarts(&mut self, sc: &IoScenario) {
        let clock = self.config.clock_hz;
        let mut fed = false;
        for (i, name) in self.uart_names().iter().enumerate() {
            let arrivals: Vec<(u64, u8)> =
                sc.uart_arrivals(name).into_iter().map(|(ps, b)| (ps_to_cycle(ps, clock), b)).collect();
            fed |= !arrivals.is_empty();
            self.uarts[i].feed(RxFeed { index: i as u8, arrivals, next: 0 });
        }
        self.devices.uart_rx = fed;
    }
}
