//! ARM semihosting through `BKPT 0xAB` (r0 = operation, r1 = parameter, result in r0),
//! matching what `qemu-system-arm -semihosting` does so one ELF behaves the same on both.
//! Time calls answer in simulated time, never host time, so runs stay deterministic.

use crate::machine::{Machine, Stop, Stream};

const SYS_OPEN: u32 = 0x01;
const SYS_CLOSE: u32 = 0x02;
const SYS_WRITEC: u32 = 0x03;
const SYS_WRITE0: u32 = 0x04;
const SYS_WRITE: u32 = 0x05;
const SYS_READ: u32 = 0x06;
const SYS_READC: u32 = 0x07;
const SYS_ISERROR: u32 = 0x08;
const SYS_ISTTY: u32 = 0x09;
const SYS_SEEK: u32 = 0x0A;
const SYS_FLEN: u32 = 0x0C;
const SYS_CLOCK: u32 = 0x10;
const SYS_TIME: u32 = 0x11;
const SYS_ERRNO: u32 = 0x13;
const SYS_GET_CMDLINE: u32 = 0x15;
const SYS_HEAPINFO: u32 = 0x16;
const SYS_EXIT: u32 = 0x18;
const SYS_EXIT_EXTENDED: u32 = 0x20;
const SYS_ELAPSED: u32 = 0x30;
const SYS_TICKFREQ: u32 = 0x31;

const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x20026;
/// Longest string SYS_WRITE0 follows before giving up (guards against runaway pointers).
const MAX_STRING: u32 = 1 << 20;

impl Machine {
    fn arg(&self, block: u32, i: u32) -> Option<u32> {
        self.peek32(block.wrapping_add(4 * i))
    }

    /// Simulated time in seconds as an integer division of cycles.
    fn sim_time(&self, per_second: u64) -> u64 {
        (self.cycles as u128 * per_second as u128 / self.config.clock_hz as u128) as u64
    }

    pub fn semihost(&mut self) {
        let op = self.r[0];
        let param = self.r[1];
        let result: u32 = match op {
            SYS_WRITEC => {
                if let Some(b) = self.peek8(param) {
                    self.emit(Stream::Stdout, b);
                }
                self.r[0]
            }
            SYS_WRITE0 => {
                let mut a = param;
                while let Some(b) = self.peek8(a) {
                    if b == 0 || a.wrapping_sub(param) >= MAX_STRING {
                        break;
                    }
                    self.emit(Stream::Stdout, b);
                    a = a.wrapping_add(1);
                }
                self.r[0]
            }
            SYS_OPEN => self.sys_open(param),
            SYS_CLOSE => 0,
            SYS_WRITE => self.sys_write(param),
            // Nothing to read: report end of input (all bytes unread).
            SYS_READ => self.arg(param, 2).unwrap_or(u32::MAX),
            SYS_READC => u32::MAX,
            SYS_ISERROR => ((self.arg(param, 0).unwrap_or(0) as i32) < 0) as u32,
            SYS_ISTTY => 1,
            SYS_SEEK => 0,
            SYS_FLEN => 0,
            SYS_CLOCK => self.sim_time(100) as u32,
            SYS_TIME => self.sim_time(1) as u32,
            SYS_ERRNO => 0,
            SYS_GET_CMDLINE => {
                // Empty command line: write a NUL and a length of zero.
                if let Some(buf) = self.arg(param, 0) {
                    let _ = self.load_data(buf, &[0]);
                    let _ = self.load_data(param.wrapping_add(4), &0u32.to_le_bytes());
                    0
                } else {
                    u32::MAX
                }
            }
            SYS_HEAPINFO => {
                // Zeros tell the C library to use its linker-script defaults.
                if let Some(block) = self.arg(param, 0) {
                    let _ = self.load_data(block, &[0u8; 16]);
                }
                0
            }
            SYS_EXIT => {
                let code = if param == ADP_STOPPED_APPLICATION_EXIT { 0 } else { 1 };
                self.finish(code);
                0
            }
            SYS_EXIT_EXTENDED => {
                let reason = self.arg(param, 0).unwrap_or(0);
                let sub = self.arg(param, 1).unwrap_or(1);
                let code = if reason == ADP_STOPPED_APPLICATION_EXIT { sub as i32 } else { 1 };
                self.finish(code);
                0
            }
            SYS_ELAPSED => {
                let ticks = self.cycles;
                match self.load_data(param, &ticks.to_le_bytes()) {
                    Ok(()) => 0,
                    Err(_) => u32::MAX,
                }
            }
            SYS_TICKFREQ => self.config.clock_hz.min(u32::MAX as u64) as u32,
            _ => {
                self.warn_once(format!("unsupported semihosting operation 0x{op:x} at pc 0x{:08x}", self.pc));
                u32::MAX
            }
        };
        self.r[0] = result;
    }

    fn finish(&mut self, code: i32) {
        self.stop = Some(Stop::Exit(code));
        self.next_event = 0;
    }

    /// Writes into simulated RAM on behalf of the host: SRAM only (never flash or devices),
    /// through `load_bytes` so instructions decoded from those bytes are forgotten.
    fn load_data(&mut self, addr: u32, bytes: &[u8]) -> Result<(), u32> {
        if self.sram_offset(addr, bytes.len() as u32).is_none() {
            return Err(addr);
        }
        self.load_bytes(addr, bytes)
    }

    fn sys_open(&mut self, param: u32) -> u32 {
        let (Some(name_ptr), Some(mode), Some(len)) = (self.arg(param, 0), self.arg(param, 1), self.arg(param, 2))
        else {
            return u32::MAX;
        };
        let name: Vec<u8> = (0..len.min(256)).filter_map(|i| self.peek8(name_ptr.wrapping_add(i))).collect();
        if name != b":tt" {
            return u32::MAX; // no host file system access
        }
        // Modes 0-3 open stdin, 4-7 stdout, 8-11 stderr (ARM semihosting spec).
        let stream = if mode >= 8 { Stream::Stderr } else { Stream::Stdout };
        self.semihost_handles.push(stream);
        self.semihost_handles.len() as u32
    }

    fn sys_write(&mut self, param: u32) -> u32 {
        let (Some(handle), Some(buf), Some(len)) = (self.arg(param, 0), self.arg(param, 1), self.arg(param, 2)) else {
            return u32::MAX;
        };
        let stream = match handle {
            // Pre-opened standard handles as some C libraries assume.
            1 if self.semihost_handles.is_empty() => Stream::Stdout,
            2 if self.semihost_handles.len() < 2 => Stream::Stderr,
            h if h >= 1 && (h as usize) <= self.semihost_handles.len() => self.semihost_handles[h as usize - 1],
            // Unknown handle: nothing written (EBADF on a real host).
            _ => return len,
        };
        let mut written = 0;
        for i in 0..len {
            match self.peek8(buf.wrapping_add(i)) {
                Some(b) => {
                    self.emit(stream, b);
                    written += 1;
                }
                None => break,
            }
        }
        len - written
    }

    pub fn warn_once(&mut self, msg: String) {
        if self.warned.insert(msg.clone()) {
            crate::console::diagnostic(format_args!("cairn-sim: warning: {msg}"));
        }
    }
}
