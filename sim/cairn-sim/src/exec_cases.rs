//! `cairn-sim exec-cases`: runs short instruction sequences one instruction at a time and
//! reports the architectural state after each, for differential testing against another
//! emulator (see python/cairn/difftest). One JSON object per input line, in order.

use crate::config::BoardConfig;
use crate::cpu::op::Kind;
use crate::machine::{Machine, Stop};
use serde::Deserialize;
use std::io::{BufRead, Read, Write};

#[derive(Deserialize)]
struct Case {
    code_addr: u32,
    code: String,
    mem_addr: u32,
    mem: String,
    regs: Vec<u32>,
    apsr: u32,
    steps: u32,
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err("hex string of odd length".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("bad hex digit near '{}'", &s[i..i + 2])))
        .collect()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Runner {
    m: Machine,
    /// Windows written by the previous case, cleared before the next.
    dirty: Vec<(u32, usize)>,
}

impl Runner {
    fn window(&self, addr: u32, len: usize) -> Vec<u8> {
        (0..len as u32).map(|i| self.m.peek8(addr.wrapping_add(i)).unwrap_or(0)).collect()
    }

    fn run_case(&mut self, case: &Case) -> Result<String, String> {
        let code = unhex(&case.code)?;
        let mem = unhex(&case.mem)?;
        if case.regs.len() != 15 {
            return Err("regs must hold 15 values (r0..r12, sp, lr)".into());
        }
        for (addr, len) in std::mem::take(&mut self.dirty) {
            let _ = self.m.load_bytes(addr, &vec![0u8; len]);
        }
        self.m.load_bytes(case.code_addr, &code).map_err(|a| format!("code outside memory at 0x{a:08x}"))?;
        self.dirty.push((case.code_addr, code.len()));
        self.m.load_bytes(case.mem_addr, &mem).map_err(|a| format!("mem outside memory at 0x{a:08x}"))?;
        self.dirty.push((case.mem_addr, mem.len()));
        let m = &mut self.m;
        m.reset();
        m.r[..13].copy_from_slice(&case.regs[..13]);
        m.r[13] = case.regs[13] & !3;
        m.r[14] = case.regs[14];
        m.set_apsr(case.apsr);
        m.pc = case.code_addr & !1;
        m.exc.pending_fault = None;
        m.thumb = true;
        m.last_fault = None;
        let mut states = Vec::with_capacity(case.steps as usize);
        let mut fault: Option<String> = None;
        for _ in 0..case.steps {
            let pc = self.m.pc;
            if let Some(op) = self.m.decode_at(pc) {
                if matches!(op.kind(), Kind::Svc | Kind::Bkpt | Kind::Wfi | Kind::Wfe) {
                    fault = Some(format!("system instruction {:?}", op.kind()));
                    break;
                }
            }
            let stop = self.m.run(1);
            if let Some((kind, _)) = self.m.last_fault.take() {
                fault = Some(kind.to_string());
                break;
            }
            if let Stop::Lockup { kind, .. } = stop {
                fault = Some(format!("lockup: {kind}"));
                break;
            }
            if self.m.ipsr != 0 {
                fault = Some(format!("exception {}", self.m.ipsr));
                break;
            }
            let m = &self.m;
            let mut s: Vec<u64> = m.r[..15].iter().map(|v| *v as u64).collect();
            s.push(m.pc as u64);
            s.push(m.apsr() as u64);
            s.push(fnv1a(&self.window(case.mem_addr, mem.len())));
            states.push(s);
        }
        Ok(serde_json::json!({ "states": states, "fault": fault }).to_string())
    }
}

/// Longest case line read: a case is a few hundred bytes; a stream without newlines
/// (`/dev/zero`) must not be read into memory whole.
const MAX_LINE: u64 = 1 << 20;

/// The next line (without its newline), None at the end, an error past `MAX_LINE` bytes or
/// when it is not UTF-8.
fn read_bounded_line(r: &mut impl std::io::BufRead) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    let n = r.by_ref().take(MAX_LINE + 1).read_until(b'\n', &mut buf).map_err(|e| format!("read error: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if n as u64 > MAX_LINE {
        return Err(format!("line longer than {MAX_LINE} bytes"));
    }
    String::from_utf8(buf).map(Some).map_err(|_| "line is not UTF-8".into())
}

/// Run every case in `path`; returns the process exit status.
pub fn main(path: &str) -> i32 {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            crate::console::diagnostic(format_args!("cairn-sim: cannot open {path}: {e}"));
            return 2;
        }
    };
    let mut runner = Runner { m: Machine::new(BoardConfig::mps2_an385()), dirty: Vec::new() };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut reader = std::io::BufReader::new(file);
    for i in 0.. {
        let line = match read_bounded_line(&mut reader) {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                crate::console::diagnostic(format_args!("cairn-sim: {path}:{}: {e}", i + 1));
                return 2;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let result = serde_json::from_str::<Case>(&line).map_err(|e| e.to_string()).and_then(|c| runner.run_case(&c));
        match result {
            Ok(s) => {
                if writeln!(out, "{s}").is_err() {
                    return 2;
                }
            }
            Err(e) => {
                crate::console::diagnostic(format_args!("cairn-sim: {path}:{}: {e}", i + 1));
                return 2;
            }
        }
    }
    if out.flush().is_err() {
        return 2;
    }
    0
}
