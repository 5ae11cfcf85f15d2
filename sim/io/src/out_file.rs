//! Output files (`--stats`, `--trace`, `--vcd`, `--io-log`) that are either complete or
//! absent: written under a temporary name in the target's directory (so the final rename
//! cannot cross file systems) and renamed over the target only when complete. A write
//! error, a rejected run or an internal error removes the temporary file and leaves any
//! earlier file of that name as it was.
//!
//! A target that exists and is not a regular file (`/dev/stdout`, `/dev/null`, a FIFO) is
//! written directly: there is nothing to rename over, and replacing a device node would be
//! wrong. A symbolic link to a regular file stays a link: the temporary file goes next to
//! the file it points to, which is what gets replaced.
//!
//! The process ends through `std::process::exit` (which runs no destructors) on errors, so
//! temporary files are also recorded in a list that [`remove_pending`] empties; the CLI
//! calls it on every exit other than success. A run killed by a signal leaves its
//! temporary file (`.NAME.cairn-sim-PID-N.tmp`) behind.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remove every temporary file not yet renamed into place (on exits other than success).
pub fn remove_pending() {
    for p in pending().drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

fn forget(tmp: &Path) {
    pending().retain(|p| p != tmp);
}

#[derive(Debug)]
pub struct OutFile {
    file: File,
    /// The name the user gave, for messages.
    shown: PathBuf,
    /// The file replaced at the end, and the temporary name written until then (None when
    /// the target is written directly).
    target: PathBuf,
    tmp: Option<PathBuf>,
}

fn cannot_write(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

impl OutFile {
    /// Start writing `path`. The error is the CLI's line, `cannot write PATH: REASON`.
    pub fn create(path: &Path) -> Result<OutFile, String> {
        let err = |e: std::io::Error| cannot_write(path, e);
        let target = match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => return Err(cannot_write(path, "is a directory")),
            Ok(m) if !m.is_file() => {
                let file = OpenOptions::new().write(true).open(path).map_err(err)?;
                return Ok(OutFile { file, shown: path.into(), target: path.into(), tmp: None });
            }
            Ok(_) => {
                // A file the user could not overwrite is not replaced behind its back.
                OpenOptions::new().write(true).open(path).map_err(err)?;
                std::fs::canonicalize(path).map_err(err)?
            }
            Err(_) => path.to_path_buf(),
        };
        let Some(name) = target.file_name() else { return Err(cannot_write(path, "not a file name")) };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let tmp = dir.join(format!(".{}.cairn-sim-{}-{n}.tmp", name.to_string_lossy(), std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => {
                    pending().push(tmp.clone());
                    return Ok(OutFile { file, shown: path.into(), target, tmp: Some(tmp) });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
                Err(e) => return Err(err(e)),
            }
        }
    }

    /// The name the user gave.
    pub fn path(&self) -> &Path {
        &self.shown
    }

    /// Put the complete file in place. The caller has flushed everything into it.
    pub fn commit(mut self) -> Result<(), String> {
        let Some(tmp) = self.tmp.take() else { return Ok(()) };
        let r = std::fs::rename(&tmp, &self.target);
        if r.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        forget(&tmp);
        r.map_err(|e| cannot_write(&self.shown, e))
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(&tmp);
            forget(&tmp);
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Write `bytes` as the whole of `path`, complete or not at all.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = OutFile::create(path)?;
    f.write_all(bytes).map_err(|e| cannot_write(path, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cairn-out-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn complete_or_absent() {
        let d = dir("atomic");
        let p = d.join("out.json");
        std::fs::write(&p, "old").unwrap();
        let mut f = OutFile::create(&p).unwrap();
        f.write_all(b"new, half").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old", "not replaced before commit");
        drop(f);
        assert_eq!(names(&d), ["out.json"], "the temporary file is gone");
        let mut f = OutFile::create(&p).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn devices_are_written_directly_and_directories_refused() {
        let mut f = OutFile::create(Path::new("/dev/null")).unwrap();
        assert!(f.tmp.is_none());
        f.write_all(b"x").unwrap();
        f.commit().unwrap();
        let d = dir("refused");
        assert!(OutFile::create(&d).unwrap_err().ends_with("is a directory"));
        assert!(OutFile::create(&d.join("no/such/dir")).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
