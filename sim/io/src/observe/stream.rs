//! Streamed I/O outputs: the CLI's `--stats` measurements, `--io-log` and `--vcd` consume
//! the I/O events (and, for the VCD, the power and exception timeline) during the run, so
//! memory does not grow with its length. Devices log events into a small buffer
//! (`IoSystem::events`); at instruction boundaries, or when it is full, the machine drains
//! it up to a watermark: a cycle before which nothing more can be logged (a stimulus is
//! logged at its scheduled cycle, which can precede a store logged before the machine
//! noticed the stimulus). Drained events come to [`IoStream::feed`] in time order, exactly
//! the order of the whole log sorted.

use super::io_log::{IoLogRows, HEADER};
use super::timeline::PowerState;
use super::vcd::VcdBody;
use crate::measure::report::Measure;
use crate::out_file::OutFile;
use crate::periph::io_event::IoEvent;
use crate::scenario_io::IoScenario;
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, Write};
use std::path::Path;

/// Events buffered between drains (16 bytes each).
pub const EVENT_BUFFER: usize = 4096;
/// Power and exception timeline entries buffered between drains, each.
pub const TIMELINE_BUFFER: usize = 4096;

/// The io-log and the VCD are written under a temporary name and put in place when complete
/// (out_file.rs): a run that fails leaves neither.
struct IoLogOut {
    w: BufWriter<OutFile>,
    rows: IoLogRows,
}

struct VcdOut {
    w: BufWriter<OutFile>,
    body: VcdBody<BufWriter<File>>,
}

/// Flush `w` and put its file in place.
fn commit(w: BufWriter<OutFile>) -> Result<(), String> {
    let path = w.get_ref().path().to_path_buf();
    let f = w.into_inner().map_err(|e| cannot_write(&path, e.error()))?;
    f.commit()
}

/// The consumers of a streamed run.
pub struct IoStream {
    measure: Measure,
    io_log: Option<IoLogOut>,
    vcd: Option<VcdOut>,
    /// The first write error, as the line the CLI prints.
    error: Option<String>,
}

fn cannot_write(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

/// An error of the VCD's temporary body file, as the reason of a `cannot write` line.
fn temporary(e: std::io::Error) -> String {
    format!("temporary file in {}: {e}", std::env::temp_dir().display())
}

/// A temporary file for the VCD body, removed from the directory at once (it lives until
/// closed).
fn spill_file() -> std::io::Result<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = dir.join(format!(".cairn-sim-{}-{n}.vcd-body", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&p) {
            Ok(f) => {
                let _ = std::fs::remove_file(&p);
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
            Err(e) => return Err(e),
        }
    }
}

impl IoStream {
    /// Measurements for the stats (always), and the io-log CSV and the VCD to these files,
    /// created now (an error is the CLI's one-line message).
    pub fn create(sc: &IoScenario, clock: u64, io_log: Option<&Path>, vcd: Option<&Path>) -> Result<IoStream, String> {
        let create = |p: &Path| OutFile::create(p).map(BufWriter::new);
        let io_log = match io_log {
            Some(p) => {
                let mut w = create(p)?;
                w.write_all(HEADER.as_bytes()).map_err(|e| cannot_write(p, e))?;
                Some(IoLogOut { w, rows: IoLogRows::new(sc, clock) })
            }
            None => None,
        };
        let vcd = match vcd {
            Some(p) => {
                let w = create(p)?;
                let spill = spill_file().map_err(|e| cannot_write(p, temporary(e)))?;
                Some(VcdOut { w, body: VcdBody::new(BufWriter::new(spill), sc, clock) })
            }
            None => None,
        };
        Ok(IoStream { measure: Measure::new(sc, clock), io_log, vcd, error: None })
    }

    /// Whether a VCD is written (the machine then records the power/exception timeline).
    pub fn has_vcd(&self) -> bool {
        self.vcd.is_some()
    }

    /// The measurements of what was fed so far.
    pub fn measure(&self) -> &Measure {
        &self.measure
    }

    /// Complete the outputs (see `finish`) and keep only the measurements, for the stats.
    pub fn complete(&mut self, sc: &IoScenario, clock_hz: u64, power: bool) -> Result<(), String> {
        let measure = self.measure.clone();
        let done = std::mem::replace(self, IoStream { measure, io_log: None, vcd: None, error: None });
        done.finish(sc, clock_hz, power)
    }

    fn record(&mut self, r: Result<(), String>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// One drained batch: events in time order, and the timeline entries of the same span.
    pub fn feed(&mut self, events: &[IoEvent], power: &[(u64, PowerState)], exceptions: &[(u64, u64, u64)]) {
        for e in events {
            self.measure.feed(e);
        }
        if self.error.is_some() {
            return;
        }
        if let Some(o) = self.io_log.as_mut() {
            let r = events
                .iter()
                .try_for_each(|e| o.rows.row(&mut o.w, e))
                .map_err(|e| cannot_write(o.w.get_ref().path(), e));
            self.record(r);
        }
        if let Some(o) = self.vcd.as_mut() {
            let r =
                o.body.feed(events, power, exceptions).map_err(|e| cannot_write(o.w.get_ref().path(), temporary(e)));
            self.record(r);
        }
    }

    /// Flush the io-log and write the VCD (header, then the body with final identifiers).
    fn finish(self, sc: &IoScenario, clock_hz: u64, power: bool) -> Result<(), String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if let Some(o) = self.io_log {
            commit(o.w)?;
        }
        if let Some(VcdOut { mut w, body }) = self.vcd {
            let path = w.get_ref().path().to_path_buf();
            let err = |e| cannot_write(&path, e);
            let spill_err = |e| cannot_write(&path, temporary(e));
            let (spill, signals) = body.finish().map_err(spill_err)?;
            let mut file = spill.into_inner().map_err(|e| spill_err(e.into_error()))?;
            file.rewind().map_err(spill_err)?;
            signals.render(sc, clock_hz, power, &mut BufReader::new(file), &mut w).map_err(err)?;
            commit(w)?;
        }
        Ok(())
    }
}
