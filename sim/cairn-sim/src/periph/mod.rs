//! Memory-mapped devices of the mps2-an385 board.
pub mod cmsdk_timer;
pub mod cmsdk_uart;
pub mod countdown;
pub mod systick;
