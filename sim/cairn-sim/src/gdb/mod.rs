//! GDB remote protocol server (`cairn-sim run --gdb PORT`), built on `gdbstub`.
//!
//! The core starts halted at the reset vector. One debugger connection is served;
//! when it ends the run's final `Stop` goes back to `main`, which reports it as usual:
//! - the firmware exits through semihosting: `Stop::Exit(code)`;
//! - the debugger detaches (or the connection drops): breakpoints are removed and the
//!   firmware runs on without a debugger (still bounded by the run's limits);
//! - a stop the core cannot run past (limit, lockup, endless sleep) was reported to
//!   the debugger as a signal: that stop is returned;
//! - the debugger kills the program: an error, so `main` exits with status 2.
//!
//! See docs/debugging.md.

pub mod arch;
pub mod device_runner;
pub mod runner;
mod target;

use crate::machine::{Machine, Stop};
use gdbstub::common::Signal;
use gdbstub::conn::Connection;
use gdbstub::stub::run_blocking::{BlockingEventLoop, Event, WaitForStopReasonError};
use gdbstub::stub::{DisconnectReason, GdbStub, SingleThreadStopReason};
use runner::{Runner, Single};
use std::io::{ErrorKind, Read};
use std::marker::PhantomData;
use std::net::{TcpListener, TcpStream};
use target::{SimTarget, StopReason};

/// Serve one GDB connection on 127.0.0.1:`port` (0 = any free port; the message on
/// stderr names the one chosen) and return how the run ended.
pub fn serve(m: &mut Machine, port: u16, max_instructions: Option<u64>) -> Result<Stop, String> {
    serve_runner(Single::new(m, max_instructions), port)
}

/// `serve` for any way of running the debugged machine (a processor of a device: the
/// runner advances the whole device).
pub fn serve_runner<R: Runner>(mut runner: R, port: u16) -> Result<Stop, String> {
    let listener =
        TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    crate::console::diagnostic(format_args!("cairn-sim: waiting for gdb on 127.0.0.1:{port}"));
    let (stream, _) = listener.accept().map_err(|e| format!("accepting the debugger connection: {e}"))?;
    drop(listener);

    runner.debugger = true;
    let mut t = SimTarget::new(runner);
    let result = GdbStub::new(stream).run_blocking::<EventLoop<R>>(&mut t);
    if t.killed {
        t.release();
        return Err("the debugger killed the program".into());
    }
    let stop = match result {
        Ok(
            DisconnectReason::TargetExited(_) | DisconnectReason::TargetTerminated(_) | DisconnectReason::Disconnect,
        ) => t.detach(),
        Ok(DisconnectReason::Kill) => {
            t.release();
            return Err("the debugger killed the program".into());
        }
        Err(e) if e.is_connection_error() => {
            if t.exit_code.is_none() && t.terminal.is_none() {
                crate::console::diagnostic(format_args!(
                    "cairn-sim: lost the debugger connection ({e}); running on without it"
                ));
            }
            t.detach()
        }
        Err(e) => {
            t.release();
            return Err(format!("debugger session failed: {e}"));
        }
    };
    Ok(stop)
}

struct EventLoop<R>(PhantomData<R>);

impl<R: Runner> BlockingEventLoop for EventLoop<R> {
    type Target = SimTarget<R>;
    type Connection = TcpStream;
    type StopReason = StopReason;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut SimTarget<R>,
        conn: &mut TcpStream,
    ) -> Result<Event<StopReason>, WaitForStopReasonError<String, <TcpStream as Connection>::Error>> {
        loop {
            if let Some(reason) = target.advance() {
                return Ok(Event::TargetStopped(reason));
            }
            if let Some(byte) = poll_byte(conn).map_err(WaitForStopReasonError::Connection)? {
                return Ok(Event::IncomingData(byte));
            }
        }
    }

    fn on_interrupt(_target: &mut SimTarget<R>) -> Result<Option<StopReason>, String> {
        Ok(Some(SingleThreadStopReason::Signal(Signal::SIGINT)))
    }
}

/// A byte from the debugger if one is waiting (typically Ctrl-C, 0x03), without blocking.
fn poll_byte(conn: &mut TcpStream) -> std::io::Result<Option<u8>> {
    conn.set_nonblocking(true)?;
    let mut buf = [0u8];
    let res = conn.read(&mut buf);
    conn.set_nonblocking(false)?;
    match res {
        Ok(0) => Err(std::io::Error::new(ErrorKind::UnexpectedEof, "the debugger closed the connection")),
        Ok(_) => Ok(Some(buf[0])),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => Ok(None),
        Err(e) => Err(e),
    }
}
