//! cairn-devices: the memory-mapped devices a board places (CMSDK UART and timers, SysTick,
//! Cairn's trace port, GPIO, I/O ports, ADC, stimulus interrupt controller, bus controller
//! and real-time clock): registers, their behaviour, their interrupt lines and, for the
//! Cairn devices, the I/O events they produce. A crate of its own, depending on nothing of
//! the simulator, so that a device cannot reach up into scenarios, drivers, measurements,
//! outputs or the machine: such an import does not compile.
pub mod adc;
pub mod bus_ctrl;
pub mod cairn_io;
pub mod cmsdk_timer;
pub mod cmsdk_uart;
pub mod countdown;
pub mod device;
pub mod gpio;
pub mod io_event;
pub mod io_ports;
pub mod rtc;
pub mod stim_ctrl;
pub mod systick;
pub mod time;
pub mod trace_port;

/// CMSDK peripheral/component ID registers (0xFD0-0xFFC); `part0` is the low byte of the
/// part number (0x21 UART, 0x22 timer).
pub fn cmsdk_id_register(off: u32, part0: u32) -> u32 {
    match off {
        0xFD0 => 0x04,
        0xFE0 => part0,
        0xFE4 => 0xB8,
        0xFE8 => 0x1B,
        0xFF0 => 0x0D,
        0xFF4 => 0xF0,
        0xFF8 => 0x05,
        0xFFC => 0xB1,
        _ => 0,
    }
}
